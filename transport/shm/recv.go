//go:build linux

package shm

import (
	"encoding/binary"
	"fmt"
	"runtime"

	"github.com/gompi/gompi/transport"
)

// pollBatch bounds the records one Poll takes from one ring, so a rank
// polling for itself is not held up delivering a long backlog to others.
const pollBatch = 64

// maxFrame bounds the payload a record may announce, so a corrupt length
// makes an error rather than an allocation that kills the process.
const maxFrame = 1 << 36

// Poll implements transport.Poller: it drains whatever the rings hold into
// the inboxes of this process and reports whether ib got something.
func (t *Transport) Poll(ib *transport.Inbox) bool {
	t.drain(false)
	return ib.Len() > 0
}

// drain consumes the incoming rings. A rank polling (all=false) skips rings
// another goroutine is reading and takes a bounded batch; the waiter
// (all=true) waits for each ring's lock and empties it, since it may be the
// only one left to deliver what a sender woke it for.
func (t *Transport) drain(all bool) {
	t.life.RLock()
	defer t.life.RUnlock()
	if t.closing.Load() {
		return
	}
	for _, r := range t.in {
		if r == nil || r.tail.Load() == r.head.Load() {
			continue
		}
		if !t.lockRing(r, all) {
			continue
		}
		if r.broken == nil {
			t.consume(r, all)
		}
		r.unlock()
	}
	if t.ctrlQueued.Load() > 0 {
		for i := range t.peers {
			if pr := t.peers[i].Load(); pr != nil && pr.nctrl.Load() > 0 && pr.out.mu.TryLock() {
				t.flushCtrlLocked(pr)
				pr.out.mu.Unlock()
			}
		}
	}
}

// lockRing takes r's try-lock; with wait it insists until it succeeds or
// the transport closes.
func (t *Transport) lockRing(r *inRing, wait bool) bool {
	for !r.tryLock() {
		if !wait || t.closing.Load() {
			return false
		}
		runtime.Gosched()
	}
	return true
}

// consume handles the records of ring r. The caller holds r's lock, so
// records are delivered in ring order.
func (t *Transport) consume(r *inRing, all bool) {
	for n := 0; all || n < pollBatch; n++ {
		typ, body, recLen, ok, err := r.next()
		if err == nil && ok {
			err = t.handle(r, typ, body)
		}
		if err != nil {
			t.fail(r, err)
			return
		}
		if !ok {
			return
		}
		r.consumed(recLen)
	}
}

// handle acts on one record. body lies in the ring: whatever outlives the
// call is copied.
func (t *Transport) handle(r *inRing, typ byte, body []byte) error {
	switch typ {
	case recPad:
		return nil
	case recFrame:
		return t.handleFrame(r, body)
	case recChunk:
		p := r.partial
		if p == nil {
			return fmt.Errorf("shm: ring from process %d: payload chunk outside a frame", r.from)
		}
		if p.got+len(body) > len(p.f.Payload) {
			return fmt.Errorf("shm: ring from process %d: chunk overflows its %d-byte frame", r.from, len(p.f.Payload))
		}
		p.got += copy(p.f.Payload[p.got:], body)
		if p.got == len(p.f.Payload) {
			r.partial = nil
			p.ib.Deliver(p.f)
		}
		return nil
	case recRdv:
		return t.handleRdv(r, body)
	case recDone, recNack:
		if len(body) != 8 {
			return fmt.Errorf("shm: ring from process %d: control record of %d bytes", r.from, len(body))
		}
		tok := binary.LittleEndian.Uint64(body)
		f := t.takePending(tok)
		if f == nil {
			return fmt.Errorf("shm: ring from process %d: completion for unknown transfer %d", r.from, tok)
		}
		if typ == recDone {
			f.Release()
			return nil
		}
		pr, err := t.peer(r.from)
		if err != nil {
			f.Release()
			return err
		}
		go t.streamRefused(pr, f)
		return nil
	}
	return fmt.Errorf("shm: ring from process %d: bad record type %d", r.from, typ)
}

// frameHeader decodes the frame header at the start of body and finds the
// inbox it is for.
func (t *Transport) frameHeader(r *inRing, body []byte) (transport.Header, *transport.Inbox, error) {
	if r.partial != nil {
		return transport.Header{}, nil, fmt.Errorf("shm: ring from process %d: new frame before the last one's payload ended", r.from)
	}
	h, err := transport.DecodeHeader(body)
	if err != nil {
		return h, nil, fmt.Errorf("shm: ring from process %d: %w", r.from, err)
	}
	ib, err := t.inboxOf(h.Dst)
	return h, ib, err
}

func (t *Transport) handleFrame(r *inRing, body []byte) error {
	h, ib, err := t.frameHeader(r, body)
	if err != nil {
		return err
	}
	data := body[transport.HeaderSize:]
	plen := h.PayloadLen()
	if int64(len(data)) > plen || plen > maxFrame {
		return fmt.Errorf("shm: ring from process %d: %d payload bytes for a %d-byte frame", r.from, len(data), plen)
	}
	f := &transport.Frame{Header: h}
	if plen == 0 {
		ib.Deliver(f)
		return nil
	}
	buf, recycle := getBuf(int(plen))
	f.Payload = buf
	if recycle != nil {
		f.Borrow(recycle)
	}
	n := copy(buf, data)
	if int64(n) < plen {
		r.partial = &partialFrame{f: f, ib: ib, got: n}
		return nil
	}
	ib.Deliver(f)
	return nil
}

// handleRdv reads a rendezvous payload straight out of the sender with
// process_vm_readv and tells the sender its buffer is free. If the kernel
// refuses the call, this process stops advertising the single-copy path and
// asks the sender to send the payload through the ring instead.
func (t *Transport) handleRdv(r *inRing, body []byte) error {
	h, ib, err := t.frameHeader(r, body)
	if err != nil {
		return err
	}
	if len(body) != transport.HeaderSize+rdvBody {
		return fmt.Errorf("shm: ring from process %d: descriptor of %d bytes", r.from, len(body))
	}
	d := body[transport.HeaderSize:]
	addr := binary.LittleEndian.Uint64(d[0:])
	size := binary.LittleEndian.Uint64(d[8:])
	tok := binary.LittleEndian.Uint64(d[16:])
	if h.Kind != transport.Data || size != uint64(h.Size) || size == 0 || size > maxFrame || addr == 0 {
		return fmt.Errorf("shm: ring from process %d: bad descriptor (%v, %d bytes at %#x)", r.from, h.Kind, size, addr)
	}
	pr, err := t.peer(r.from)
	if err != nil {
		return err
	}
	buf, recycle := getBuf(int(size))
	_, err = cmaRead(int(pr.seg.u32(offPid).Load()), uintptr(addr), buf)
	if err != nil {
		if recycle != nil {
			recycle()
		}
		if permanentCMAFailure(err) {
			t.own.u32(offCMA).Store(0)
			t.queueCtrl(pr, recNack, tok)
			return nil
		}
		return fmt.Errorf("shm: reading %d bytes from process %d: %w", size, r.from, err)
	}
	t.queueCtrl(pr, recDone, tok)
	f := &transport.Frame{Header: h, Payload: buf}
	if recycle != nil {
		f.Borrow(recycle)
	}
	ib.Deliver(f)
	return nil
}
