package mpi

import "github.com/gompi/gompi/transport"

// The typed point-to-point API. Buffers are slices of any Numeric type and
// travel as their bytes; counts are element counts of the slice given.

// peer validates a destination or source rank of c and returns its world
// rank (or ProcNull / AnySource unchanged).
func (c *Comm) peer(p int, anyOK bool, what string) (int, error) {
	switch {
	case p == ProcNull:
		return ProcNull, nil
	case p == AnySource && anyOK:
		return AnySource, nil
	case p < 0 || p >= c.group.n:
		return 0, errorf(ClassRank, "%s rank %d out of range [0,%d)", what, p, c.group.n)
	}
	return c.group.worldRank(p), nil
}

func checkTag(tag int, anyOK bool) error {
	if tag == AnyTag && anyOK {
		return nil
	}
	if tag < 0 || tag > TagUB {
		return errorf(ClassTag, "tag %d out of range [0,%d]", tag, TagUB)
	}
	return nil
}

func (c *Comm) postSend(buf []byte, dest, tag int, sync bool) (*Request, error) {
	return c.postSendInto(nil, buf, dest, tag, sync)
}

// postSendInto starts a send using q, or a new request when q is nil.
func (c *Comm) postSendInto(q *Request, buf []byte, dest, tag int, sync bool) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.r.checkAbort()
	d, err := c.peer(dest, false, "destination")
	if err != nil {
		return nil, err
	}
	if err := checkTag(tag, false); err != nil {
		return nil, err
	}
	if q == nil {
		q = new(Request)
	}
	return c.r.startSend(q, c, buf, d, tag, c.ctx, sync), nil
}

func (c *Comm) postRecv(buf []byte, source, tag int) (*Request, error) {
	return c.postRecvInto(nil, buf, source, tag)
}

// postRecvInto starts a receive using q, or a new request when q is nil.
func (c *Comm) postRecvInto(q *Request, buf []byte, source, tag int) (*Request, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.r.checkAbort()
	s, err := c.peer(source, true, "source")
	if err != nil {
		return nil, err
	}
	if err := checkTag(tag, true); err != nil {
		return nil, err
	}
	// Only AnySource makes a receive temporally sensitive. Messages from
	// one source match in the order they were sent (MPI's non-overtaking
	// rule), whatever their tags and arrival times, and every transport
	// delivers one sender's frames in that order: AnyTag from a named
	// source has one answer, the same on the host as on the target.
	if s == AnySource {
		c.r.rareState().temporal++
	}
	if q == nil {
		q = new(Request)
	}
	return c.r.startRecv(q, c, buf, s, tag, c.ctx), nil
}

// Isend starts a standard-mode send of buf to rank dest (MPI_Isend). buf
// must not be modified until the request completes.
func Isend[T Numeric](c *Comm, buf []T, dest, tag int) (*Request, error) {
	if c.traceCall(callIsend, dest, tag) {
		defer c.leave()
	}
	noteBytes(c, buf)
	q, err := c.postSend(asBytes(buf), dest, tag, false)
	c.noteReq(q, false)
	return q, err
}

// Issend starts a synchronous send: it completes only once the receiver has
// matched it (MPI_Issend).
func Issend[T Numeric](c *Comm, buf []T, dest, tag int) (*Request, error) {
	if c.traceCall(callIssend, dest, tag) {
		defer c.leave()
	}
	noteBytes(c, buf)
	q, err := c.postSend(asBytes(buf), dest, tag, true)
	c.noteReq(q, false)
	return q, err
}

// Irecv starts a receive into buf from rank source (or AnySource) with tag
// (or AnyTag) (MPI_Irecv).
func Irecv[T Numeric](c *Comm, buf []T, source, tag int) (*Request, error) {
	if c.traceCall(callIrecv, source, tag) {
		defer c.leave()
	}
	noteBytes(c, buf)
	q, err := c.postRecv(asBytes(buf), source, tag)
	c.noteReq(q, source == AnySource)
	return q, err
}

// blockRequest is the request the rank's blocking Send and Recv reuse, or
// nil (a new one) for a zero Comm, which the post refuses. It is allocated
// at the first: a rank that only makes collectives does without it (a
// request is 256 bytes, and a virtual run may host a million ranks).
func (c *Comm) blockRequest() *Request {
	if c.r == nil {
		return nil
	}
	return c.r.blockRequest()
}

// blockRequest is the rank's request for its blocking Send and Recv.
func (r *rank) blockRequest() *Request {
	if r.blockReq == nil {
		r.blockReq = new(Request)
	}
	return r.blockReq
}

// Send sends buf to rank dest (MPI_Send). Small messages return at once
// (eager); large ones once the receiver has taken the data (rendezvous).
func Send[T Numeric](c *Comm, buf []T, dest, tag int) error {
	if c == nil {
		return errorf(ClassComm, "null communicator")
	}
	c.enter(callSend, dest, tag)
	if sent, err := c.sendSmall(asBytes(buf), dest, tag); sent {
		return err // p2p_small.go: nothing to leave, note or bracket in real mode
	}
	defer c.leave()
	noteBytes(c, buf)
	c.enterEngine() // one bracket for the whole call: no burst between its pieces
	defer c.leaveEngine()
	q, err := c.postSendInto(c.blockRequest(), asBytes(buf), dest, tag, false)
	if err != nil {
		return err
	}
	_, err = q.wait()
	return err
}

// Ssend sends buf and returns only once the receiver has matched it
// (MPI_Ssend).
func Ssend[T Numeric](c *Comm, buf []T, dest, tag int) error {
	c.enter(callSsend, dest, tag)
	defer c.leave()
	noteBytes(c, buf)
	c.enterEngine() // one bracket for the whole call: no burst between its pieces
	defer c.leaveEngine()
	q, err := c.postSend(asBytes(buf), dest, tag, true)
	if err != nil {
		return err
	}
	_, err = q.wait()
	return err
}

// Recv receives into buf (MPI_Recv). A message longer than buf fills buf
// and returns an ErrTruncate error; the status says what arrived.
func Recv[T Numeric](c *Comm, buf []T, source, tag int) (Status, error) {
	if c == nil {
		return Status{}, errorf(ClassComm, "null communicator")
	}
	c.enter(callRecv, source, tag)
	if r := c.r; r != nil && r.quick() && len(r.nbc.active) == 0 {
		// Nothing to leave, note or bracket (p2p_small.go).
		q, err := c.postRecvInto(r.blockRequest(), asBytes(buf), source, tag)
		if err != nil {
			return Status{}, err
		}
		r.waitReal(q.done.Load, true)
		return q.finish()
	}
	defer c.leave()
	c.enterEngine() // one bracket for the whole call: no burst between its pieces
	defer c.leaveEngine()
	noteBytes(c, buf)
	q, err := c.postRecvInto(c.blockRequest(), asBytes(buf), source, tag)
	if err != nil {
		return Status{}, err
	}
	st, err := q.wait()
	c.noteStatus(st)
	return st, err
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source in
// one call, without deadlock whatever the peers do (MPI_Sendrecv).
func Sendrecv[T, U Numeric](c *Comm, sendbuf []T, dest, sendtag int, recvbuf []U, source, recvtag int) (rst Status, rerr error) {
	c.enter(callSendrecv, dest, source)
	defer c.leave()
	if rc := c.recording(); rc != nil {
		rc.note(int64(sendtag))
		rc.noteSize(int64(len(sendbuf) * sizeOf[T]()))
		rc.note(int64(recvtag))
		rc.noteSize(int64(len(recvbuf) * sizeOf[U]()))
		defer func() { c.noteStatus(rst) }()
	}
	c.enterEngine() // one bracket for the whole call: no burst between its pieces
	defer c.leaveEngine()
	// Both requests end before the call returns: the rank's spare ones,
	// as a blocking collective's exchange uses (coll.go), not two new.
	var rq, sq *Request // nil: new ones (spareReqs has none inside a schedule)
	if spare := c.spareReqs(2); spare != nil {
		rq, sq = &spare[0], &spare[1]
	}
	rq, err := c.postRecvInto(rq, asBytes(recvbuf), source, recvtag)
	if err != nil {
		return Status{}, err
	}
	if sent, serr := c.sendSmall(asBytes(sendbuf), dest, sendtag); sent { // p2p_small.go
		rst, rerr = rq.wait()
		rst.Err = rerr
		if rerr == nil {
			rerr = serr
		}
		return rst, rerr
	}
	sq, err = c.postSendInto(sq, asBytes(sendbuf), dest, sendtag, false)
	if err != nil {
		_ = rq.Cancel()
		_, _ = rq.wait()
		return Status{}, err
	}
	reqs := [2]*Request{rq, sq}
	waitOn(reqs[:])
	rst, rerr = rq.finish()
	rst.Err = rerr
	if _, serr := sq.finish(); rerr == nil {
		rerr = serr
	}
	return rst, rerr
}

// SendrecvReplace sends buf to dest and replaces its contents with the
// message received from source (MPI_Sendrecv_replace).
func SendrecvReplace[T Numeric](c *Comm, buf []T, dest, sendtag, source, recvtag int) (Status, error) {
	tmp := make([]T, len(buf))
	copy(tmp, buf)
	st, err := Sendrecv(c, tmp, dest, sendtag, buf, source, recvtag)
	return st, err
}

// Probe blocks until a message from source with tag can be received and
// returns its status without receiving it (MPI_Probe). Status.Bytes is the
// message size.
func (c *Comm) Probe(source, tag int) (Status, error) {
	if err := c.check(); err != nil {
		return Status{}, err
	}
	s, err := c.peer(source, true, "source")
	if err != nil {
		return Status{}, err
	}
	if err := checkTag(tag, true); err != nil {
		return Status{}, err
	}
	if s == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	if s == AnySource { // as a receive (postRecv)
		c.r.rareState().temporal++
	}
	c.enter(callProbe, source, tag)
	defer c.leave()
	st, err := c.probeCtx(s, tag, c.ctx, true)
	c.noteStatus(st)
	return st, err
}

// Iprobe reports whether a message from source with tag can be received
// now, and its status if so (MPI_Iprobe).
func (c *Comm) Iprobe(source, tag int) (bool, Status, error) {
	if err := c.check(); err != nil {
		return false, Status{}, err
	}
	c.r.call = userCall{op: callIprobe, a: int32(source), b: int32(tag)} // a poll may park (deadlock reports name the call)
	if c.traceCall(callIprobe, source, tag) {
		defer c.leave()
	}
	s, err := c.peer(source, true, "source")
	if err != nil {
		return false, Status{}, err
	}
	if err := checkTag(tag, true); err != nil {
		return false, Status{}, err
	}
	if s == ProcNull {
		return true, Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	c.r.rareState().temporal++
	st, err := c.probeCtx(s, tag, c.ctx, false)
	c.noteStatus(st)
	if err != nil {
		return false, st, err
	}
	return st.Source != ProcNull, st, nil
}

// probeCtx looks for an unexpected message matching (world source, tag) on
// context ctx, progressing until one arrives (block) or the inbox is empty.
// Without a match it returns Source ProcNull.
func (c *Comm) probeCtx(src, tag int, ctx uint32, block bool) (Status, error) {
	if f := c.probeFrame(src, tag, ctx, block, false); f != nil {
		return Status{Source: c.rankOfWorld(int(f.Src)), Tag: int(f.Tag), Bytes: int(f.Size)}, nil
	}
	return Status{Source: ProcNull, Tag: AnyTag}, nil
}

// probeFrame is probeCtx's search: the unexpected frame found, which stays
// in the unexpected queue, or nil. A matched probe (taking) does not see
// the frames a deferred receive may still take (withheld).
func (c *Comm) probeFrame(src, tag int, ctx uint32, block, taking bool) *transport.Frame {
	r := c.r
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	pattern := &Request{ctx: ctx, peer: int32(src), tag: int32(tag)}
	if block && r.defers(pattern) { // decided in virtual time: virtual_sensitive.go
		pattern.deferred = true
		r.deferrals++
	}
	var hit *transport.Frame
	found := func() bool {
		if pattern.deferred {
			return false
		}
		if r.rare != nil && r.rare.probeHit != nil {
			hit = r.rare.probeHit
			return true
		}
		for _, f := range r.unexpected {
			if pattern.matches(&f.Header) && !(taking && r.withheld(f)) {
				hit = f
				return true
			}
		}
		return false
	}
	if !block {
		r.pollProgress() // nonblocking collectives progress in polls too (nbc_progress.go)
	}
	if !block && r.virtual {
		return r.iprobeVirtual(pattern, taking)
	}
	r.waitEpoch++
	r.probe = pattern // a matching message is related to this wait (never early)
	if block && len(r.nbc.active) > 0 && !r.nbc.progressing {
		r.probeProgress(found) // nonblocking collectives progress meanwhile (nbc_progress.go)
	} else {
		r.waitPhase(found, block, nil)
	}
	ok := found()
	r.probe = nil
	if r.rare != nil {
		r.rare.probeHit = nil
	}
	if !ok {
		return nil
	}
	return hit
}

// enterEngine and leaveEngine bracket the engine's own work in a call on c
// for the virtual clock (eventClock.EnterEngine; nil-safe, a no-op in real
// mode). Data work a collective does between its point-to-point pieces
// (local copies, reductions) stays outside them: the target's MPI does it
// too, so it is measured as computation.
func (c *Comm) enterEngine() {
	if c != nil && c.r != nil {
		c.r.clock.EnterEngine()
	}
}

func (c *Comm) leaveEngine() {
	if c != nil && c.r != nil {
		c.r.clock.LeaveEngine()
	}
}
