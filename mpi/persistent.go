package mpi

import (
	"slices"
	"strconv"
)

// Persistent requests (MPI_Send_init, MPI_Ssend_init, MPI_Recv_init,
// MPI_Start, MPI_Startall), and the calls every request has beside Wait and
// Test: Free (MPI_Request_free) and Status (MPI_Request_get_status).
//
// A persistent request is an ordinary *Request that remembers its
// arguments (Request.persist). Start runs the same starting phase as
// Isend / Irecv on the same Request value, so the engine, the waits and
// virtual time see exactly the operation Isend / Irecv would have started,
// and a prediction is the same. Between a completion observed by a wait and
// the next Start the request is inactive: complete, with the empty status,
// so Wait and Test return at once with it, as MPI says, and the Waitany /
// Waitsome / Testany / Testsome family skips it like a null request.

// persistentOp is what Start starts again.
type persistentOp struct {
	send   bool
	sync   bool
	buf    []byte
	peer   int // communicator rank, AnySource or ProcNull
	tag    int
	active bool
}

// SendInit creates a persistent standard-mode send of buf to dest
// (MPI_Send_init). The request is inactive until Start; buf must not be
// modified while it is active.
func SendInit[T Numeric](c *Comm, buf []T, dest, tag int) (*Request, error) {
	c.unrecordable(unrecPersistent) // a record cannot hold it yet (record.go)
	return c.sendInit(asBytes(buf), dest, tag, false)
}

// SsendInit creates a persistent synchronous send (MPI_Ssend_init): each
// start completes only once the receiver has matched it.
func SsendInit[T Numeric](c *Comm, buf []T, dest, tag int) (*Request, error) {
	c.unrecordable(unrecPersistent) // a record cannot hold it yet (record.go)
	return c.sendInit(asBytes(buf), dest, tag, true)
}

// RecvInit creates a persistent receive into buf from source (or
// AnySource) with tag (or AnyTag) (MPI_Recv_init).
func RecvInit[T Numeric](c *Comm, buf []T, source, tag int) (*Request, error) {
	c.unrecordable(unrecPersistent) // a record cannot hold it yet (record.go)
	if err := c.check(); err != nil {
		return nil, err
	}
	if _, err := c.peer(source, true, "source"); err != nil {
		return nil, err
	}
	if err := checkTag(tag, true); err != nil {
		return nil, err
	}
	return c.inactiveRequest(reqRecv, &persistentOp{buf: asBytes(buf), peer: source, tag: tag}), nil
}

func (c *Comm) sendInit(buf []byte, dest, tag int, sync bool) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	// The arguments are checked now, as MPICH does, so that Start fails
	// only for what can change later (an abort).
	if _, err := c.peer(dest, false, "destination"); err != nil {
		return nil, err
	}
	if err := checkTag(tag, false); err != nil {
		return nil, err
	}
	return c.inactiveRequest(reqSend, &persistentOp{send: true, sync: sync, buf: buf, peer: dest, tag: tag}), nil
}

// inactiveRequest is a new persistent request in its inactive state.
func (c *Comm) inactiveRequest(kind reqKind, p *persistentOp) *Request {
	q := &Request{r: c.r, comm: c, kind: kind, persist: p}
	q.status = emptyStatus()
	q.complete()
	return q
}

// Start starts a persistent request (MPI_Start). The request must be
// inactive: new, or its previous start completed and observed by a Wait or
// Test (or their multi-request forms).
func (q *Request) Start() error {
	if err := q.startable(); err != nil {
		return err
	}
	return q.start()
}

// startable reports why q cannot be started, if it cannot.
func (q *Request) startable() error {
	switch {
	case q == nil:
		return errorf(ClassRequest, "Start of a null request")
	case q.freed:
		return errorf(ClassRequest, "Start of a freed request")
	case q.persist == nil:
		return errorf(ClassRequest, "Start of a request that is not persistent")
	case q.persist.active:
		return errorf(ClassRequest, "Start of an active persistent request")
	}
	return q.comm.check()
}

func (q *Request) start() error {
	p, c := q.persist, q.comm
	var err error
	if p.send {
		if c.traceCall(callIsend, p.peer, p.tag) {
			defer c.leave()
		}
		_, err = c.postSendInto(q, p.buf, p.peer, p.tag, p.sync)
	} else {
		if c.traceCall(callIrecv, p.peer, p.tag) {
			defer c.leave()
		}
		_, err = c.postRecvInto(q, p.buf, p.peer, p.tag)
	}
	if err != nil {
		// Nothing started: the request stays inactive, as it was.
		q.status, q.err = emptyStatus(), nil
		q.complete()
		return err
	}
	p.active = true
	return nil
}

// Startall starts every request (MPI_Startall). They are all checked
// first, so that on an error none has started.
func Startall(reqs []*Request) error {
	// Persistent requests serve loops that start them over and over: a
	// few requests are checked for duplicates without allocating.
	var seen map[*Request]bool
	if len(reqs) > 16 {
		seen = make(map[*Request]bool, len(reqs))
	}
	for i, q := range reqs {
		if err := q.startable(); err != nil {
			return &Error{Class: ClassRequest, Msg: "Startall: request " + strconv.Itoa(i), Err: err}
		}
		dup := seen[q]
		if seen == nil {
			dup = slices.Contains(reqs[:i], q)
		} else {
			seen[q] = true
		}
		if dup {
			return errorf(ClassRequest, "Startall: request %d appears twice", i)
		}
	}
	for _, q := range reqs {
		if err := q.start(); err != nil {
			return err
		}
	}
	return nil
}

// deactivate is the end of a persistent request's start, once a wait has
// observed its completion and taken its status (finish).
func (q *Request) deactivate() {
	q.persist.active = false
	q.status, q.err = emptyStatus(), nil
	q.vready, q.acked = 0, false
}

// inactive reports whether q is a persistent request that is not started.
func (q *Request) inactive() bool { return q != nil && q.persist != nil && !q.persist.active }

// activeOnly is reqs with its inactive persistent requests replaced by nil,
// as MPI treats them in Waitany, Waitsome, Testany and Testsome; reqs
// itself (no copy) when it has none.
func activeOnly(reqs []*Request) []*Request {
	for i, q := range reqs {
		if !q.inactive() {
			continue
		}
		out := make([]*Request, len(reqs))
		copy(out, reqs[:i])
		for j := i; j < len(reqs); j++ {
			if !reqs[j].inactive() {
				out[j] = reqs[j]
			}
		}
		return out
	}
	return reqs
}

// Free releases the request (MPI_Request_free). An active request is not
// cancelled: it completes in the background, and its buffer must be left
// alone until the program knows by other means (a reply) that it has. A
// freed request must not be used again; Start, Wait and Test on it return
// a ClassRequest error. Freeing a nil request is an error, as in MPI.
func (q *Request) Free() error {
	if q == nil {
		return errorf(ClassRequest, "Free of a null request")
	}
	if q.freed {
		return errorf(ClassRequest, "Free of a request already freed")
	}
	q.freed = true
	return nil
}

// Status reports whether the request is complete and, if so, its status,
// without freeing it or, for a persistent request, making it inactive: a
// Wait or Test must still follow (MPI_Request_get_status). Like Test it
// progresses communication once without blocking, and in virtual time it
// answers for the caller's time as Test does. A nil or inactive request is
// complete with the empty status.
func (q *Request) Status() (bool, Status, error) {
	if q == nil || q.inactive() {
		return true, emptyStatus(), nil
	}
	if q.freed {
		return false, emptyStatus(), errorf(ClassRequest, "Status of a freed request")
	}
	if q.r.traceTest(callTest) {
		defer q.r.traceLeave()
	}
	reqs := []*Request{q}
	if q.r.virtual {
		if q.r.testVirtual(reqs, func() bool { return known(q) }, func() []int { return []int{0} }) == nil {
			return false, Status{}, nil
		}
	} else {
		if !q.done.Load() {
			q.r.rareState().temporal++
		}
		q.r.waitFor(reqs, q.done.Load, false)
		if !q.done.Load() {
			return false, Status{}, nil
		}
	}
	// The completion hook runs now: the status says the operation's data
	// is in place.
	if h := q.onDone; h != nil {
		q.onDone = nil
		h(q)
	}
	return true, q.status, q.err
}

func errFreed() error { return errorf(ClassRequest, "use of a freed request") }
