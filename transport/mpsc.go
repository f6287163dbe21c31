package transport

import "sync/atomic"

// mpsc is a multi-producer single-consumer FIFO built for the message path:
// producers push onto a lock-free stack (one compare-and-swap), and the
// consumer takes the whole stack with one swap and reverses it into a
// private list it then pops without any shared write. A frame crossing
// cores therefore costs the stack's one cache line and the frame's own
// lines. There is no ABA hazard because nodes leave the stack only all
// together. Frames link through Frame.next; a frame is in at most one queue.
type mpsc struct {
	top   atomic.Pointer[Frame] // pushed frames, newest first
	_     [cacheLine - 8]byte
	local *Frame // consumer only: taken frames, oldest first
	// held says local is not empty, for other goroutines (drained); the
	// consumer stores it only when that changes, once per batch taken.
	held atomic.Bool
}

// cacheLine keeps fields written by different cores on different lines.
const cacheLine = 64

func (q *mpsc) init() {}

// push appends f. Safe from any goroutine.
func (q *mpsc) push(f *Frame) {
	for {
		old := q.top.Load()
		f.next = old
		if q.top.CompareAndSwap(old, f) {
			return
		}
	}
}

// empty reports whether pop would return nil. Consumer only.
func (q *mpsc) empty() bool { return q.local == nil && q.top.Load() == nil }

// drained reports whether no frame waits, pushed or taken; any goroutine
// may ask (a snapshot: a producer may push at any time).
func (q *mpsc) drained() bool { return q.top.Load() == nil && !q.held.Load() }

// pushedEmpty reports whether no frame waits on the shared stack; any
// goroutine may ask.
func (q *mpsc) pushedEmpty() bool { return q.top.Load() == nil }

// pop removes the oldest frame, or returns nil. Consumer only.
func (q *mpsc) pop() *Frame {
	f := q.local
	if f == nil {
		if q.top.Load() == nil {
			return nil
		}
		// Take everything and reverse it into arrival order.
		for g := q.top.Swap(nil); g != nil; {
			n := g.next
			g.next = f
			f, g = g, n
		}
		if f.next != nil {
			q.held.Store(true)
		}
	}
	q.local = f.next
	if q.local == nil && q.held.Load() {
		q.held.Store(false)
	}
	f.next = nil
	return f
}
