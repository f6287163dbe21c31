package mpi

import (
	"github.com/gompi/gompi/transport"
	"strconv"
)

// waitPhase is the waiting activity A_WT. It takes frames from the inbox in
// arrival order and deals with them until done reports true (or, when block
// is false, until the inbox is empty). Its shape is Algorithm 2 of the
// paper; with the real-mode clock Early is always false, so the early queue
// stays empty and this is exactly Algorithm 1.
//
// Requests being waited for carry waitMark == r.waitEpoch; a frame is
// "related to c" when the operation it belongs to is one of them.
func (r *rank) waitPhase(done func() bool, block bool, reqs []*Request) {
	r.checkAbort()
	clk := r.clock
	clk.Begin(actWT)
	finished := done()
	clk.WaitStart(finished) // line 1 (and line 3)
	if !finished {
		if len(r.early) > 0 { // lines 5-10
			r.drainEarly(func(f *transport.Frame, related bool) bool {
				return related || clk.DueNow(&f.Header)
			})
		}
		for !done() { // lines 11-20
			var f *transport.Frame
			if block {
				f = r.inbox.Next()
			} else {
				f = r.inbox.NextNow() // no park follows to let the transports' goroutines deliver
			}
			if f == nil {
				if r.resolveEarly(block) {
					continue // a stall of Algorithm 2: virtual_stall.go
				}
				if !block {
					break
				}
				r.park(done)
				continue
			}
			r.dispatch(f)
		}
	}
	r.foldReady(reqs)
	if len(r.early) > 0 { // lines 22-27
		r.drainEarly(func(f *transport.Frame, _ bool) bool { return clk.DueInWait(&f.Header) })
	}
	clk.WaitEnd() // line 28 and E_end^WT
}

// foldReady ends the current wait no earlier than the DR copies of the
// completed receives it waits for (eventClock.Ready), once per receive.
func (r *rank) foldReady(reqs []*Request) {
	for _, q := range reqs {
		if q != nil && q.vready != 0 && q.done.Load() {
			r.clock.Ready(q.vready)
			q.vready = 0
		}
	}
}

// earlyMsg is a frame in the early queue: it reached the host before it
// reaches the rank on the target, so dealing with it waits (Algorithm 2).
// Matching does not wait: MPI's non-overtaking order is the order frames
// from one sender reach the host, so a frame is matched when it arrives.
// q is the operation it belongs to, nil while no receive has been posted
// for it (the frame then also sits in the unexpected queue, at its place in
// arrival order, and the receive that matches it later claims it).
type earlyMsg struct {
	f *transport.Frame
	q *Request
}

// dispatch is one step of the loop: lines 13-19 of Algorithm 2.
func (r *rank) dispatch(f *transport.Frame) {
	if r.w.agent != nil {
		r.arrived(f) // job-wide quiescence detection: virtual_quiesce.go
	}
	if f.Kind == transport.Ctrl {
		r.w.control(r, f)
		return
	}
	q, idx := r.requestOf(f)
	if q == nil && (f.Kind == transport.Ack || f.Kind == transport.Data && f.Flags&transport.FlagRendezvous != 0) {
		// An answer to an operation this rank never started: a peer bug
		// or a corrupt frame. Drop it rather than corrupt state.
		r.stats.dropped++
		f.Free()
		return
	}
	related := r.relatedTo(f, q)
	if !related && r.clock.Early(&f.Header) { // never in real mode (nopClock)
		if q == nil {
			r.unexpected = append(r.unexpected, f)
		} else if idx >= 0 {
			r.unpost(q, idx) // claimed: later frames from the sender cannot overtake it
		}
		r.early = append(r.early, earlyMsg{f, q})
		return
	}
	if q == nil {
		if related {
			r.clock.Found(&f.Header)
		}
		r.unexpected = append(r.unexpected, f)
		return
	}
	r.deal(f, q, idx, related)
}

// drainEarly deals with the early-queue frames for which take reports true,
// in queue order, and keeps the rest. A frame no receive has claimed yet
// has now arrived on the target: it simply stays in the unexpected queue.
func (r *rank) drainEarly(take func(f *transport.Frame, related bool) bool) {
	kept := r.early[:0]
	pending := r.early
	r.early = nil
	for _, e := range pending {
		related := e.q != nil && e.q.waitMark == r.waitEpoch || e.q == nil && r.relatedTo(e.f, nil)
		if !take(e.f, related) {
			kept = append(kept, e)
			continue
		}
		if e.q == nil {
			if related {
				r.clock.Found(&e.f.Header)
			}
			continue
		}
		r.deal(e.f, e.q, -1, related)
	}
	for i := len(kept); i < len(pending); i++ {
		pending[i] = earlyMsg{}
	}
	r.early = append(kept, r.early...)
}

// relatedTo reports whether frame f belongs to c, the communication the
// current waiting phase is for: its operation q is being waited on, or it
// is an unmatched message a Probe is looking for.
func (r *rank) relatedTo(f *transport.Frame, q *Request) bool {
	if q != nil {
		return q.waitMark == r.waitEpoch
	}
	return r.probe != nil && (f.Kind == transport.Req || f.Kind == transport.Data && f.Flags&transport.FlagRendezvous == 0) &&
		r.probe.matches(&f.Header)
}

// claimEarly is called when receive q matches frame f of the unexpected
// queue: if f is still early (not yet arrived on the target), q claims it
// and will deal with it in a waiting phase, and claimEarly reports true.
func (r *rank) claimEarly(f *transport.Frame, q *Request) bool {
	for i := range r.early {
		if r.early[i].f == f {
			r.early[i].q = q
			return true
		}
	}
	return false
}

// park blocks until a frame arrives or done may have become true. It
// publishes the user-level call the rank is in for deadlock reports.
func (r *rank) park(done func() bool) {
	r.blockedIn.Store(r.call.packed())
	if !r.virtual {
		r.inbox.Park(func() bool { return done() || r.w.aborted.Load() })
	} else {
		r.parkVirtual(done) // virtual_stall.go
	}
	r.blockedIn.Store(0)
	r.checkAbort()
}

// --- Wait / Test family -------------------------------------------------

func (r *rank) mark(q *Request) {
	if q != nil {
		q.waitMark = r.waitEpoch
	}
}

// waitFor is the waiting phase of every Wait and Test call: it marks reqs
// as the operations waited for and progresses until cond holds (block) or
// once (a test). When cond already holds, a blocking wait still passes
// through the event points of an empty waiting activity, and a test does so
// only to fold a pending DR copy (eventClock.Ready).
func (r *rank) waitFor(reqs []*Request, cond func() bool, block bool) {
	r.clock.EnterEngine() // the engine's own work is not computation (eventClock)
	defer r.clock.LeaveEngine()
	if !cond() {
		r.waitEpoch++
		for _, q := range reqs {
			r.mark(q)
		}
		r.waitPhase(cond, block, reqs)
	} else if block || r.readyPending(reqs) {
		r.emptyWait(reqs)
	}
}

// emptyStatus is what MPI reports for a null request (MPI_REQUEST_NULL):
// source AnySource, tag AnyTag, no bytes, no error. It is not the status of
// a ProcNull receive, whose source is ProcNull.
func emptyStatus() Status { return Status{Source: AnySource, Tag: AnyTag} }

// finish runs a completed request's completion hook once and returns its
// status and error.
func (q *Request) finish() (Status, error) {
	if h := q.onDone; h != nil {
		q.onDone = nil
		h(q)
	}
	return q.status, q.err
}

// Wait blocks until the request completes and returns its status (MPI_Wait).
// A receive's status names the source and tag; its error is the operation's
// (a truncation, say).
func (q *Request) Wait() (Status, error) {
	if q != nil {
		q.r.call = userCall{op: callWait}
	}
	return q.wait()
}

// wait is Wait for the library's own requests: the rank's user-level call
// stays what it is (calls.go).
func (q *Request) wait() (Status, error) {
	if q == nil {
		return emptyStatus(), nil
	}
	q.r.clock.EnterEngine()
	defer q.r.clock.LeaveEngine()
	q.r.waitFor([]*Request{q}, q.done.Load, true)
	return q.finish()
}

// emptyWait is the waiting activity of an operation already complete:
// Algorithm 2 lines 1-3, which still pass through the event points.
func (r *rank) emptyWait(reqs []*Request) {
	r.checkAbort()
	r.clock.Begin(actWT)
	r.clock.WaitStart(true)
	r.foldReady(reqs)
	if len(r.early) > 0 {
		r.drainEarly(func(f *transport.Frame, _ bool) bool { return r.clock.DueInWait(&f.Header) })
	}
	r.clock.WaitEnd()
}

// readyPending reports whether a completed request still has a DR copy to
// fold into a wait: a Test that finds it complete must then still run the
// (empty) waiting activity.
func (r *rank) readyPending(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && q.vready != 0 && q.done.Load() {
			return true
		}
	}
	return false
}

// Test reports whether the request is complete, progressing communication
// once without blocking (MPI_Test).
func (q *Request) Test() (bool, Status, error) {
	if q == nil {
		return true, emptyStatus(), nil
	}
	if !q.done.Load() {
		q.r.stats.temporal++
	}
	q.r.waitFor([]*Request{q}, q.done.Load, false)
	if !q.done.Load() {
		return false, Status{}, nil
	}
	st, err := q.finish()
	return true, st, err
}

// Cancel cancels a receive that has not matched a message yet
// (MPI_Cancel). The request still has to be waited for; its status then has
// Cancelled set. Cancelling a matched or completed receive does nothing, as
// in MPI. Send requests cannot be cancelled (deprecated in MPI 4).
func (q *Request) Cancel() error {
	if q == nil {
		return errorf(ClassRequest, "Cancel of a null request")
	}
	if q.kind == reqSend {
		return errorf(ClassRequest, "cancelling a send request is not supported")
	}
	if q.done.Load() || q.matched || !q.posted {
		return nil
	}
	q.r.unpost(q, -1)
	q.status = Status{Source: ProcNull, Tag: AnyTag, Cancelled: true}
	q.complete()
	return nil
}

// reqOwner returns the rank of the first non-nil request.
func reqOwner(reqs []*Request) *rank {
	for _, q := range reqs {
		if q != nil {
			return q.r
		}
	}
	return nil
}

// Waitall waits for every request (MPI_Waitall). It returns the statuses in
// order; when any operation failed the error is an ErrInStatus error and
// each status's Err says which.
func Waitall(reqs []*Request) ([]Status, error) {
	if r := reqOwner(reqs); r != nil {
		r.call = userCall{op: callWaitall}
	}
	return waitall(reqs)
}

// waitall is Waitall for the library's own requests (see wait).
func waitall(reqs []*Request) ([]Status, error) {
	r := reqOwner(reqs)
	if r != nil {
		r.clock.EnterEngine()
		defer r.clock.LeaveEngine()
		r.waitFor(reqs, func() bool { return allDone(reqs) }, true)
	}
	return collectAll(reqs)
}

func allDone(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && !q.done.Load() {
			return false
		}
	}
	return true
}

// collectAll finishes every (completed) request and gathers the statuses.
func collectAll(reqs []*Request) ([]Status, error) {
	st := make([]Status, len(reqs))
	var failed bool
	for i, q := range reqs {
		if q == nil {
			st[i] = emptyStatus()
			continue
		}
		s, err := q.finish()
		s.Err = err
		st[i] = s
		failed = failed || err != nil
	}
	if failed {
		return st, inStatus(st)
	}
	return st, nil
}

func inStatus(st []Status) error {
	for i, s := range st {
		if s.Err != nil {
			return &Error{Class: ClassInStatus, Msg: "request " + strconv.Itoa(i) + " failed", Err: s.Err}
		}
	}
	return nil
}

// pickDone returns the index of a completed request, scanning from a
// rotating start so that a request that is always ready cannot starve the
// others (Waitany / Testany fairness). -1 if none.
func (r *rank) pickDone(reqs []*Request) int {
	n := len(reqs)
	if n == 0 {
		return -1
	}
	start := r.anyCursor % n
	for k := 0; k < n; k++ {
		i := (start + k) % n
		if q := reqs[i]; q != nil && q.done.Load() {
			r.anyCursor = i + 1
			return i
		}
	}
	return -1
}

// Waitany waits until one of the requests completes and returns its index
// and status (MPI_Waitany). The caller should set that entry to nil before
// waiting again, as MPI sets it to MPI_REQUEST_NULL. With no non-nil
// requests it returns Undefined at once.
func Waitany(reqs []*Request) (int, Status, error) {
	r := reqOwner(reqs)
	if r == nil {
		return Undefined, emptyStatus(), nil
	}
	r.stats.temporal++
	r.call = userCall{op: callWaitany}
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, true)
	i := r.pickDone(reqs)
	st, err := reqs[i].finish()
	return i, st, err
}

func (r *rank) anyDone(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && q.done.Load() {
			return true
		}
	}
	return false
}

// Testany is the nonblocking Waitany: ok is false when none has completed.
func Testany(reqs []*Request) (idx int, ok bool, st Status, err error) {
	r := reqOwner(reqs)
	if r == nil {
		return Undefined, true, emptyStatus(), nil
	}
	r.stats.temporal++
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, false)
	i := r.pickDone(reqs)
	if i < 0 {
		return Undefined, false, Status{}, nil
	}
	st, err = reqs[i].finish()
	return i, true, st, err
}

// Waitsome waits until at least one request completes and returns the
// indices and statuses of all that have (MPI_Waitsome). With no non-nil
// requests it returns nil.
func Waitsome(reqs []*Request) ([]int, []Status, error) {
	r := reqOwner(reqs)
	if r == nil {
		return nil, nil, nil
	}
	r.stats.temporal++
	r.call = userCall{op: callWaitsome}
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, true)
	return collectDone(reqs)
}

// Testsome is the nonblocking Waitsome; it may return no indices.
func Testsome(reqs []*Request) ([]int, []Status, error) {
	r := reqOwner(reqs)
	if r == nil {
		return nil, nil, nil
	}
	r.stats.temporal++
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, false)
	return collectDone(reqs)
}

func collectDone(reqs []*Request) ([]int, []Status, error) {
	var idx []int
	var st []Status
	var failed bool
	for i, q := range reqs {
		if q != nil && q.done.Load() {
			s, err := q.finish()
			s.Err = err
			idx = append(idx, i)
			st = append(st, s)
			failed = failed || err != nil
		}
	}
	if failed {
		return idx, st, inStatus(st)
	}
	return idx, st, nil
}

// Testall reports whether every request has completed, progressing once
// without blocking (MPI_Testall). Statuses are returned only when ok.
func Testall(reqs []*Request) (bool, []Status, error) {
	r := reqOwner(reqs)
	if r == nil {
		st, err := collectAll(reqs) // every entry nil: empty statuses
		return true, st, err
	}
	r.stats.temporal++
	r.waitFor(reqs, func() bool { return allDone(reqs) }, false)
	if !allDone(reqs) {
		return false, nil, nil
	}
	st, err := collectAll(reqs)
	return true, st, err
}
