package mpi

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/transport"
)

// Stalls of Algorithm 2 (virtual mode).
//
// A waiting activity leaves early-queue messages for after the wait. When
// the wait's completion depends on one of them (a pending Isend's ACK is
// early while a later blocking Send waits for its own ACK, which the peer
// sends only after the first DATA), every rank can end up parked: the
// algorithm as written deadlocks. On the target, time passes during the
// wait; the next thing to happen anywhere is the earliest of the early
// messages some rank waits for (REQ and ACK, and rendezvous DATA, whose
// sender waits for its buffer), and the wait that holds it lasts past its
// arrival (its completion depends on it), so that message is dealt with at
// its t_a like any message arriving during the wait.
//
// In a world whose ranks are all in this process the stall is detected
// exactly: when every unfinished rank is parked with nothing queued, the
// rank holding the earliest early REQ or ACK (ties: lowest rank) deals with
// it. The choice depends only on virtual times, so predictions stay
// repeatable. A rank publishes the arrival time of its earliest early
// REQ/ACK/DATA before parking (stallMin); the last rank to fall asleep resolves
// the stall (resolveStall, called from its park predicate), and the
// deadlock watcher does the same as a fallback.
//
// In a world spread over processes no rank sees the whole job: each
// process's agent reports to gompirun, which detects that the whole job is
// parked with nothing in flight and tells the process holding the job's
// earliest early message to resolve (virtual_quiesce.go,
// internal/launch/quiesce.go). The choice is the same as in one process.
// Bounded fallbacks, all speculative and counted in the report: should
// the detection be wrong-footed (every process parked, but the counters
// never balance: a miscount), gompirun still tells the holder of the
// earliest early message to resolve after a bounded delay; a rank parked
// with early messages for parkedFallback resolves itself; a process whose
// agent has lost gompirun resolves at once, as worlds without one always
// did. A speculative resolution is exact when the stall is real, and
// otherwise stamps the reply from t_a rather than from the next wait's
// start (docs/model.md). Non-blocking waits (Test and friends, temporally
// sensitive calls) deal with early messages at once, since a polling loop
// never parks.

// earliestEarly is the index of the early message whose operation has
// started here and that someone may be waiting for with the smallest t_a,
// or -1. Those are REQ and ACK (the peer waits for the reply), rendezvous
// DATA (its receive is matched, and a Wait for it is likely), and any
// message of a request a Waitany or Waitsome of this rank chooses among
// (virtual_waitany.go).
func (r *rank) earliestEarly() int {
	best := -1
	for i, e := range r.early {
		if e.q == nil || e.f.Kind == transport.Data && e.f.Flags&transport.FlagRendezvous == 0 && !r.member(e.q) {
			continue
		}
		if best < 0 || e.f.Arrival < r.early[best].f.Arrival {
			best = i
		}
	}
	return best
}

// progressEarly deals with the earliest early REQ or ACK and reports
// whether there was one.
func (r *rank) progressEarly() bool {
	best := r.earliestEarly()
	if best < 0 {
		return false
	}
	e := r.early[best]
	copy(r.early[best:], r.early[best+1:])
	r.early[len(r.early)-1] = earlyMsg{}
	r.early = r.early[:len(r.early)-1]
	r.deal(e.f, e.q, -1, e.q.waitMark == r.waitEpoch)
	return true
}

// publishStall records, before the rank parks in a blocking wait, the
// time of its earliest pending event (pendingTime: its earliest early
// REQ/ACK/DATA, or the earliest candidate of a deferred receive);
// unpublishStall clears it to 0, meaning none.
func (r *rank) publishStall() {
	t, ok := r.publishedTime()
	if !ok {
		return
	}
	r.stallMin.Store(math.Float64bits(max(t, math.SmallestNonzeroFloat64))) // 0 means none
	r.w.stalls.Add(1)
}

func (r *rank) unpublishStall() {
	if r.stallMin.Swap(0) != 0 {
		r.w.stalls.Add(-1)
	}
}

// resolveStall is called by rank r about to sleep (and by the deadlock
// watcher, with r nil); with parking, r is about to park and counts as
// asleep if nothing is queued for it. If every unfinished rank is asleep with nothing
// queued and some hold early REQ/ACK/DATAs, it tells the one with the earliest
// to deal with it and returns that rank; otherwise nil.
func (w *world) resolveStall(r *rank, parking bool) *rank {
	if w.stalls.Load() == 0 {
		return nil
	}
	var pick *rank
	var pickGen uint64
	pickT, nextT := math.Inf(1), math.Inf(1) // the earliest pending event, and the earliest of the other ranks
	computing := math.Inf(1)                 // the least bound of the ranks computing between MPI calls
	for _, o := range w.ranks {
		if o.finished.Load() {
			continue
		}
		// The park the rank sleeps in, read on both sides of the check so
		// that the order names the park the check saw: a caller delayed
		// past the rank's waking (the deadlock watcher beside the last
		// rank to sleep) then names a park that is over, and the order
		// is ignored instead of resolving a later park unchecked.
		gen := o.parkGen.Load()
		if o == r && parking {
			if !r.inbox.Empty() {
				return nil
			}
		} else if asleep, _ := o.inbox.Asleep(); !asleep || o.blockedIn.Load() == 0 || o.parkGen.Load() != gen {
			// Not parked: a rank computing between MPI calls with nothing
			// queued does everything to come at its bound or later
			// (computingBound); any other rank may do anything.
			b, ok := o.computingBound()
			if !ok {
				return nil
			}
			computing = min(computing, b)
			continue
		}
		b := o.stallMin.Load()
		if o != r || !parking {
			// Read after the check, the pending event may be that of
			// a rank woken meanwhile (told to act by another scan, or
			// its wait over), which has already withdrawn it: 0 would
			// then read as a rank with nothing pending, and the pick
			// would get a window past what that rank is about to do.
			// A rank wakes before it withdraws, and publishes before
			// it parks again, so looking again tells.
			if asleep, _ := o.inbox.Asleep(); !asleep || o.parkGen.Load() != gen {
				return nil
			}
		}
		if b != 0 {
			if t := math.Float64frombits(b); t < pickT {
				nextT = pickT
				pick, pickGen, pickT = o, gen, t
			} else {
				nextT = min(nextT, t)
			}
		}
	}
	if pick == nil || pickT >= computing {
		return nil // nothing to do, or a computing rank may still come first
	}
	nextT = min(nextT, computing)
	w.settle(pickT)
	pick.until.Store(math.Float64bits(nextT))
	pick.resolve.Store(pickGen)
	if pick != r {
		pick.inbox.Kick()
	}
	return pick
}

// computingBound is, for a rank computing between MPI calls with nothing
// queued for it, a lower bound on the time of everything it will do
// (vtime.Rank.Bound: its clock so far, which grows with its CPU time);
// ok is false for a rank in any other state. A frame waiting in its inbox
// could, once dealt with, answer at that frame's old time, so it must
// have none.
func (r *rank) computingBound() (float64, bool) {
	b, ok := r.clock.Bound()
	if !ok || !r.inbox.Drained() {
		return 0, false
	}
	return b, true
}

// parkedFallback bounds how long a rank of a multi-process world stays
// parked with a pending event before it acts on it itself, speculatively.
// gompirun resolves once every rank of the job is parked, or computing
// with a clock past the event (computingBound), which takes a few round
// trips (under a millisecond on an idle host) or as long as a computing
// rank takes to pass it; polls park too. So this is a safety net for
// gompirun's detection, not a path a working job takes: it fires only for
// a rank that waits on one whose computation from before the event lasts
// longer than this in host time. (It was 2 s while polls did not park and
// computing ranks had no bound: then it was what kept such jobs going.)
var parkedFallback = 30 * time.Second

// resolveEarly is called by a waiting phase that found its inbox empty: it
// deals with the earliest early REQ/ACK/DATA, or decides the earliest
// deferred match (virtual_sensitive.go), when told to (a stall), in a
// non-blocking wait, or in a multi-process world without a working agent;
// it reports whether it did.
func (r *rank) resolveEarly(block bool) bool {
	if !r.virtual {
		return false // no early queue, nobody asks
	}
	// A request to resolve a stall is consumed even when the early message
	// it was about has been dealt with meanwhile: a stale request left set
	// would make every park return at once, and this rank, never asleep,
	// would keep the job from picking the rank that really holds the stall.
	resolve := r.ordered
	r.ordered = false
	guess := r.fellBack || resolve && r.guess.Swap(false) // the agent sets guess before resolve
	resolve = resolve || r.fellBack || r.inWindow()
	r.fellBack = false
	if !(resolve || !block || !r.w.local && !r.w.agent.working()) {
		return false
	}
	progressed, decided := r.progressNext(block && resolve && !guess)
	if !progressed || decided {
		return progressed // a deferred match is no stall (virtual_sensitive.go)
	}
	if block && resolve && !guess {
		r.rareState().stalls++
	} else if block {
		r.rareState().speculative++
	}
	return true
}

// parkVirtual is park in virtual mode: it publishes the rank's earliest
// early message for the stall detection, and the last rank to fall asleep
// resolves a stall (one process) or tells the agent (several).
func (r *rank) parkVirtual(done func() bool) {
	r.publishStall()
	r.parks++
	gen := r.parks
	r.parkGen.Store(gen)
	if r.w.local && r.stallMin.Load() != 0 && r.w.resolveStall(r, true) == r {
		// Every other rank sleeps already and this one holds the earliest
		// event: no need to sleep to be told so.
		r.ordered = r.resolve.CompareAndSwap(gen, 0)
		r.unpublishStall()
		r.takeWindow()
		return
	}
	var fallback *time.Timer
	if !r.w.local && r.w.agent != nil && r.stallMin.Load() != 0 {
		// Several processes: gompirun decides, and this bounds its delay.
		// (A world of one process has an agent too, which never decides.)
		fallback = time.AfterFunc(parkedFallback, func() {
			r.fired.Store(gen) // a late timer stores an old gen, which no park waits for
			r.inbox.Kick()
		})
	}
	// The nap whose start this rank has announced: a counted spin
	// (transport.Spin.Counted) asks ready at every check, and a sleep
	// once; either announces itself once (a poke for every check kept
	// the agent sampling all the time).
	var announced uint64
	r.inbox.Park(func() bool {
		if o := r.resolve.Load(); done() || r.w.aborted.Load() || o == gen || o == anyPark || r.fired.Load() == gen {
			return true
		}
		if asleep, nap := r.inbox.Asleep(); asleep && nap != announced {
			announced = nap
			if r.w.local {
				return r.w.resolveStall(r, false) == r
			}
			r.w.agent.poke()
		}
		return false
	})
	if fallback != nil {
		fallback.Stop()
		r.fellBack = r.fired.Load() == gen
	}
	r.ordered = r.resolve.CompareAndSwap(gen, 0) || r.resolve.CompareAndSwap(anyPark, 0)
	r.unpublishStall()
	r.takeWindow()
}

// anyPark is a resolve order for whichever park the rank is in or enters
// next: gompirun's, which it gives only once it has seen the whole job
// parked, and which the agent counts as delivered.
const anyPark = math.MaxUint64

// stallState is embedded in rank.
type stallState struct {
	stallMin atomic.Uint64 // float64 bits of the earliest early REQ/ACK/DATA t_a while parked; 0 otherwise
	// resolve is an order to deal with the rank's earliest pending event,
	// for the park it names (parkGen; 0: none; anyPark). Orders for a park
	// that is over are stale and never match a later one.
	resolve atomic.Uint64
	parkGen atomic.Uint64 // the park the rank is in or last was in (parks)
	// until is the float64 bits of the window an order gives (Order.Until:
	// the earliest pending event of every other rank), stored before the
	// order; 0: none. See rank.window.
	until atomic.Uint64

	// Multi-process worlds with an agent (virtual_quiesce.go).
	xout, xin atomic.Int64  // frames sent to / taken from ranks of other processes
	fired     atomic.Uint64 // the park whose fallback timer fired (parkedFallback)
	parks     uint64        // parks so far: identifies the current one
	guess     atomic.Bool   // the resolve request is gompirun's fallback, not a detected stall
	fellBack  bool          // the last park ended by its fallback timer

	ordered bool // the last park ended with an order for it (kept beside the other small fields: no padding)
}
