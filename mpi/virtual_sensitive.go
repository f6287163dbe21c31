package mpi

import (
	"math"

	"github.com/gompi/gompi/transport"
)

// Temporally sensitive receives in virtual time (issue: AnySource answered
// as on the target).
//
// A receive or blocking Probe from AnySource matches, on the target, the
// candidate message that reaches the receiver first: the one with the
// smallest t_a (ties: the lowest source rank, then the order the host
// delivered them). On the host, candidates arrive in host order, so the
// engine does not match such a receive when a frame arrives: it is
// deferred (Request.deferred), and the frames that could match it wait in
// the unexpected queue. The match is decided once no other rank can still
// produce a candidate that arrives earlier.
//
// That bound comes from the stall detection (virtual_stall.go), the
// conservative protocol's quiescence: a rank that waits with deferred
// receives publishes the earliest candidate's t_a beside its earliest early
// message (publishStall); when every rank of the job is parked, the rank
// holding the job's earliest such time is told to resolve it, within one
// process or through gompirun across processes. At that point every rank
// is blocked, so any message still to come is sent after an event no
// earlier than that time and arrives later still: the candidate is the
// target's answer. The choice depends only on virtual times, so the
// prediction and the order of matches are repeatable, and a program that
// makes no such call pays nothing (the deferral is off in real mode and
// for named sources).
//
// Fallbacks, counted by the report as sensitive calls not answered in
// virtual time: a non-blocking wait (Test and its kin) decides a deferred
// receive among the candidates it has at once, since a polling rank never
// parks; so does a resolution that gompirun's detection did not confirm
// (speculative, as for stalls).

// defers reports whether receive q waits for virtual time to be matched.
func (r *rank) defers(q *Request) bool { return r.virtual && q.peer == AnySource }

// candidate is the index in r.unexpected of the frame receive (or Probe
// pattern) q matches on the target, or -1 when none has reached the host.
func (r *rank) candidate(q *Request) int {
	best := -1
	for i, f := range r.unexpected {
		if !q.matches(&f.Header) {
			continue
		}
		if best < 0 || earlier(&f.Header, &r.unexpected[best].Header) {
			best = i
		}
	}
	return best
}

// earlier orders candidates as the target's receiver meets them: by t_a,
// then by source rank; frames equal in both keep host order.
func earlier(a, b *transport.Header) bool {
	if a.Arrival != b.Arrival {
		return a.Arrival < b.Arrival
	}
	return a.Src < b.Src
}

// nextDecision is the deferred receive or Probe with the earliest
// candidate, that candidate's index in r.unexpected, and its t_a; q is nil
// when no deferred operation has a candidate. Receives come in posted
// order, so that of two with the same candidate the earlier posted wins.
func (r *rank) nextDecision() (q *Request, idx int, t float64) {
	t = math.Inf(1)
	if r.deferrals == 0 {
		return nil, -1, t
	}
	consider := func(p *Request) {
		if !p.deferred {
			return
		}
		if i := r.candidate(p); i >= 0 && r.unexpected[i].Arrival < t {
			q, idx, t = p, i, r.unexpected[i].Arrival
		}
	}
	for _, p := range r.posted {
		consider(p)
	}
	if r.probe != nil {
		consider(r.probe)
	}
	return q, idx, t
}

// decide matches deferred q with r.unexpected[i]; exact says the stall
// detection confirmed that no earlier candidate can come.
func (r *rank) decide(q *Request, i int, exact bool) {
	if exact {
		r.rareState().temporalExact++
	}
	f := r.unexpected[i]
	q.deferred = false
	r.deferrals--
	if q == r.probe {
		// The Probe finds f; it stays in the unexpected queue for the
		// receive to come, and the wait lasts until it arrives.
		r.rareState().probeHit = f
		r.dropEarly(f)
		r.clock.Found(&f.Header)
		return
	}
	r.unexpected = removeFrame(r.unexpected, i)
	r.take(f, q)
	r.matchWithheld()
}

// take gives receive q frame f, which has left the unexpected queue, as
// dispatch would have on f's arrival: a frame still early on the target
// waits in the early queue for its time unless q is being waited for (a
// related frame is dealt with at once, and Algorithm 3 times it).
func (r *rank) take(f *transport.Frame, q *Request) {
	related := q.waitMark == r.waitEpoch
	if !related && r.claimEarly(f, q) {
		r.unpost(q, -1)
		return
	}
	r.dropEarly(f)
	r.deal(f, q, -1, related)
}

// withheld reports whether frame f of the unexpected queue waits for a
// deferred receive's decision (requestOf): on the target a receive posted
// before may take it, so a matched probe (mprobe.go) does not take it until
// the receive is decided, as a real MPI's probe does not see a message a
// posted receive has matched. Probe and Iprobe, which only look, still see
// it, as they always have.
func (r *rank) withheld(f *transport.Frame) bool {
	if r.deferrals == 0 {
		return false
	}
	for _, p := range r.posted {
		if p.deferred && p.matches(&f.Header) {
			return true
		}
	}
	return false
}

// dropEarly removes f from the early queue, if it is there.
func (r *rank) dropEarly(f *transport.Frame) {
	for i := range r.early {
		if r.early[i].f == f {
			copy(r.early[i:], r.early[i+1:])
			r.early[len(r.early)-1] = earlyMsg{}
			r.early = r.early[:len(r.early)-1]
			return
		}
	}
}

// matchWithheld gives the receives posted after a deferred one the frames
// that were withheld for it (requestOf) and that it did not take: each
// posted receive, in posted order, takes the first matching frame of the
// unexpected queue, until a deferred receive, which keeps what it matches.
func (r *rank) matchWithheld() {
	for k := 0; k < len(r.posted); k++ {
		q := r.posted[k]
		if q.deferred {
			return
		}
		for i, f := range r.unexpected {
			if !q.matches(&f.Header) {
				continue
			}
			r.unexpected = removeFrame(r.unexpected, i)
			r.take(f, q)
			k-- // q left the posted queue
			break
		}
	}
}

// progressNext deals with the earliest of the rank's pending events: its
// earliest early REQ/ACK/DATA (progressEarly), its earliest deferred match,
// or the choice of its Waitany or Waitsome (virtual_waitany.go). On equal
// times an early message goes first, then a deferred match, then the
// choice, since each of the first two can complete a request at that very
// time. It reports whether there was an event, and whether it was a
// decision (a match or a choice).
func (r *rank) progressNext(exact bool) (progressed, decided bool) {
	q, i, t := r.nextDecision()
	pt := r.pickTime()
	te := math.Inf(1)
	if e := r.earliestEarly(); e >= 0 {
		te = r.early[e].f.Arrival
	}
	switch {
	case pt < t && pt < te:
		r.choose(exact)
		return true, true
	case q != nil && t <= te:
		r.decide(q, i, exact)
		return true, true
	}
	return r.progressEarly(), false
}

// pendingTime is the earliest of the rank's pending events, as
// progressNext takes them, and whether it has one.
func (r *rank) pendingTime() (float64, bool) {
	_, _, t := r.nextDecision()
	t = min(t, r.pickTime())
	if e := r.earliestEarly(); e >= 0 {
		t = min(t, r.early[e].f.Arrival)
	}
	return t, !math.IsInf(t, 1)
}

// publishedTime is what the rank publishes while it parks: its earliest
// pending event, or the time a poll answers for if earlier.
func (r *rank) publishedTime() (float64, bool) {
	t, ok := r.pendingTime()
	if r.polling && (!ok || r.rare.pollAt < t) { // polling's pollAt is set (poll)
		return r.rare.pollAt, true
	}
	return t, ok
}

// Polls (Test and its kin, Iprobe) in virtual time.
//
// A poll answers for the caller's virtual time t_V: a request is complete,
// or a message there, exactly when the target would have it by then. The
// poll deals with the early messages due by t_V (t_a <= t_V), and, when
// that does not settle its question, waits on the host until no other rank
// can still produce anything due by t_V: it parks with t_V as its pending
// event (publishStall), and the stall detection settles it once every rank
// is parked and t_V is the job's earliest pending event, or deals first
// with the events before it (which may bring the poll's message). A poll
// thus never keeps the job from settling, so a rank polling for ever while
// another computes or waits for a deferred match does not livelock it, and
// every poll costs pollCost of virtual time, so that a polling loop
// advances on the target's clock whatever its polls find.

// minPollCost is the least virtual time a poll takes: the machine's
// per-message overhead a when larger. Without it, a loop polling on a
// machine file with no overhead would not advance.
const minPollCost = 0.5e-6

// pollStep is a poll's step when the inbox is empty and its question is
// open; it reports whether to look again (something was dealt with, or
// the rank waited for the job to settle), false when the answer is final.
func (r *rank) pollStep(done func() bool) bool {
	if r.dealDue() {
		return true
	}
	if r.settled {
		return r.decideDue()
	}
	if now, _ := r.clock.Now(); now < r.window {
		// Nothing due by now can still come (virtual_window.go).
		if r.dealNext(now) {
			return true
		}
		r.settled, r.settleGuess = true, false
		return true
	}
	if !r.w.local && !r.w.agent.working() {
		// Nobody can tell that the job settled (no gompirun): answer
		// with what is here, speculatively.
		r.settled, r.settleGuess = true, true
		return true
	}
	now, _ := r.clock.Now()
	r.rareState().pollAt, r.polling = now, true
	r.park(done)
	r.polling = false
	if r.ordered || r.fellBack {
		// Told to go on: the job is settled up to the earliest pending
		// event, exactly or (gompirun's fallback, or no gompirun)
		// speculatively.
		guess := !r.ordered || r.guess.Swap(false)
		r.ordered, r.fellBack = false, false
		if r.dealNext(now) {
			return true
		}
		r.settled, r.settleGuess = true, guess
	}
	return true
}

// dealDue deals with the early messages due by t_V and reports whether
// there were any.
func (r *rank) dealDue() bool {
	n := len(r.early)
	if n == 0 {
		return false
	}
	r.drainEarly(func(f *transport.Frame, _ bool) bool { return r.clock.DueNow(&f.Header) })
	return len(r.early) != n
}

// decideDue decides the deferred matches whose candidate is due by t_V,
// earliest first, once the poll is settled (no earlier candidate can
// come), and reports whether there was one.
func (r *rank) decideDue() bool {
	now, _ := r.clock.Now()
	q, i, t := r.nextDecision()
	if q == nil || t > now {
		return false
	}
	r.decide(q, i, !r.settleGuess)
	return true
}

// dealNext deals with the rank's earliest pending event if it comes before
// a poll's time at, and reports whether it did.
func (r *rank) dealNext(at float64) bool {
	t, ok := r.pendingTime()
	if !ok || t > at {
		return false
	}
	r.progressNext(true)
	return true
}

// iprobeVirtual is Iprobe in virtual time: a message matching pattern is
// there when one has reached the rank by t_V (t_a <= t_V). From a named
// source the first such frame is the answer at once (one sender's frames
// come in the order sent); from AnySource the earliest, once the poll is
// settled. Every poll costs pollCost.
// It returns the frame found, which stays in the unexpected queue, or nil.
func (r *rank) iprobeVirtual(pattern *Request, taking bool) *transport.Frame {
	hit := -1
	found := func() bool {
		now, _ := r.clock.Now()
		hit = -1
		for i, f := range r.unexpected {
			if f.Arrival > now || !pattern.matches(&f.Header) || taking && r.withheld(f) {
				continue
			}
			if pattern.peer != AnySource {
				hit = i
				return true
			}
			if hit < 0 || earlier(&f.Header, &r.unexpected[hit].Header) {
				hit = i
			}
		}
		return hit >= 0 && r.settled
	}
	r.waitEpoch++
	r.waitPhase(found, false, nil)
	ok := found()
	if !(r.settled && r.settleGuess) {
		r.rareState().temporalExact++
	}
	r.clock.Overhead(r.w.pollCost)
	if !ok {
		return nil
	}
	return r.unexpected[hit]
}

// Forgetting the waits no message can reach.
//
// When every rank of a world in one process is parked and the earliest
// pending event is at t (resolveStall), every message sent from then on is
// sent at t or later, so it arrives later still: t bounds from below the
// t_a of every message still to come, but those already on the host. A
// rank's clock then keeps only the waits such messages can reach
// (vtime.Rank.ForgetBefore), so Algorithm 3's history stays short in long
// runs that make temporally sensitive calls, and no message misses it.

// settle records that the world settled at t.
func (w *world) settle(t float64) {
	for {
		old := w.settledAt.Load()
		if old != 0 && math.Float64frombits(old) >= t {
			return
		}
		if w.settledAt.CompareAndSwap(old, math.Float64bits(t)) {
			return
		}
	}
}

// forgetSettled lets the clock forget the waits before the world's settled
// time, or before the earliest t_a of a frame this rank holds and has not
// dealt with, if earlier. Called at the start of each waiting phase.
func (r *rank) forgetSettled() {
	b := r.w.settledAt.Load()
	if b == 0 {
		return
	}
	t := math.Float64frombits(b)
	if t <= r.clock.Forgot() {
		return // the clock forgot before t or later already
	}
	for _, f := range r.unexpected {
		t = min(t, f.Arrival)
	}
	for _, e := range r.early {
		t = min(t, e.f.Arrival)
	}
	r.clock.ForgetBefore(t)
}
