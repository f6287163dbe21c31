//go:build linux

package shm

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/gompi/gompi/transport"
)

// Send implements transport.Transport. Frames for this process's own ranks
// go straight to their inbox (a borrowed payload stays borrowed: the
// receiver copies once); others are written into the destination process's
// segment.
func (t *Transport) Send(f *transport.Frame) error {
	d := int(f.Dst)
	p := t.procOf(d)
	if p < 0 {
		return &transport.UnreachableError{Dst: d}
	}
	if int64(len(f.Payload)) != f.PayloadLen() {
		return fmt.Errorf("shm: %v frame carries %d payload bytes, its header says %d", f.Kind, len(f.Payload), f.PayloadLen())
	}
	if p == t.cfg.LocalProc {
		ib, err := t.inboxOf(f.Dst)
		if err != nil {
			return err
		}
		ib.Deliver(f)
		return nil
	}
	if t.closing.Load() {
		return errClosed
	}
	pr, err := t.peer(p)
	if err != nil {
		return err
	}
	if f.Borrowed() && len(f.Payload) > 0 {
		// Into the receive buffer its ACK named (landing.go), if it did.
		if sent, err := t.sendLanded(pr, f); sent {
			return err
		}
	}
	var rb remoteBuf
	landed := false
	if !t.cfg.LendCopies && f.Kind == transport.Data && f.Flags&transport.FlagRendezvous != 0 {
		rb, landed = t.takeLand(f) // whichever way the DATA goes
	}
	if f.Borrowed() && len(f.Payload) > 0 && t.cma && pr.seg.u32(offCMA).Load() == 1 {
		if !t.cfg.LendCopies {
			if landed {
				if sent, err := t.sendSplit(pr, f, rb); sent {
					return err
				}
			}
			return t.sendRdv(pr, f)
		}
		if len(f.Payload) > maxRecordPayload(pr) {
			lendCopy(f)
			return t.sendRdv(pr, f)
		}
	}
	if f.Kind == transport.Ack && (t.cmaWrite.Load() || t.splitCopy.Load() && asksSplit(f)) {
		// Name the receive buffer, for the sender to write into.
		if sent, err := t.sendLanding(pr, f); sent {
			return err
		}
	}
	pr.out.mu.Lock()
	err = t.sendFrame(pr, f)
	pr.out.mu.Unlock()
	if err == nil {
		// The frame is in the ring now: a borrowed buffer is free, and the
		// frame is ours to recycle.
		f.Free()
	}
	return err
}

// SendSmall implements transport.SmallSender: an eager DATA that would go
// into a fastbox cell with a short header goes there the same way, without
// a Frame. It declines (false, nil) what Send would send otherwise, and
// anything Send must do first: a destination in this process or not yet
// attached, control records to flush, a cut ring; Send then reports any
// error.
func (t *Transport) SendSmall(h *transport.Header, p []byte) (bool, error) {
	if !shortFits(h, len(p)) {
		return false, nil
	}
	i := t.procOf(int(h.Dst))
	if i < 0 || i == t.cfg.LocalProc || t.closing.Load() {
		return false, nil
	}
	pr := t.peers[i].Load()
	if pr == nil {
		return false, nil
	}
	pr.out.mu.Lock()
	sent := pr.out.cut == nil && pr.nctrl.Load() == 0 && pr.out.putShortCell(h, p)
	if sent {
		notify(pr)
	}
	pr.out.mu.Unlock()
	return sent, nil
}

// SmallMax implements transport.SmallSender: a cell's payload behind a
// short header.
func (t *Transport) SmallMax() int { return shortMax }

// CopiesOnSend implements transport.SendCopier: a frame for another
// process's rank that owns its payload is written into the ring (or its
// cells) before Send returns, in chunks if it is larger than a record;
// only one for this process's ranks is handed on as it is.
func (t *Transport) CopiesOnSend(dst int) bool {
	p := t.procOf(dst)
	return p >= 0 && p != t.cfg.LocalProc
}

// lendCopy replaces f's borrowed payload with a copy that f owns and
// releases the sender's buffer (Config.LendCopies). Freeing f (at the
// peer's completion) recycles the copy.
func lendCopy(f *transport.Frame) {
	src := f.Payload
	copy(f.AllocPayload(len(src)), src)
	f.Release()
}

// maxRecordPayload is the largest payload one record of pr's ring carries,
// a frame's first or a chunk (sendFrame sends a larger frame in chunks): a
// quarter of the ring, so that an eager message of mpi's default limit between processes
// (128 KiB) fits one record of the default 512 KiB ring, where a partial
// frame would cost the receiver an allocation and a copy; with its headers
// the record stays within half the ring, as reserve needs.
func maxRecordPayload(pr *peer) int {
	return len(pr.out.data) / 4
}

// sendFrame writes f with its payload: in a fastbox cell when it fits one
// and may go there (fastbox.go), else in one ring record when it fits a
// quarter of the ring, else as a frame record and chunk records. The
// caller holds pr.out.mu.
func (t *Transport) sendFrame(pr *peer, f *transport.Frame) error {
	if pr.out.cut != nil {
		return pr.out.cut
	}
	if pr.nctrl.Load() > 0 {
		t.flushCtrlLocked(pr)
	}
	if pr.out.putCell(f) {
		notify(pr)
		return nil
	}
	most := maxRecordPayload(pr)
	first := min(len(f.Payload), most)
	b, err := t.room(pr, transport.HeaderSize+first, f.Sender())
	if err != nil {
		return err
	}
	putRecHdr(b, len(b), transport.HeaderSize+first, recFrame)
	transport.EncodeHeader(b[recHdr:], &f.Header)
	ringCopy(b[recHdr+transport.HeaderSize:], f.Payload[:first])
	pr.out.publish(len(b))
	notify(pr)
	for off := first; off < len(f.Payload); {
		n := min(len(f.Payload)-off, most)
		b, err := t.room(pr, n, f.Sender())
		if err != nil {
			// The receiver holds a partial frame now, but the peer is gone
			// or we are closing: nobody will read on.
			pr.out.cut = err
			return err
		}
		putRecHdr(b, len(b), n, recChunk)
		ringCopy(b[recHdr:], f.Payload[off:off+n])
		pr.out.publish(len(b))
		notify(pr)
		off += n
	}
	return nil
}

// sendRdv writes a descriptor of f's borrowed payload; the peer reads it
// with process_vm_readv and answers recDone, upon which f is released.
func (t *Transport) sendRdv(pr *peer, f *transport.Frame) error {
	// Everything needed from f is read before f is published in t.pending:
	// the completion may free f as soon as the record is out, and the lock
	// orders these reads before it.
	h := f.Header
	// The frame stays in t.pending until the peer is done, and Go's heap
	// does not move objects, so the address stays valid.
	addr := uint64(uintptr(unsafe.Pointer(&f.Payload[0])))
	size := uint64(len(f.Payload))
	tok := t.addPending(f)
	err := t.sendDescriptor(pr, recRdv, &h, addr, size, tok)
	if err != nil {
		t.takePending(tok)
	}
	return err
}

// addPending keeps borrowed frame f until the peer's completion for the
// token it returns.
func (t *Transport) addPending(f *transport.Frame) uint64 {
	t.pendMu.Lock()
	defer t.pendMu.Unlock()
	t.nextTok++
	t.pending[t.nextTok] = f
	return t.nextTok
}

// sendDescriptor writes a record of type typ: frame header h followed by
// words, little-endian.
func (t *Transport) sendDescriptor(pr *peer, typ byte, h *transport.Header, words ...uint64) error {
	n := transport.HeaderSize + 8*len(words)
	pr.out.mu.Lock()
	defer pr.out.mu.Unlock()
	if pr.out.cut != nil {
		return pr.out.cut
	}
	if pr.nctrl.Load() > 0 {
		t.flushCtrlLocked(pr)
	}
	b, err := t.room(pr, n, nil)
	if err != nil {
		return err
	}
	putRecHdr(b, len(b), n, typ)
	transport.EncodeHeader(b[recHdr:], h)
	d := b[recHdr+transport.HeaderSize:]
	for i, w := range words {
		binary.LittleEndian.PutUint64(d[8*i:], w)
	}
	pr.out.publish(len(b))
	notify(pr)
	return nil
}

func (t *Transport) takePending(tok uint64) *transport.Frame {
	t.pendMu.Lock()
	f := t.pending[tok]
	delete(t.pending, tok)
	t.pendMu.Unlock()
	return f
}

// notify wakes the peer's waiter if one of its ranks sleeps and the waiter
// blocks. The loads follow the publishing store of tail; see wake.go for
// why no wake-up is lost.
func notify(pr *peer) {
	if pr.seg.u32(offSleepers).Load() != 0 && pr.seg.u32(offParked).Load() != 0 {
		wake(pr.seg)
	}
}

// room waits for space for a record with a body of n bytes and returns it.
// While the ring is full it asks the peer's waiter to drain, and it gives up
// when the peer is gone or this transport closes. mine is the sending
// rank's inbox where its goroutine sends and may take frames straight
// into its receives meanwhile (transport.Frame.SetSender), else nil. The
// caller holds pr.out.mu.
func (t *Transport) room(pr *peer, n int, mine *transport.Inbox) ([]byte, error) {
	rec := alignUp(recHdr + n)
	w := stallWait{mine: mine}
	for {
		if b := pr.out.reserve(rec); b != nil {
			return b[:rec], nil
		}
		if err := t.stall(pr, &w); err != nil {
			return nil, err
		}
	}
}

// stallWait is where a wait for a full ring stands.
type stallWait struct {
	spins, naps int
	start       time.Time
	head        uint64      // the consumer's head, as reserve last read it, at the last check
	timer       *time.Timer // bounds each awaitRoom
	// mine is the inbox of the rank whose goroutine waits, when it may
	// take its frames straight into its posted receives (room), else nil.
	mine *transport.Inbox
}

// stall is one step of waiting for a full ring to drain. Every 64 steps
// it checks that the consumer lives and, while it yields, asks the
// consumer's waiter to drain, unless the consumer freed room since it
// last looked: a consumer that drains needs no help, and a wake-up would
// only take its processor for the waiter. It drains this process's own
// rings (yielding when they held nothing), for as long as the
// transport's ranks spin (spinFor: the host has a core for each) or at
// least 64 times, and then waits until the consumer says it freed room
// (awaitRoom), a millisecond at most a step. The drain is MPICH's
// progress engine running while a send waits: when two processes' ranks
// both send more than a ring holds to each other, each consumer is
// itself a sender waiting for room, and without it each ring's room came
// only from a wake-up of its waiter (docs/transports-shm.md, "Full
// rings"). Frames for the waiting rank itself go straight into its posted
// receives where it allows that (w.mine), one copy as its own poll makes,
// rather than into a frame its receive copies again. Where the consumer has
// a core of its own it drains a full ring far sooner than a Go sleep of a
// process with nothing else to run ends (its timers wait in the network
// poller, in whole milliseconds): a sender that slept at once left the
// receiver idle for most of the sleep, and one that slept after its
// yields, on a host with more processes than cores, waited a millisecond
// for each ring of a long message (docs/transports-shm.md, "Full rings",
// has the figures).
func (t *Transport) stall(pr *peer, w *stallWait) error {
	if t.closing.Load() {
		return errClosed
	}
	if w.spins == 0 {
		w.start = time.Now()
		w.head = pr.out.seenHead
	}
	if n := w.spins + w.naps; n > 0 && n%64 == 0 {
		if !pr.seg.alive() {
			return errPeerGone
		}
		if w.naps == 0 { // awaitRoom asks for the drain itself before it parks
			if pr.out.seenHead == w.head {
				wake(pr.seg)
			}
			w.head = pr.out.seenHead
		}
	}
	if w.naps == 0 && (w.spins < 64 || w.spins%64 != 0 || time.Since(w.start) < t.spinFor) {
		w.spins++
		if !t.drain(w.mine, false) {
			w.mine.Yielding()
			runtime.Gosched()
		}
		return nil
	}
	w.naps++
	w.mine.Yielding()
	t.awaitRoom(pr, w)
	return nil
}

// awaitRoom parks the sending goroutine until the consumer frees room in
// its ring (it then wakes this process's waiter, which tells the sender:
// signalRoom), or for a millisecond. The caller holds pr.out.mu. Store then
// load on both sides: the sender raises the ring's room-wait flag and then
// reads the consumer's head; the consumer stores its head and then reads
// the flag. So either the sender sees the head move and does not park, or
// the consumer sees the flag and wakes it.
func (t *Transport) awaitRoom(pr *peer, w *stallWait) {
	o := &pr.out
	t.roomWaiters.Add(1)
	o.waiting.Store(true)
	o.roomWait.Store(1)
	defer func() {
		o.roomWait.Store(0)
		o.waiting.Store(false)
		t.roomWaiters.Add(-1)
	}()
	if o.head.Load() != o.seenHead {
		return // room freed since reserve looked
	}
	wake(pr.seg) // the consumer's waiter drains, whatever its ranks do
	t.roomParks.Add(1)
	if w.timer == nil {
		w.timer = time.NewTimer(time.Millisecond)
	} else {
		w.timer.Reset(time.Millisecond)
	}
	select {
	case <-o.room:
		t.roomSignals.Add(1)
	case <-w.timer.C:
	}
	w.timer.Stop()
}

// signalRoom tells this process's senders waiting for room (awaitRoom)
// to look again; the waiter calls it each time it wakes, as a consumer
// that freed room in a ring whose producer waits wakes it (roomFreed).
func (t *Transport) signalRoom() {
	if t.roomWaiters.Load() == 0 {
		return
	}
	for i := range t.peers {
		if pr := t.peers[i].Load(); pr != nil && pr.out.waiting.Load() {
			select {
			case pr.out.room <- struct{}{}:
			default:
			}
		}
	}
}

// queueCtrl owes peer pr a control record and tries to write it at once;
// when the ring is full or busy, a flusher goroutine writes it later, so
// the consumer calling this never waits.
func (t *Transport) queueCtrl(pr *peer, typ byte, tok uint64) {
	pr.ctrlMu.Lock()
	pr.ctrl = append(pr.ctrl, ctrlRec{typ, tok})
	pr.nctrl.Add(1)
	t.ctrlQueued.Add(1)
	pr.ctrlMu.Unlock()
	if pr.out.mu.TryLock() {
		done := t.flushCtrlLocked(pr)
		pr.out.mu.Unlock()
		if done {
			return
		}
	}
	t.startFlusher(pr)
}

// flushCtrlLocked writes the queued control records that fit now and
// reports whether none is left. The caller holds pr.out.mu.
func (t *Transport) flushCtrlLocked(pr *peer) bool {
	pr.ctrlMu.Lock()
	defer pr.ctrlMu.Unlock()
	q := pr.ctrl
	for len(q) > 0 {
		b := pr.out.reserve(alignUp(recHdr + 8))
		if b == nil {
			break
		}
		putRecHdr(b, len(b), 8, q[0].typ)
		binary.LittleEndian.PutUint64(b[recHdr:], q[0].token)
		pr.out.publish(len(b))
		q = q[1:]
		pr.nctrl.Add(-1)
		t.ctrlQueued.Add(-1)
	}
	wrote := len(pr.ctrl) - len(q)
	pr.ctrl = append(pr.ctrl[:0], q...)
	if wrote > 0 {
		notify(pr)
	}
	return len(q) == 0
}

// startFlusher makes sure a goroutine writes pr's queued control records,
// waiting for room as a sender does.
func (t *Transport) startFlusher(pr *peer) {
	if !pr.flusher.CompareAndSwap(false, true) {
		return
	}
	go func() {
		for {
			if !t.closing.Load() {
				pr.out.mu.Lock()
				var w stallWait
				for !t.flushCtrlLocked(pr) {
					if t.stall(pr, &w) != nil {
						break // closing, or the peer is gone: nobody waits for these
					}
				}
				pr.out.mu.Unlock()
			}
			pr.flusher.Store(false)
			// A record queued while we were finishing would be stranded.
			if pr.nctrl.Load() == 0 || t.closing.Load() || !pr.flusher.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}
