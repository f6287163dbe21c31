package mpi

import "github.com/gompi/gompi/transport"

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
	r.settled, r.settleGuess = false, false // a poll's answer is open again (virtual_sensitive.go)
	if r.virtual {
		r.forgetSettled()
	}
	clk := r.clock
	clk.Begin(actWT)
	finished := done()
	clk.WaitStart(finished) // line 1 (and line 3)
	var traceStart float64
	if r.trace != nil {
		traceStart = r.traceNow()
		defer r.traceWait(traceStart)
	}
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
				if !r.virtual && done() {
					// A transport completed it from the inbox's poll
					// (transport.Inbox.SetDirect, real mode only): no
					// frame, no park. A virtual rank keeps its steps as
					// they were (pollStep deals early messages).
					break
				}
				if r.virtual && !block { // a poll: virtual_sensitive.go
					if r.pollStep(done) {
						continue
					}
					break
				}
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
	if r.w.countCross {
		r.arrived(&f.Header) // job-wide quiescence detection: virtual_quiesce.go
	}
	if f.Kind == transport.Ctrl {
		r.w.control(r, f)
		return
	}
	q, idx := r.requestOf(&f.Header)
	if q == nil && (f.Kind == transport.Ack || f.Kind == transport.Data && f.Flags&transport.FlagRendezvous != 0) {
		// An answer to an operation this rank never started: a peer bug
		// or a corrupt frame. Drop it rather than corrupt state.
		r.stats.dropped++
		f.Free()
		return
	}
	related := r.relatedTo(f, q)
	if !related && r.clock.Early(&f.Header) { // never in real mode (nopClock)
		if f.Borrowed() {
			// Held until the rank's clock reaches it: the sender must not
			// wait for that on the host, or a wait of its that is over in
			// virtual time would end only when this rank moves on, after
			// events later than its end (the bound of virtual_sensitive.go).
			_ = f.Own() // a failed read leaves it borrowed, and the job is failing
		}
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
	return r.probe != nil && !r.probe.deferred && (f.Kind == transport.Req || f.Kind == transport.Data && f.Flags&transport.FlagRendezvous == 0) &&
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

func (r *rank) mark(q *Request) {
	if q != nil {
		q.waitMark = r.waitEpoch
	}
}

// waitFor is the waiting phase of every Wait call, and of the Test calls
// in real mode (virtual_waitany.go has them in virtual time): it marks reqs
// as the operations waited for and progresses until cond holds (block) or
// once (a test). When cond already holds, a blocking wait still passes
// through the event points of an empty waiting activity, and a test does so
// only to fold a pending DR copy (eventClock.Ready).
func (r *rank) waitFor(reqs []*Request, cond func() bool, block bool) {
	if len(r.nbc.active) > 0 && !r.nbc.progressing {
		r.waitProgress(reqs, cond, block) // every wait progresses the nonblocking collectives (nbc_progress.go)
		return
	}
	r.waitOnly(reqs, cond, block)
}

// waitOnly is waitFor without the nonblocking collectives' progress. It
// is a function of its own so that the progress, which waits through it,
// does not make waitFor recursive: Go's escape analysis would then move
// every caller's cond closure (and the requests it captures) to the heap,
// an allocation per wait.
func (r *rank) waitOnly(reqs []*Request, cond func() bool, block bool) {
	if r.quick() {
		r.waitReal(cond, block) // p2p_small.go
		return
	}
	r.clock.EnterEngine() // the engine's own work is not computation (eventClock)
	defer r.clock.LeaveEngine()
	reqs = withParts(reqs) // a composite is waited for as its parts (isendrecv.go)
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
