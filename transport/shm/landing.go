//go:build linux

package shm

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/transport"
)

// Landing rendezvous payloads in the receive buffer.
//
// A rendezvous DATA goes out once its receiver has matched the REQ and
// answered with an ACK, so the receive buffer is known before the payload
// moves (transport.Inbox.ExpectPayload). Two paths use that:
//
//   - A DATA that streams through the ring is copied from the ring straight
//     into that buffer (handleFrame), not into a frame the receiving rank
//     then copies out of.
//   - In virtual-time runs (Config.LendCopies) a sender must not wait for
//     its receiver's progress, which the single-copy read makes it do. The
//     ACK then carries the receive buffer's address and length (a recLand
//     record), and the sender writes a large payload into it itself with
//     process_vm_writev and sends the DATA's header alone (recLanded): one
//     copy, made by the sender, which is done once its write returns. Where
//     that is not possible (no address came, the kernel refuses the
//     write) the sender lends a copy, read with process_vm_readv as before:
//     two copies.
//
// The receive buffer stays where it is until the DATA is handled: Go's heap
// does not move objects, the receive request holds the buffer, and a
// matched receive can be neither cancelled nor completed before its DATA
// (a failing peer ends the job).

// remoteBuf is a receive buffer in another process, named by an ACK.
type remoteBuf struct {
	pid  int
	addr uint64
	n    int
}

// landKey names a receive: the receiving rank and the receive's id.
type landKey struct {
	rank int32
	recv uint64
}

// landing returns the buffer the rank of ib registered for rendezvous DATA
// h, and removes the registration.
func landing(ib *transport.Inbox, h *transport.Header) ([]byte, bool) {
	if h.Kind != transport.Data || h.Flags&transport.FlagRendezvous == 0 {
		return nil, false
	}
	return ib.TakePayloadDest(h.RecvID)
}

// sendLanding sends ACK f with the address and length of the receive
// buffer it is for, when its rank registered one; it reports false, having
// sent nothing, when f should go as an ordinary frame.
func (t *Transport) sendLanding(pr *peer, f *transport.Frame) (bool, error) {
	ib, err := t.inboxOf(f.Src)
	if err != nil {
		return false, nil
	}
	buf, ok := ib.PeekPayloadDest(f.RecvID)
	if !ok || len(buf) == 0 {
		return false, nil
	}
	addr := uint64(uintptr(unsafe.Pointer(&buf[0])))
	if err := t.sendDescriptor(pr, recLand, &f.Header, addr, uint64(len(buf))); err != nil {
		return true, err
	}
	f.Free()
	return true, nil
}

// handleLand delivers an ACK that names its receive buffer, after noting
// the buffer for the DATA to come.
func (t *Transport) handleLand(r *inRing, body []byte) (*transport.Inbox, error) {
	f := transport.NewFrame()
	ib, err := t.frameHeader(r, body, &f.Header)
	if err == nil && len(body) != transport.HeaderSize+16 {
		err = fmt.Errorf("shm: ring from process %d: landing record of %d bytes", r.from, len(body))
	}
	var pr *peer
	if err == nil {
		pr, err = t.peer(r.from)
	}
	if err != nil {
		f.Free()
		return nil, err
	}
	d := body[transport.HeaderSize:]
	addr := binary.LittleEndian.Uint64(d[0:])
	n := binary.LittleEndian.Uint64(d[8:])
	if f.Kind != transport.Ack || addr == 0 || n == 0 || n > maxFrame {
		f.Free()
		return nil, fmt.Errorf("shm: ring from process %d: bad landing (%v, %d bytes at %#x)", r.from, f.Kind, n, addr)
	}
	if !t.cmaWrite.Load() && !t.splitCopy.Load() {
		ib.Deliver(f) // this process does not write: the DATA comes another way
		return ib, nil
	}
	t.landMu.Lock()
	if t.lands == nil {
		t.lands = map[landKey]remoteBuf{}
	}
	t.lands[landKey{f.Src, f.RecvID}] = remoteBuf{pid: int(pr.seg.u32(offPid).Load()), addr: addr, n: int(n)}
	t.landMu.Unlock()
	ib.Deliver(f)
	return ib, nil
}

// sendLanded writes the payload of rendezvous DATA f into the receive
// buffer its ACK named and sends the header after it; it reports false,
// having sent nothing, when no buffer was named or the write failed (the
// caller then lends a copy).
func (t *Transport) sendLanded(pr *peer, f *transport.Frame) (bool, error) {
	if !t.cfg.LendCopies || f.Kind != transport.Data || f.Flags&transport.FlagRendezvous == 0 {
		return false, nil
	}
	rb, ok := t.takeLand(f)
	if !ok || !t.cmaWrite.Load() {
		return false, nil
	}
	n := min(len(f.Payload), rb.n)
	if _, err := cmaWrite(rb.pid, uintptr(rb.addr), f.Payload[:n]); err != nil {
		if permanentCMAFailure(err) {
			t.cmaWrite.Store(false)
		}
		return false, nil
	}
	if err := t.sendDescriptor(pr, recLanded, &f.Header); err != nil {
		return true, err
	}
	// The payload is in the receiver's buffer: the sender's is free.
	f.Free()
	return true, nil
}

// takeLand returns the receive buffer the ACK for rendezvous DATA f named,
// if one did, and forgets it.
func (t *Transport) takeLand(f *transport.Frame) (remoteBuf, bool) {
	k := landKey{f.Dst, f.RecvID}
	t.landMu.Lock()
	rb, ok := t.lands[k]
	if ok {
		delete(t.lands, k)
	}
	t.landMu.Unlock()
	return rb, ok
}

// handleLanded delivers a rendezvous DATA whose payload its sender wrote
// into the receive buffer: the frame's payload is that buffer, so the
// receiving rank copies nothing.
func (t *Transport) handleLanded(r *inRing, body []byte) (*transport.Inbox, error) {
	f := transport.NewFrame()
	ib, err := t.frameHeader(r, body, &f.Header)
	if err == nil && len(body) != transport.HeaderSize {
		err = fmt.Errorf("shm: ring from process %d: landed DATA record of %d bytes", r.from, len(body))
	}
	if err != nil {
		f.Free()
		return nil, err
	}
	buf, ok := landing(ib, &f.Header)
	if !ok {
		f.Free()
		return nil, fmt.Errorf("shm: ring from process %d: landed DATA for rank %d's receive %d, which named no buffer", r.from, f.Dst, f.RecvID)
	}
	f.Payload = buf[:min(int64(len(buf)), f.Size)]
	ib.Deliver(f)
	return ib, nil
}
