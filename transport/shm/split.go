//go:build linux

package shm

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/transport"
)

// Split copies: both ends move a large rendezvous payload at once.
//
// A single-copy read leaves the sender idle while the receiver's core
// copies the whole payload, and a large send waits for that copy (a
// Bcast's root, a ping-pong). In real runs where this process may also
// write others' memory (process_vm_writev), the ACK of a large receive
// names the receive buffer (a recLand record, as in virtual runs:
// landing.go), and the sender answers with a recSplit descriptor: the
// receiver reads the payload's head with process_vm_readv while the
// sender writes its tail into the receive buffer with process_vm_writev,
// on two cores at once; a recSplitDone record says the tail is there
// (or that the write failed, and the receiver reads the tail too). The
// receiver's read returns only once both halves are in, and the frame's
// release waits for the same, so the receive buffer stays the receiver's
// until the sender has stopped writing into it; the sender's buffer is
// released by the completion record as after any single-copy read.
//
// docs/transports-shm.md, "Large messages", has what it gains.

// splitMin is the smallest payload whose copy is split: below it the
// extra records and system call cost more than half a copy saves.
var splitMin = 64 << 10

// SplitEnv names the environment variable that turns split copies off
// when set to 0.
const SplitEnv = "GOMPI_SHM_SPLIT"

// asksSplit reports whether the receiver answering with ACK f asks for a
// split copy: the payload is large and the receiving rank will wait for it
// rather than copy payloads of its own (transport.FlagExchanging). Where
// both ends send to each other at once (Sendrecv, Alltoall) each core is
// busy with a copy already, and splitting made the exchange slower; the
// sender's DATA says the same from its side.
func asksSplit(f *transport.Frame) bool {
	return f.Size >= int64(splitMin) && f.Flags&transport.FlagExchanging == 0
}

// splitAt is where the sender's part of an n-byte payload starts: half
// way, on a page boundary, so that neither side's pages are copied by
// both.
func splitAt(n int) int { return (n / 2) &^ 4095 }

// splits are the split transfers whose tail this process waits for, by
// sending process and token.
type splits struct {
	mu      sync.Mutex
	waiting map[splitKey]*splitState
}

type splitKey struct {
	from int
	tok  uint64
}

// splitState is one transfer's tail, as its recSplitDone said.
type splitState struct {
	done   atomic.Bool // the recSplitDone record was handled
	failed bool        // the sender could not write; set before done
}

// sendSplit sends rendezvous DATA f as a split copy into receive buffer
// rb, and reports false, having sent nothing, when it cannot or should
// not: f is small, or the buffer shorter than the payload (a truncating
// receive reads alone), or this process may not write, or f's rank
// receives payloads of its own meanwhile (transport.FlagExchanging). The
// caller has checked that f is a borrowed rendezvous DATA and that the
// peer reads.
func (t *Transport) sendSplit(pr *peer, f *transport.Frame, rb remoteBuf) (bool, error) {
	if !t.splitCopy.Load() || len(f.Payload) < splitMin || rb.n < len(f.Payload) || f.Flags&transport.FlagExchanging != 0 {
		return false, nil
	}
	h := f.Header
	n := len(f.Payload)
	at := splitAt(n)
	addr := uint64(uintptr(unsafe.Pointer(&f.Payload[0])))
	tail := f.Payload[at:]
	tok := t.addPending(f) // until the receiver's completion: it may read all
	if err := t.sendDescriptor(pr, recSplit, &h, addr, uint64(n), tok, uint64(at)); err != nil {
		t.takePending(tok)
		return true, err
	}
	t.splitsOut.Add(1)
	// The receiver reads the head meanwhile. f stays pending until its
	// completion, which comes only after this record: tail stays valid.
	status := uint64(0)
	if _, err := cmaWrite(rb.pid, uintptr(rb.addr)+uintptr(at), tail); err != nil {
		if permanentCMAFailure(err) {
			t.splitCopy.Store(false)
		}
		status = 1 // the receiver reads the tail itself
	}
	return true, t.sendDescriptor(pr, recSplitDone, &h, tok, status)
}

// handleSplit delivers a rendezvous DATA whose payload's head the
// receiving engine reads (ReadPayload) while the sender writes the tail
// into the receive buffer; the read returns, and the frame's release
// sends the completion, once the tail is in.
func (t *Transport) handleSplit(r *inRing, body []byte) (*transport.Inbox, error) {
	var h transport.Header
	var d [4]uint64
	ib, pr, err := t.descriptor(r, body, &h, d[:])
	if err != nil {
		return nil, err
	}
	addr, size, tok, at := d[0], d[1], d[2], d[3]
	if at == 0 || at >= size {
		return nil, fmt.Errorf("shm: ring from process %d: split descriptor of %d bytes splits at %d", r.from, size, at)
	}
	pid := int(pr.seg.u32(offPid).Load())
	st := &splitState{}
	key := splitKey{r.from, tok}
	t.splits.mu.Lock()
	if t.splits.waiting == nil {
		t.splits.waiting = map[splitKey]*splitState{}
	}
	t.splits.waiting[key] = st
	t.splits.mu.Unlock()
	f := transport.NewFrame()
	f.Header = h
	f.SetFetch(func(dst []byte) (int, error) {
		if uint64(len(dst)) < size {
			// The sender writes only into a buffer that holds it all.
			return 0, fmt.Errorf("shm: split DATA of %d bytes read into %d", size, len(dst))
		}
		head, err := cmaRead(pid, uintptr(addr), dst[:at])
		if err == nil {
			err = t.awaitTail(pr, st, ib)
		}
		if err == nil && st.failed {
			var n int
			n, err = cmaRead(pid, uintptr(addr+at), dst[at:size])
			head += n
		} else if err == nil {
			head = int(size)
		}
		if err != nil {
			if permanentCMAFailure(err) {
				t.own.u32(offCMA).Store(0)
			}
			return head, fmt.Errorf("shm: split read of %d bytes from process %d: %w", size, r.from, err)
		}
		return head, nil
	})
	f.Borrow(func() {
		// However the frame ends, the sender's write into the receive
		// buffer is over before the receive is.
		t.awaitTail(pr, st, nil)
		t.complete(pr, tok)
	})
	ib.Deliver(f)
	return ib, nil
}

// handleSplitDone notes that the sender of split transfer tok has written
// its tail, or failed to.
func (t *Transport) handleSplitDone(r *inRing, body []byte) error {
	var h transport.Header
	if _, err := t.frameHeader(r, body, &h); err != nil {
		return err
	}
	if len(body) != transport.HeaderSize+16 {
		return fmt.Errorf("shm: ring from process %d: split completion of %d bytes", r.from, len(body))
	}
	d := body[transport.HeaderSize:]
	key := splitKey{r.from, binary.LittleEndian.Uint64(d[0:])}
	t.splits.mu.Lock()
	st := t.splits.waiting[key]
	delete(t.splits.waiting, key)
	t.splits.mu.Unlock()
	if st == nil {
		return fmt.Errorf("shm: ring from process %d: split completion for unknown transfer %d", r.from, key.tok)
	}
	st.failed = binary.LittleEndian.Uint64(d[8:]) != 0
	st.done.Store(true)
	return nil
}

// awaitTail waits until the sender of a split transfer has said its tail
// is written. The record is behind the descriptor in the same ring, and
// the sender writes it as soon as its copy (about as long as the
// receiver's) returns, so the wait polls the rings itself; it ends with
// an error if the sender's process goes away. ib is the waiting rank's
// inbox, nil where the goroutine that waits may not be its owner (a
// frame's release): its Yielding runs before each yield.
func (t *Transport) awaitTail(pr *peer, st *splitState, ib *transport.Inbox) error {
	for i := 0; !st.done.Load(); i++ {
		if t.closing.Load() {
			return errClosed
		}
		t.drain(nil, false)
		if st.done.Load() {
			break
		}
		if i%64 == 63 && !pr.seg.alive() {
			return errPeerGone
		}
		ib.Yielding()
		runtime.Gosched()
	}
	return nil
}
