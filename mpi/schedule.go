package mpi

import "iter"

// Nonblocking collectives run the blocking algorithms of coll_*.go
// unchanged, as schedules: the algorithm runs on a coroutine (iter.Pull),
// and where the blocking form would wait for a step's requests
// (Comm.waitColl) the coroutine yields them instead. A virtual run thus
// prices exactly the messages a real run sends, and one implementation of
// each algorithm serves both forms.
//
// iter.Pull switches to the coroutine by direct handoff: the rank's
// goroutine is suspended while the coroutine runs, so the engine stays
// single-threaded per rank, and the Go runtime hands a goroutine's OS-thread
// lock to the coroutine (the thread CPU clock of vtime reads the same
// thread). The runtime also requires the lock state at every switch to be
// the one the coroutine was created in (it aborts the process otherwise),
// so every run of a schedule, its creation included, happens inside the
// engine's bracket (eventClock.EnterEngine), where the virtual clock's
// meter holds no lock, after the rank's inbox is told it is about to hand
// its processor to another goroutine (transport.Inbox.Yielding): a meter
// pinned to its thread (vtime.Pinner, a process's only rank) keeps its
// lock inside the bracket too, and lets go of it there. That also keeps
// the schedule's local work (copies, reductions) from being measured as
// the application's computation. An application that locks or
// unlocks its goroutine's thread while a nonblocking collective is
// outstanding breaks the rule (docs/mpi.md).
//
// Progress follows MPICH: every outstanding schedule of a rank advances in
// any of the rank's MPI waits (nbc_progress.go), not only in the wait for
// its own request, so a rank blocked in Recv still forwards the Ibcast
// data its children need.

// A nonblocking collective's messages carry a tag of its own: a sequence
// number per communicator (MPI makes every rank start the collectives of a
// communicator in the same order, so all ranks draw the same numbers) in a
// range the blocking collectives (1..tagExscan) and the library's own
// (tagContext, tagSplit) never use, plus the algorithm's tag. Outstanding
// collectives on one communicator thus never match each other's messages,
// nor those of a blocking collective started meanwhile.
const (
	tagNonblocking = 1 << 20 // first tag of the nonblocking range
	nbcTagSpan     = 64      // tags per nonblocking collective: above every algorithm tag (tagExscan)
	nbcSeqs        = 1 << 20 // sequence numbers before they wrap
)

// reqColl is the kind of a nonblocking collective's request.
const reqColl reqKind = 100

// schedule is one nonblocking collective in progress.
type schedule struct {
	tag   int                       // added to every tag the algorithm uses
	next  func() ([]*Request, bool) // resumes the coroutine until its next step
	yield func([]*Request) bool     // the coroutine's side of next
	step  []*Request                // the requests the suspended schedule waits for
	taken []bool                    // virtual mode: which of step a choice in virtual time has taken (nbc_progress.go)
	req   *Request                  // the user's request: complete when the schedule returns
	err   error                     // the schedule's result
}

// nbcState is a rank's nonblocking collectives.
type nbcState struct {
	active      []*schedule      // outstanding schedules, in the order they started
	cur         *schedule        // the schedule whose coroutine runs now; nil on the rank's goroutine
	held        map[int]*ctxHold // context ids Idups hold before confirming them (comm_idup.go)
	agreeing    int32            // blocking context-id agreements in flight (comm_idup.go)
	progressing bool             // the rank is progressing schedules: its waits are plain ones
}

// tagOffset is what csend and crecv add to an algorithm's tag.
func (n *nbcState) tagOffset() int {
	if n.cur != nil {
		return n.cur.tag
	}
	return 0
}

// nextNBCTag draws the next nonblocking collective's tag base on c.
func (c *Comm) nextNBCTag() int {
	t := tagNonblocking + int(c.nbcN%nbcSeqs)*nbcTagSpan
	c.nbcN++
	return t
}

// nonblocking turns an internal blocking schedule into a nonblocking
// collective (the helper other schedules, the neighbourhood collectives
// say, use for their nonblocking forms): fn runs as the blocking
// collective would, with its waits (waitColl) suspending it instead, and
// the returned request completes with fn's error once fn returns. fn must
// reach the engine only through csend, crecv and waitColl, as every
// algorithm of coll_*.go does. The schedule runs at once up to its first
// wait; an error fn returns before that (a bad argument) is returned here,
// with no request. Every rank of c must start its nonblocking collectives
// on c in the same order.
func (c *Comm) nonblocking(fn func(c *Comm) error) (*Request, error) {
	c.unrecordable(unrecNonblocking) // a record cannot hold it yet (record.go)
	if err := c.check(); err != nil {
		return nil, err
	}
	r := c.r
	r.checkAbort()
	if r.nbc.cur != nil {
		// A schedule's code reached a nonblocking start: a library bug,
		// refused rather than nesting coroutines.
		return nil, errorf(ClassOther, "nonblocking collective started inside a nonblocking collective")
	}
	// Inside the engine's bracket the rank's goroutine holds no OS-thread
	// lock of the virtual clock's (a computation burst holds one; a
	// pinned meter lets go of its own at Yielding), and the runtime
	// requires every switch to a coroutine to find the lock state it was
	// created with: so it is created, and always resumed, there.
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	r.inbox.Yielding()
	s := &schedule{tag: c.nextNBCTag()}
	s.req = &Request{r: r, comm: c, kind: reqColl}
	s.next, _ = iter.Pull(func(yield func([]*Request) bool) {
		s.yield = yield
		s.err = fn(c)
	})
	r.nbc.active = append(r.nbc.active, s)
	r.resume(s)
	if q := s.req; q.done.Load() && q.err != nil {
		return nil, q.err
	}
	return s.req, nil
}

// resume runs s's coroutine until its next step or its end; at its end the
// request completes (in virtual time, now: the schedule's last step has
// been waited for, as the blocking form's last wait would).
func (r *rank) resume(s *schedule) {
	s.step = nil
	r.nbc.cur = s
	r.inbox.Yielding() // a switch to the coroutine: no thread lock (above)
	step, ok := s.next()
	r.nbc.cur = nil
	if ok {
		s.step, s.taken = step, make([]bool, len(step))
		return
	}
	for i, a := range r.nbc.active {
		if a == s {
			r.nbc.active = append(r.nbc.active[:i], r.nbc.active[i+1:]...)
			break
		}
	}
	q := s.req
	q.status, q.err = emptyStatus(), s.err
	if r.virtual {
		q.vready, _ = r.clock.Now()
	}
	q.complete()
}

// advance waits for s's step as the blocking form's waitColl would (an
// empty waiting activity when it is complete) and resumes s. The caller
// has set r.nbc.progressing, so the wait is a plain one.
func (r *rank) advance(s *schedule) {
	step := s.step
	r.waitFor(step, func() bool { return allDone(step) }, true)
	r.resume(s)
}

// await is waitColl inside a schedule: it hands the step's requests to
// whoever progresses the schedule and, resumed once they are complete,
// returns the step's error as waitReqs would.
func (s *schedule) await(reqs []*Request) error {
	if len(reqs) == 0 {
		return nil
	}
	if !s.yield(reqs) || !allDone(reqs) {
		// Never stopped, and resumed only once the step is complete.
		return errorf(ClassOther, "nonblocking collective resumed before its step completed")
	}
	return finishAll(reqs)
}

// allTaken reports whether every request of s's step has been taken in
// virtual order.
func (s *schedule) allTaken() bool {
	for _, t := range s.taken {
		if !t {
			return false
		}
	}
	return s.step != nil
}

// stepDone reports whether some outstanding schedule can advance: every
// request of its step is complete.
func (n *nbcState) stepDone() bool {
	for _, s := range n.active {
		if s.step != nil && allDone(s.step) {
			return true
		}
	}
	return false
}

// advanceDone advances, in start order, every schedule whose step is
// complete, until none is; it reports whether any advanced.
func (r *rank) advanceDone() bool {
	any := false
	for again := true; again; {
		again = false
		for _, s := range append([]*schedule(nil), r.nbc.active...) {
			if s.step != nil && allDone(s.step) {
				r.advance(s)
				any, again = true, true
			}
		}
	}
	return any
}
