package mpi

import "github.com/gompi/gompi/transport"

// Matched probe (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv).
//
// A matched probe finds a message as Probe does and takes it off the
// unexpected queue at once, into a *Message: no receive posted afterwards,
// by this goroutine or another sharing the communicator, can match it, and
// Mrecv receives exactly it. The probe is Probe / Iprobe itself
// (probeFrame), so in virtual time an AnySource Mprobe waits for the
// target's answer exactly as Probe does (virtual_sensitive.go), and an
// Improbe answers for the caller's time as Iprobe does. The receive is the
// starting phase a receive would have run on finding that frame in the
// unexpected queue (startMatched): DR for eager data, AS for a rendezvous
// REQ, whose DATA then comes back to this very request.

// Message is a message taken by a matched probe, to be received with Mrecv
// or Imrecv by the rank that probed it (MPI_Message). A nil *Message is
// MPI_MESSAGE_NULL. A probe from ProcNull returns the no-process message
// (MPI_MESSAGE_NO_PROC), which receives nothing at once.
type Message struct {
	c        *Comm
	f        *transport.Frame // nil for the no-process message
	received bool
}

// noProcMessage is MPI_MESSAGE_NO_PROC, with the status MPI gives a probe
// of ProcNull.
func noProcMessage(c *Comm) (*Message, Status) {
	return &Message{c: c}, Status{Source: ProcNull, Tag: AnyTag}
}

// Mprobe blocks until a message from source (or AnySource) with tag (or
// AnyTag) can be received, and takes it (MPI_Mprobe): it returns the
// message, to be received with Mrecv or Imrecv, and its status
// (Status.Bytes is its size).
func (c *Comm) Mprobe(source, tag int) (*Message, Status, error) {
	c.unrecordable(unrecMprobe) // a record cannot hold it yet (record.go)
	s, err := c.probeArgs(source, tag)
	if err != nil {
		return nil, Status{}, err
	}
	if s == ProcNull {
		m, st := noProcMessage(c)
		return m, st, nil
	}
	if s == AnySource { // as Probe
		c.r.rareState().temporal++
	}
	c.enter(callProbe, source, tag)
	defer c.leave()
	return c.take(c.probeFrame(s, tag, c.ctx, true, true))
}

// Improbe is the nonblocking Mprobe (MPI_Improbe): ok is false, and the
// message nil, when no matching message can be received now.
func (c *Comm) Improbe(source, tag int) (ok bool, m *Message, st Status, err error) {
	c.unrecordable(unrecMprobe) // a record cannot hold it yet (record.go)
	s, err := c.probeArgs(source, tag)
	if err != nil {
		return false, nil, Status{}, err
	}
	if c.traceCall(callIprobe, source, tag) {
		defer c.leave()
	}
	if s == ProcNull {
		m, st := noProcMessage(c)
		return true, m, st, nil
	}
	c.r.rareState().temporal++
	f := c.probeFrame(s, tag, c.ctx, false, true)
	if f == nil {
		return false, nil, Status{}, nil
	}
	m, st, err = c.take(f)
	return true, m, st, err
}

// probeArgs checks a probe's arguments and returns the world source.
func (c *Comm) probeArgs(source, tag int) (int, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	s, err := c.peer(source, true, "source")
	if err != nil {
		return 0, err
	}
	return s, checkTag(tag, true)
}

// take removes probed frame f from the unexpected queue into a Message.
// The probe has seen it arrive on the target by its end, so it leaves the
// early queue too if it is there: the receive deals with it at once, as a
// receive after a Probe does.
func (c *Comm) take(f *transport.Frame) (*Message, Status, error) {
	r := c.r
	if f == nil {
		return nil, Status{}, errorf(ClassIntern, "matched probe found no message")
	}
	for i, g := range r.unexpected {
		if g == f {
			r.unexpected = removeFrame(r.unexpected, i)
			break
		}
	}
	r.dropEarly(f)
	st := Status{Source: c.rankOfWorld(int(f.Src)), Tag: int(f.Tag), Bytes: int(f.Size)}
	return &Message{c: c, f: f}, st, nil
}

// Mrecv receives message m, taken by Mprobe or Improbe, into buf
// (MPI_Mrecv). The message is then used up. A message longer than buf
// fills buf and returns an ErrTruncate error, as Recv does.
func Mrecv[T Numeric](m *Message, buf []T) (Status, error) {
	if err := m.check(); err != nil {
		return Status{}, err
	}
	c := m.c
	c.enter(callRecv, m.source(), int(m.tag()))
	defer c.leave()
	c.enterEngine() // one bracket for the whole call, as Recv
	defer c.leaveEngine()
	return m.start(asBytes(buf)).wait()
}

// Imrecv starts the receive of message m into buf (MPI_Imrecv).
func Imrecv[T Numeric](m *Message, buf []T) (*Request, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if m.c.traceCall(callIrecv, m.source(), int(m.tag())) {
		defer m.c.leave()
	}
	return m.start(asBytes(buf)), nil
}

func (m *Message) check() error {
	switch {
	case m == nil:
		return errorf(ClassRequest, "receive of the null message")
	case m.received:
		return errorf(ClassRequest, "message already received")
	}
	if err := m.c.check(); err != nil {
		return err
	}
	m.c.r.checkAbort()
	return nil
}

// source is the sender's rank in the message's communicator.
func (m *Message) source() int {
	if m.f == nil {
		return ProcNull
	}
	return m.c.rankOfWorld(int(m.f.Src))
}

func (m *Message) tag() int32 {
	if m.f == nil {
		return AnyTag
	}
	return m.f.Tag
}

// start runs the receive's starting phase on m's frame and uses m up.
func (m *Message) start(buf []byte) *Request {
	m.received = true
	c, r, q := m.c, m.c.r, new(Request)
	if m.f == nil { // the no-process message
		q.reset(r, c, reqRecv, buf, c.ctx, ProcNull, AnyTag, false)
		q.status = Status{Source: ProcNull, Tag: AnyTag}
		q.complete()
		return q
	}
	f := m.f
	m.f = nil
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	q.reset(r, c, reqRecv, buf, f.Context, f.Src, f.Tag, false)
	r.nextID++
	q.id = r.nextID
	r.startMatched(q, f)
	return q
}
