package transport

import "sync/atomic"

// The inbox's queue is a multi-producer single-consumer FIFO built for the
// message path: producers push onto a lock-free stack (one
// compare-and-swap), and the consumer takes the whole stack with one swap
// and reverses it into a private list it then pops without any shared
// write. A frame crossing cores therefore costs the stack's one cache line
// and the frame's own lines. There is no ABA hazard because nodes leave
// the stack only all together. Frames link through Frame.next; a frame is
// in at most one queue.
//
// Its two halves are two types, so that the Inbox can keep them a cache
// line apart with fields of its own between them rather than padding
// (a virtual run has a million inboxes).

// mpscStack is the producers' half: the frames pushed, newest first.
type mpscStack struct {
	top atomic.Pointer[Frame]
}

// mpscList is the consumer's half: the frames taken, oldest first.
type mpscList struct {
	local *Frame
	// held says local is not empty, for other goroutines (drained); the
	// consumer stores it only when that changes, once per batch taken.
	held atomic.Bool
}

// cacheLine keeps fields written by different cores on different lines.
const cacheLine = 64

// push appends f. Safe from any goroutine.
func (s *mpscStack) push(f *Frame) {
	for {
		old := s.top.Load()
		f.next = old
		if s.top.CompareAndSwap(old, f) {
			return
		}
	}
}

// pushedEmpty reports whether no frame waits on the stack; any goroutine
// may ask.
func (s *mpscStack) pushedEmpty() bool { return s.top.Load() == nil }

// empty reports whether pop would return nil. Consumer only.
func (l *mpscList) empty(s *mpscStack) bool { return l.local == nil && s.top.Load() == nil }

// drained reports whether no frame waits, pushed or taken; any goroutine
// may ask (a snapshot: a producer may push at any time).
func (l *mpscList) drained(s *mpscStack) bool { return s.top.Load() == nil && !l.held.Load() }

// pop removes the oldest frame, or returns nil. Consumer only.
func (l *mpscList) pop(s *mpscStack) *Frame {
	f := l.local
	if f == nil {
		if s.top.Load() == nil {
			return nil
		}
		// Take everything and reverse it into arrival order.
		for g := s.top.Swap(nil); g != nil; {
			n := g.next
			g.next = f
			f, g = g, n
		}
		if f.next != nil {
			l.held.Store(true)
		}
	}
	l.local = f.next
	if l.local == nil && l.held.Load() {
		l.held.Store(false)
	}
	f.next = nil
	return f
}
