package transport

import "strconv"

// Transport delivers frames to the inboxes of the ranks it reaches. Send must
// preserve the order of frames from one sender to one receiver, must not block
// indefinitely on a slow receiver's MPI progress (it may block on flow control
// of the medium), and takes ownership of f as described on Frame.
type Transport interface {
	Send(f *Frame) error
	Close() error
}

// SendCopier is an optional extension of Transport. CopiesOnSend(dst)
// reports that Send, given a Data frame for world rank dst whose payload
// is neither borrowed (Frame.Borrow) nor left behind (Frame.SetFetch),
// has copied that payload by the time it returns (into a ring of shared
// memory, say) and keeps no reference to it after: the caller may reuse
// the memory at once, whether Send succeeded or not. A sending engine then
// lends such a transport its user's buffer instead of a copy of it, and
// an eager send costs one copy less.
type SendCopier interface {
	CopiesOnSend(dst int) bool
}

// SmallSender is an optional extension of Transport: the shortest path of
// a small eager message, for an engine's blocking send. SendSmall sends an
// eager DATA with header h (Kind Data, Size len(p)) and payload p as Send
// would a Frame holding them, but without one: it copies h and p before
// it returns and keeps neither (h is a pointer so that a header the
// caller fills in place is not copied again on the way). It reports
// whether it sent; false with a nil error means only that this route
// cannot take the message that way now (the destination is in this
// process or reached otherwise, the payload is too long, earlier frames
// are still on their way), and the caller sends a Frame instead, in
// order behind everything SendSmall sent.
type SmallSender interface {
	SendSmall(h *Header, p []byte) (sent bool, err error)
	// SmallMax is the longest payload SendSmall may take: a caller
	// need not ask with a longer one.
	SmallMax() int
}

// Table routes each frame by destination world rank to the transport chosen
// for that pair. It is itself a Transport.
type Table struct {
	// Routes[r] carries frames to world rank r; nil means unreachable.
	Routes []Transport
}

// Send implements Transport.
func (t *Table) Send(f *Frame) error {
	d := int(f.Dst)
	if d < 0 || d >= len(t.Routes) || t.Routes[d] == nil {
		return &UnreachableError{Dst: d}
	}
	return t.Routes[d].Send(f)
}

// CopiesOnSend implements SendCopier: whether the route to dst does.
func (t *Table) CopiesOnSend(dst int) bool {
	if dst < 0 || dst >= len(t.Routes) {
		return false
	}
	c, ok := t.Routes[dst].(SendCopier)
	return ok && c.CopiesOnSend(dst)
}

// Close closes every distinct transport in the table once.
func (t *Table) Close() error {
	seen := map[Transport]bool{}
	var first error
	for _, tr := range t.Routes {
		if tr == nil || seen[tr] {
			continue
		}
		seen[tr] = true
		if err := tr.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// UnreachableError is returned for a destination no transport reaches.
type UnreachableError struct{ Dst int }

func (e *UnreachableError) Error() string {
	return "transport: no route to rank " + strconv.Itoa(e.Dst)
}
