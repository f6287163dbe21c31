//go:build linux

package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

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
	return t.drain(ib, false)
}

// drain consumes the incoming rings and reports whether it delivered a
// frame to inbox mine. Without wait (a rank polling) it skips rings another
// goroutine is reading and takes a bounded batch from each, only the
// filled cells of one that held no records (takeCells). With wait (the
// waiter, or a rank about to sleep) it waits for each ring's lock and
// takes everything the ring held then (consume): the goroutine holding the
// lock may have looked before the record a sender just woke us for was
// published, and nobody else may look again.
func (t *Transport) drain(mine *transport.Inbox, wait bool) (got bool) {
	if t.closing.Load() {
		return false
	}
	for _, r := range t.in {
		if r == nil {
			continue
		}
		records := r.tail.Load() != r.head.Load()
		if !records && !r.cellReady() {
			continue
		}
		if !t.lockRing(r, wait) {
			continue
		}
		if r.broken == nil {
			if !records && !wait {
				got = t.takeCells(r, mine) || got
			} else if t.consume(r, wait, mine) {
				got = true
			}
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
	return got
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

// consume handles the records of ring r and reports whether one was a frame
// for inbox mine. The caller holds r's lock, so records are delivered in
// ring order. Without all it takes a batch, which ends early at a whole
// frame for mine of at least leaveMin payload bytes that no posted receive
// takes, once one has been taken straight into its receive: that frame
// stays in the ring until mine polls again, when its receive may be posted
// too (taking it at once copied each message of a sender that runs ahead
// twice, into the queue and then into its buffer); a poll that has taken
// nothing takes it into the queue, so the frames behind it always come.
// With all, what the ring held when it began and what follows, until the
// ring is empty or it has taken more than a ring's worth of records or
// bytes. Then it has taken all that
// was published before it began (the ring and its cells hold no more, and
// are read in order), and a producer that keeps publishing cannot keep it
// for ever: the waiter, emptying the ring of a sender that ran ahead into
// the queue of its rank, held the process's processor until the runtime
// preempted it, while the rank waited to run. It shows the producer the
// room it frees a step at a time and all of it before it returns
// (showTaken).
func (t *Transport) consume(r *inRing, all bool, mine *transport.Inbox) (got bool) {
	got = t.consumeRecords(r, all, mine)
	t.showTaken(r)
	return got
}

// takeCells is consume for a rank polling a ring that held no records
// when it looked, only filled cells: a small message's usual way, taken
// without the batch's bookkeeping for records. The cells are taken in
// order, and before any record published since, as consume would take
// them (nextInOrder): a record follows every cell filled before it.
func (t *Transport) takeCells(r *inRing, mine *transport.Inbox) (got bool) {
	for range r.cells.n() {
		body, err := r.nextCell()
		if body == nil && err == nil {
			break
		}
		var to *transport.Inbox
		if err == nil {
			to, err = t.handle(r, recCell, body, mine, false)
		}
		if err != nil {
			t.fail(r, err)
			break
		}
		if to == mine && to != nil {
			got = true
		}
		r.release(0)
	}
	t.showTaken(r)
	return got
}

// consumeRecords is consume but for showing the producer what the last
// records freed.
func (t *Transport) consumeRecords(r *inRing, all bool, mine *transport.Inbox) (got bool) {
	limit, freed := pollBatch, 0
	took := false // a frame went straight into one of mine's posted receives
	if all {
		limit = len(r.data)/recAlign + len(r.cells.mem)/cellSize + 1
	}
	for n := 0; n < limit && freed <= len(r.data); n++ {
		typ, body, recLen, ok, err := r.nextInOrder()
		var to *transport.Inbox
		direct := !all && mine != nil && mine.Direct()
		if err == nil && ok {
			to, err = t.handle(r, typ, body, mine, took && len(body) >= transport.HeaderSize+leaveMin)
		}
		if err == errLeft {
			return got
		}
		if err != nil {
			t.fail(r, err)
			return got
		}
		if !ok {
			return got
		}
		if to == mine && to != nil {
			got = true
		}
		r.release(recLen)
		freed += recLen
		if r.pos-r.headShown >= uint64(min(showEvery, len(r.data)/4)) {
			t.showTaken(r)
		}
		if all {
			if h := testHookConsumed.Load(); h != nil {
				(*h)()
			}
		}
		if direct && to == mine && mine.Direct() {
			took = true // taken straight into a posted receive: nothing was queued
		}
	}
	return got
}

// leaveMin is the least payload a poll leaves in the ring (consume):
// taking a smaller frame into the queue at once costs less than the poll
// that would take it later (docs/transports-shm.md, "Figures").
const leaveMin = 1 << 10

// showEvery is how many bytes of records a consumer takes before it shows
// the producer the room they freed, if its batch goes on (a quarter of a
// smaller ring): a producer that runs ahead finds room in steps of this
// size rather than a record at a time, each a transfer of the consumer's
// cache line.
const showEvery = 1 << 10

// showTaken shows the producer of ring r the records and cells taken and,
// where that freed room while the producer waits for some, wakes it.
// Store then load, as awaitRoom explains.
func (t *Transport) showTaken(r *inRing) {
	if r.publish() && r.roomWait.Load() != 0 {
		t.roomFreed(r)
	}
}

// testHookConsumed, when set (tests only), is called after consume
// releases each record while it empties a ring (all).
var testHookConsumed atomic.Pointer[func()]

// roomFreed wakes the waiter of ring r's producer, which waits for room
// (awaitRoom), once per wait: whoever clears the flag wakes it.
func (t *Transport) roomFreed(r *inRing) {
	if !r.roomWait.CompareAndSwap(1, 0) {
		return
	}
	if pr, err := t.peer(r.from); err == nil {
		wake(pr.seg)
	}
}

// handle acts on one record and returns the inbox it delivered a frame to,
// if any. body lies in the ring: whatever outlives the call is copied.
// With leave, a whole frame for mine that no posted receive takes stays in
// the ring (errLeft).
func (t *Transport) handle(r *inRing, typ byte, body []byte, mine *transport.Inbox, leave bool) (*transport.Inbox, error) {
	switch typ {
	case recPad:
		return nil, nil
	case recFrame, recCell:
		if mine != nil && mine.Direct() {
			return t.handleFrameDirect(r, typ, body, mine, leave)
		}
		return t.handleFrame(r, typ, body)
	case recChunk:
		p := r.partial
		if p == nil {
			return nil, fmt.Errorf("shm: ring from process %d: payload chunk outside a frame", r.from)
		}
		if p.got+len(body) > p.due {
			return nil, fmt.Errorf("shm: ring from process %d: chunk overflows its %d-byte frame", r.from, p.due)
		}
		// A landed payload's buffer may be shorter than the message (the
		// receive truncates): what does not fit is dropped.
		copy(p.f.Payload[min(p.got, len(p.f.Payload)):], body)
		p.got += len(body)
		if p.got < p.due {
			return nil, nil
		}
		r.partial = nil
		p.ib.Deliver(p.f)
		return p.ib, nil
	case recRdv:
		return t.handleRdv(r, body)
	case recLand:
		return t.handleLand(r, body)
	case recLanded:
		return t.handleLanded(r, body)
	case recSplit:
		return t.handleSplit(r, body)
	case recSplitDone:
		return nil, t.handleSplitDone(r, body)
	case recDone:
		return nil, t.handleDone(r, body)
	}
	return nil, fmt.Errorf("shm: ring from process %d: bad record type %d", r.from, typ)
}

// handleDone ends a single-copy send: the peer read the buffer, so the
// frame is released.
func (t *Transport) handleDone(r *inRing, body []byte) error {
	if len(body) != 8 {
		return fmt.Errorf("shm: ring from process %d: completion record of %d bytes", r.from, len(body))
	}
	tok := binary.LittleEndian.Uint64(body)
	f := t.takePending(tok)
	if f == nil {
		return fmt.Errorf("shm: ring from process %d: completion for unknown transfer %d", r.from, tok)
	}
	f.Free()
	t.donesHandled.Add(1) // after the release has woken the sender's rank
	return nil
}

// frameHeader decodes the frame header at the start of body into h and
// finds the inbox it is for.
func (t *Transport) frameHeader(r *inRing, body []byte, h *transport.Header) (*transport.Inbox, error) {
	if err := h.Decode(body); err != nil {
		return nil, fmt.Errorf("shm: ring from process %d: %w", r.from, err)
	}
	return t.frameInbox(r, h)
}

// frameOrCell decodes the header at the start of a frame record's or a
// fastbox cell's body (typ recFrame or recCell) into h and returns the
// inbox it is for and the payload bytes after it.
func (t *Transport) frameOrCell(r *inRing, typ byte, body []byte, h *transport.Header) (*transport.Inbox, []byte, error) {
	if typ == recCell && body[0]&shortKind != 0 {
		data, err := decodeShortHeader(body, h)
		if err != nil {
			return nil, nil, fmt.Errorf("shm: ring from process %d: %w", r.from, err)
		}
		ib, err := t.frameInbox(r, h)
		return ib, data, err
	}
	ib, err := t.frameHeader(r, body, h)
	if err != nil {
		return nil, nil, err
	}
	return ib, body[transport.HeaderSize:], nil
}

// frameInbox finds the inbox a frame whose header h is decoded is for; a
// new frame may not start while the last one's payload is incomplete.
func (t *Transport) frameInbox(r *inRing, h *transport.Header) (*transport.Inbox, error) {
	if r.partial != nil {
		return nil, fmt.Errorf("shm: ring from process %d: new frame before the last one's payload ended", r.from)
	}
	return t.inboxOf(h.Dst)
}

// handleFrame decodes the frame's header straight into the frame it
// delivers (see Header.Decode for why not through a copy).
func (t *Transport) handleFrame(r *inRing, typ byte, body []byte) (*transport.Inbox, error) {
	f := transport.NewFrame()
	ib, data, err := t.frameOrCell(r, typ, body, &f.Header)
	if err != nil {
		f.Free()
		return nil, err
	}
	plen := f.PayloadLen()
	if int64(len(data)) > plen || plen > maxFrame {
		f.Free()
		return nil, fmt.Errorf("shm: ring from process %d: %d payload bytes for a %d-byte frame", r.from, len(data), plen)
	}
	if buf, ok := landing(ib, &f.Header); ok {
		f.Payload = buf[:min(int64(len(buf)), plen)]
	} else {
		f.AllocPayload(int(plen))
	}
	copy(f.Payload, data)
	if n := len(data); int64(n) < plen {
		r.partial = &partialFrame{f: f, ib: ib, got: n, due: int(plen)}
		return nil, nil
	}
	ib.Deliver(f)
	return ib, nil
}

// handleFrameDirect is handleFrame for a record read on the goroutine of
// inbox mine, whose owner takes whole frames for it straight from the ring
// (transport.Inbox.OfferDirect): a small message matching a posted
// receive is copied from the ring into the receive buffer, with no frame
// allocated, queued and freed.
func (t *Transport) handleFrameDirect(r *inRing, typ byte, body []byte, mine *transport.Inbox, leave bool) (*transport.Inbox, error) {
	h := &r.offered // a local would escape to the heap through the offer
	ib, data, err := t.frameOrCell(r, typ, body, h)
	if err != nil {
		return nil, err
	}
	if ib == mine && int64(len(data)) == h.PayloadLen() {
		if mine.OfferDirect(h, data) {
			return mine, nil
		}
		if leave {
			return nil, errLeft
		}
	}
	return t.handleFrame(r, typ, body)
}

// errLeft says a frame was left in its ring (handleFrameDirect).
var errLeft = errors.New("shm: frame left in the ring")

// handleRdv delivers a rendezvous DATA whose payload stays in the sender:
// the receiving engine's ReadPayload reads it with process_vm_readv
// straight into the user's buffer, and freeing the frame sends the
// completion that releases the sender's buffer. If the kernel refuses the
// read, that receive fails, and this process stops advertising the path so
// that later payloads come through the ring.
func (t *Transport) handleRdv(r *inRing, body []byte) (*transport.Inbox, error) {
	var h transport.Header
	var d [3]uint64
	ib, pr, err := t.descriptor(r, body, &h, d[:])
	if err != nil {
		return nil, err
	}
	addr, tok := d[0], d[2]
	pid := int(pr.seg.u32(offPid).Load())
	f := transport.NewFrame()
	f.Header = h
	f.SetFetch(func(dst []byte) (int, error) {
		n, err := cmaRead(pid, uintptr(addr), dst)
		if err != nil {
			if permanentCMAFailure(err) {
				t.own.u32(offCMA).Store(0)
			}
			return n, fmt.Errorf("shm: reading %d bytes from process %d: %w", len(dst), r.from, err)
		}
		return n, nil
	})
	f.Borrow(func() { t.complete(pr, tok) })
	ib.Deliver(f)
	return ib, nil
}

// descriptor decodes a single-copy DATA's record (recRdv, recSplit): the
// frame header into h, then len(words) little-endian words, the first two
// the sender's address and the payload's length, which it checks; it
// returns the inbox the DATA is for and the sending peer.
func (t *Transport) descriptor(r *inRing, body []byte, h *transport.Header, words []uint64) (*transport.Inbox, *peer, error) {
	ib, err := t.frameHeader(r, body, h)
	if err != nil {
		return nil, nil, err
	}
	if len(body) != transport.HeaderSize+8*len(words) {
		return nil, nil, fmt.Errorf("shm: ring from process %d: descriptor of %d bytes", r.from, len(body))
	}
	d := body[transport.HeaderSize:]
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(d[8*i:])
	}
	if addr, size := words[0], words[1]; h.Kind != transport.Data || size != uint64(h.Size) || size == 0 || size > maxFrame || addr == 0 {
		return nil, nil, fmt.Errorf("shm: ring from process %d: bad descriptor (%v, %d bytes at %#x)", r.from, h.Kind, size, addr)
	}
	pr, err := t.peer(r.from)
	if err != nil {
		return nil, nil, err
	}
	return ib, pr, nil
}

// Completions reports how many completion records this transport has owed
// to peers and how many it has handled from them. A completion wakes a rank
// of another process (its send request completes), so the job-wide stall
// detection of virtual runs counts it like a frame: owed before the peer
// can see it, handled after the release it triggers has run.
func (t *Transport) Completions() (owed, handled int64) {
	return t.donesOwed.Load(), t.donesHandled.Load()
}

// complete tells a peer that the receiver is done with its buffer.
func (t *Transport) complete(pr *peer, tok uint64) {
	t.donesOwed.Add(1) // before the peer can handle it
	if !t.closing.Load() {
		t.queueCtrl(pr, recDone, tok)
	}
}
