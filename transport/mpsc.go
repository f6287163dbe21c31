package transport

import "sync/atomic"

// mpsc is Vyukov's intrusive multi-producer single-consumer queue: a push is
// one atomic swap, a pop touches only the consumer's own pointer unless the
// queue is nearly empty, so delivering a frame to another core costs about
// one cache-line transfer. Frames link through Frame.next; a frame is in at
// most one queue at a time.
type mpsc struct {
	head atomic.Pointer[Frame] // consumer side; atomic only so observers may read it
	_    [cacheLine - 8]byte
	tail atomic.Pointer[Frame] // last pushed; producers swap it
	_    [cacheLine - 8]byte
	stub Frame
}

// cacheLine keeps fields written by different cores on different lines.
const cacheLine = 64

func (q *mpsc) init() {
	q.head.Store(&q.stub)
	q.tail.Store(&q.stub)
}

// push appends f. Safe from any goroutine.
func (q *mpsc) push(f *Frame) {
	f.next.Store(nil)
	prev := q.tail.Swap(f)
	prev.next.Store(f)
}

// empty reports whether nothing has been pushed that pop has not returned.
// A push that has swapped the tail counts as present even before it is
// linked, which is what the sleep protocol needs.
func (q *mpsc) empty() bool {
	return q.head.Load() == &q.stub && q.tail.Load() == &q.stub
}

// pop removes the first frame. It returns nil when the queue is empty, or
// when a producer is between its swap and its link (the frame shows up on a
// later pop). Consumer only.
func (q *mpsc) pop() *Frame {
	head := q.head.Load()
	next := head.next.Load()
	if head == &q.stub {
		if next == nil {
			return nil
		}
		q.head.Store(next)
		head = next
		next = next.next.Load()
	}
	if next != nil {
		q.head.Store(next)
		head.next.Store(nil)
		return head
	}
	if head != q.tail.Load() {
		return nil // a push is in progress behind head
	}
	q.push(&q.stub)
	next = head.next.Load()
	if next != nil {
		q.head.Store(next)
		head.next.Store(nil)
		return head
	}
	return nil
}
