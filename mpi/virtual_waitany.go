package mpi

import "math"

// Waitany, Waitsome and the Test family in virtual time (issue: temporally
// sensitive calls answered as on the target).
//
// On the target, each request completes at a model time: an eager send
// when its starting phase ends, a rendezvous send when its DATA has left
// (t_r, once the ACK is dealt with), a receive when its DATA is copied into
// the user buffer. Waitany returns the request that completes first,
// counting every request already complete when the call begins as
// completing at its start t_V; of requests completing at the same time it
// returns the lowest index, as MPICH does (it scans from index 0). Waitsome
// returns every request complete by that same time. On the host the
// requests complete in host order, so the choice cannot be read off the
// done flags: it is made like a deferred AnySource receive
// (virtual_sensitive.go).
//
// A Waitany waits for none of its requests in Algorithm 2's sense (none is
// related to it): the messages for them are dealt with when due, and each
// operation's completion time is kept on its request (Request.vready;
// eventClock.Deal). The earliest known completion among the requests is a
// pending event of the rank, published while it parks beside its earliest
// early message, and the early messages of its requests count among those
// (earliestEarly). When every rank of the job is parked and that time is
// the job's earliest pending event, nothing still to come can complete a
// request earlier: the choice is final. The call then waits for the chosen
// requests as Wait does (their wait ends no earlier than their completion
// times, and a rendezvous send's buffer is back on the host). A choice is
// final at once, with no round, when the lowest-index request is complete
// at the call's start (Waitany), or every request is (Waitsome).
//
// The Test family answers for the caller's time t_V as the polls of
// virtual_sensitive.go do: a request is complete at t_V when the message
// that completes it has been dealt with by then (a rendezvous send's ACK,
// a receive's DATA), and the poll then lasts until the operation's own
// completion, as a wait would. Testany chooses as Waitany does among those.

// pickState is a Waitany or Waitsome in progress (rank.pick).
type pickState struct {
	reqs   []*Request
	some   bool    // Waitsome: every request complete by the first completion
	start  float64 // t_V when the call began
	chosen []int   // the indices chosen, nil until decided
}

// known reports whether request q's completion time on the target is
// known: it is complete on the host, or it is a rendezvous send whose ACK
// has been dealt with (its buffer may still be lent to the receiver).
// A composite (isendrecv.go) is known when its parts are.
func known(q *Request) bool {
	if q.parts != nil {
		for _, p := range q.parts {
			if !known(p) {
				return false
			}
		}
		return true
	}
	return q.done.Load() || q.acked
}

// completionAt is q's completion time for a choice made at start: its
// model completion time, or start if that is earlier (complete before the
// call began). q must be known.
// A composite's is its last part's.
func completionAt(q *Request, start float64) float64 {
	t := max(q.vready, start)
	for _, p := range q.parts {
		t = max(t, completionAt(p, start))
	}
	return t
}

// firstDone returns the indices of the requests the target completes
// first, as of what is known: with some false the one with the earliest
// completion (lowest index on ties), with some true every one complete by
// then; and that time. It returns nil and +Inf when none is known.
func firstDone(reqs []*Request, start float64, some bool) ([]int, float64) {
	best, at := -1, math.Inf(1)
	for i, q := range reqs {
		if q == nil || !known(q) {
			continue
		}
		if c := completionAt(q, start); c < at {
			best, at = i, c
		}
	}
	if best < 0 {
		return nil, at
	}
	if !some {
		return []int{best}, at
	}
	var idx []int
	for i, q := range reqs {
		if q != nil && known(q) && completionAt(q, start) <= at {
			idx = append(idx, i)
		}
	}
	return idx, at
}

// finalNow reports the choice that is final without waiting for the job:
// for Waitany, the lowest-index request complete at the start (no other can
// complete earlier, and ties go to the lowest index); for Waitsome, every
// request complete at the start.
func (p *pickState) finalNow() []int {
	for i, q := range p.reqs {
		if q == nil {
			continue
		}
		if !known(q) || completionAt(q, p.start) > p.start {
			return nil
		}
		if !p.some {
			return []int{i}
		}
	}
	idx, _ := firstDone(p.reqs, p.start, true)
	return idx
}

// picking is the rank's pick in progress, nil when none.
func (r *rank) picking() *pickState {
	if r.rare == nil {
		return nil
	}
	return r.rare.pick
}

// member reports whether q is one of the requests of the rank's pick in
// progress.
func (r *rank) member(q *Request) bool {
	return r.picking() != nil && q != nil && q.pickMark == r.waitEpoch
}

// pickTime is the time of the rank's pending choice: its pick's earliest
// known completion (+Inf when there is no pick or nothing is known).
func (r *rank) pickTime() float64 {
	p := r.picking()
	if p == nil || p.chosen != nil {
		return math.Inf(1)
	}
	_, t := firstDone(p.reqs, p.start, p.some)
	return t
}

// choose makes the pick's choice final (progressNext, once its time is the
// job's earliest pending event).
func (r *rank) choose(exact bool) {
	p := r.rare.pick // choose follows pickTime's answer
	p.chosen, _ = firstDone(p.reqs, p.start, p.some)
	if exact {
		r.rareState().temporalExact++
	}
}

// waitFirst is Waitany (some false) and Waitsome in virtual time: it
// returns the chosen indices, whose requests are complete, and has folded
// their completion times into the rank's clock. reqs has a non-nil entry.
func (r *rank) waitFirst(reqs []*Request, some bool) []int {
	r.rareState().temporal++
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	start, _ := r.clock.Now()
	p := &pickState{reqs: reqs, some: some, start: start}
	r.waitEpoch++
	for _, q := range withParts(reqs) {
		if q != nil {
			q.pickMark = r.waitEpoch
		}
	}
	r.rareState().pick = p
	decided := func() bool {
		if p.chosen == nil {
			if p.chosen = p.finalNow(); p.chosen != nil {
				r.rareState().temporalExact++
			}
		}
		return p.chosen != nil
	}
	r.waitPhase(decided, true, nil)
	r.rare.pick = nil
	r.waitChosen(reqs, p.chosen)
	return p.chosen
}

// waitChosen waits, as Wait does, for the chosen requests: the wait ends
// no earlier than each one's completion time, and a rendezvous send's
// buffer is back from the receiver.
func (r *rank) waitChosen(reqs []*Request, idx []int) {
	sel := make([]*Request, len(idx))
	for k, i := range idx {
		sel[k] = reqs[i]
	}
	r.waitFor(sel, func() bool { return allDone(sel) }, true)
}

// testVirtual is a Test-family call in virtual time over reqs: complete
// reports, for the caller's time, whether the call's condition holds over
// the known requests, and choose which requests it returns. It returns
// the chosen indices (nil when the condition does not hold), complete.
func (r *rank) testVirtual(reqs []*Request, complete func() bool, choose func() []int) []int {
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	r.rareState().temporal++
	// The poll answers for its own t_V: whatever settled an earlier poll
	// (r.settled, which complete may read) says nothing about the messages
	// due by now. Left set, it would let this poll answer at entry from
	// what the host happens to have dealt with already: whether it is still
	// set depends on whether the wait for the last poll's chosen requests
	// was empty (a rendezvous send's receiver already copied the DATA out)
	// or ran a waiting phase, which clears it.
	r.settled, r.settleGuess = false, false
	if !complete() {
		r.waitEpoch++
		r.waitPhase(complete, false, nil)
	}
	exact := !(r.settled && r.settleGuess)
	var idx []int
	if complete() {
		idx = choose()
		r.waitChosen(reqs, idx)
	}
	if exact {
		r.rareState().temporalExact++
	}
	r.clock.Overhead(r.w.pollCost)
	return idx
}
