package mpi

import "unsafe"

// Collective operations are schedules of the engine's own sends and
// receives on the communicator's collective context (c.ctx+1), as MPICH
// builds them: a virtual run sees every message a real MPI library would
// send. One tag per collective kind suffices: MPI requires every rank to
// call the collectives of a communicator in the same order, and the engine
// never lets two messages between the same pair on one context overtake.
//
// The algorithms work on bytes (element size and a combining function come
// from the typed wrappers), so one implementation serves every type.
const (
	tagBarrier = iota + 1
	tagBcast
	tagReduce
	tagAllreduce
	tagGather
	tagScatter
	tagAllgather
	tagAlltoall
	tagRedScat
	tagScan
	tagExscan
)

// csend starts a send of buf to comm rank to on the collective context.
func (c *Comm) csend(buf []byte, to, tag int) *Request {
	return c.r.isend(c, buf, c.group.worldRank(to), tag+c.r.nbc.tagOffset(), c.ctx+1, false)
}

// spareReqs returns k of the rank's requests for steps that are waited
// for before the function that starts them returns (exchange,
// blockingSend, blockingRecv, the scattered Alltoall's windows, and the
// public Sendrecv), or nil
// inside a nonblocking collective's schedule, whose steps' requests outlive
// the call that starts them. A blocking collective allocated two requests
// per exchange without them: at 2 ranks, most of an 8-byte Allreduce's
// allocation, and the garbage collections it caused preempted the ranks.
func (c *Comm) spareReqs(k int) []Request {
	if c == nil || c.r == nil || c.r.nbc.cur != nil { // nil: a nil or zero Comm, which the post refuses
		return nil
	}
	s := c.r.collSpare()
	if len(s.reqs) < k {
		s.reqs = make([]Request, k)
	}
	return s.reqs[:k]
}

// collSpare is what a rank keeps for its blocking collectives. It is
// allocated at the first one: a rank that makes none (and, in a virtual
// run of a million ranks, every byte of a rank counts) keeps a pointer.
type collSpare struct {
	reqs []Request  // a blocking collective's steps (spareReqs)
	ptrs []*Request // a blocking collective's lists of outstanding requests
	tmp  [2][]byte  // a blocking collective's temporary buffers (scratch)
}

func (r *rank) collSpare() *collSpare {
	if r.spare == nil {
		r.spare = new(collSpare)
	}
	return r.spare
}

// scratchBytes bounds what a process's ranks keep for collectives'
// temporaries (scratch): each rank keeps up to scratchBytes / (ranks in the
// process) bytes per slot, at least minScratch, so that a process of one
// rank reuses buffers up to 1 MiB and one of a million virtual ranks keeps
// almost nothing.
const (
	scratchBytes = 1 << 20
	minScratch   = 256
)

// scratch returns n bytes for a blocking collective's temporary in slot
// (0 or 1), reused from call to call while n is within the rank's bound,
// otherwise (and inside a nonblocking collective's schedule, whose
// temporaries outlive the call) newly allocated. Its contents are
// whatever the last use left: callers overwrite what they read. A new
// buffer per call was most of what a mid-size Reduce or Allreduce
// allocated, and the garbage collections it caused cost more than the
// reduction.
func (c *Comm) scratch(slot, n int) []byte {
	r := c.r
	limit := max(scratchBytes/len(r.w.ranks), minScratch)
	if r.nbc.cur != nil || n > limit {
		return make([]byte, n)
	}
	s := r.collSpare()
	if cap(s.tmp[slot]) < n {
		s.tmp[slot] = make([]byte, n)
	}
	return s.tmp[slot][:n]
}

// csendInto and crecvInto are csend and crecv into q, or a new request
// when q is nil.
func (c *Comm) csendInto(q *Request, buf []byte, to, tag int) *Request {
	if q == nil {
		return c.csend(buf, to, tag)
	}
	return c.r.startSend(q, c, buf, c.group.worldRank(to), tag+c.r.nbc.tagOffset(), c.ctx+1, false)
}

func (c *Comm) crecvInto(q *Request, buf []byte, from, tag int) *Request {
	if q == nil {
		return c.crecv(buf, from, tag)
	}
	return c.r.startRecv(q, c, buf, c.group.worldRank(from), tag+c.r.nbc.tagOffset(), c.ctx+1)
}

// crecv starts a receive into buf from comm rank from on the collective
// context.
func (c *Comm) crecv(buf []byte, from, tag int) *Request {
	return c.r.irecv(c, buf, c.group.worldRank(from), tag+c.r.nbc.tagOffset(), c.ctx+1)
}

// A failed step does not end a rank's part in a collective. As MPICH does
// (its errflag), the rank records the first error and goes on sending and
// receiving what the schedule says, so the ranks that wait for its later
// messages (a truncating rank's children in a Bcast tree, say) are not left
// blocked for ever; it returns the error once the schedule is done. Only
// the rank where a step failed reports the error.

// schedErr is the first error of a rank's part in a collective schedule.
type schedErr struct{ err error }

// keep records err unless an earlier error is recorded.
func (e *schedErr) keep(err error) {
	if e.err == nil {
		e.err = err
	}
}

// testHookCollStep, when set (tests only, before the world starts), is
// called after each step of a collective schedule on c completes; a
// non-nil result becomes that step's error. It injects a failure into one
// rank's part of any collective.
var testHookCollStep func(c *Comm) error

// waitColl waits for one step's requests and returns the first failure's
// own error (not the ErrInStatus wrapper: a collective has no statuses to
// inspect). In a nonblocking collective's schedule it suspends the
// schedule until the rank's waits have completed the step (schedule.go).
func (c *Comm) waitColl(reqs ...*Request) error {
	var err error
	if s := c.r.nbc.cur; s != nil {
		// The schedule keeps its step's requests while it is suspended:
		// a copy, so that a blocking collective's list stays on its
		// stack.
		err = s.await(append([]*Request(nil), reqs...))
	} else {
		err = waitReqs(reqs)
	}
	return c.stepDone(err)
}

// stepDone ends a collective's step whose requests ended with err.
func (c *Comm) stepDone(err error) error {
	if h := testHookCollStep; h != nil && err == nil {
		err = h(c)
	}
	return err
}

// waitReqs waits for the library's own requests and returns the first
// one's error; unlike waitall it gathers no statuses, so a blocking
// collective's step allocates nothing.
func waitReqs(reqs []*Request) error {
	if len(reqs) == 1 {
		_, err := reqs[0].wait()
		return err
	}
	waitOn(reqs)
	return finishAll(reqs)
}

// exchange sends sb to rank to and receives rb from rank from, concurrently.
func (c *Comm) exchange(sb []byte, to int, rb []byte, from, tag int) error {
	var rq, sq *Request
	if spare := c.spareReqs(2); spare != nil {
		rq, sq = &spare[0], &spare[1]
	}
	rq = c.crecvInto(rq, rb, from, tag)
	if sent, serr := c.csendSmall(sb, to, tag); sent { // p2p_small.go
		_, err := rq.wait()
		if err == nil {
			err = serr
		}
		return c.stepDone(err)
	}
	sq = c.csendInto(sq, sb, to, tag)
	return c.waitColl(rq, sq)
}

// blockingSend and blockingRecv are the blocking halves.
func (c *Comm) blockingSend(b []byte, to, tag int) error {
	if sent, err := c.csendSmall(b, to, tag); sent {
		return c.stepDone(err)
	}
	var q *Request
	if spare := c.spareReqs(1); spare != nil {
		q = &spare[0]
	}
	return c.waitColl(c.csendInto(q, b, to, tag))
}

func (c *Comm) blockingRecv(b []byte, from, tag int) error {
	var q *Request
	if spare := c.spareReqs(1); spare != nil {
		q = &spare[0]
	}
	return c.waitColl(c.crecvInto(q, b, from, tag))
}

// begin validates the communicator at the start of a collective.
func (c *Comm) begin() error {
	if err := c.check(); err != nil {
		return err
	}
	c.r.checkAbort()
	return nil
}

func (c *Comm) checkRoot(root int, what string) error {
	if root < 0 || root >= c.Size() {
		return errorf(ClassRoot, "%s: root %d out of range [0,%d)", what, root, c.Size())
	}
	return nil
}

// overlap reports whether two byte buffers share memory. Collectives whose
// schedule reads the send buffer after writing the receive buffer refuse
// overlapping buffers (MPI forbids them; the ...InPlace forms exist for
// that).
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// pof2Below is the largest power of two not above n (n >= 1).
func pof2Below(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

func isPof2(n int) bool { return n > 0 && n&(n-1) == 0 }

// ceilLog2 is the number of rounds of a doubling algorithm over n ranks.
func ceilLog2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// Barrier blocks until every rank of c has entered it (MPI_Barrier). It
// uses the dissemination algorithm: ceil(log2 n) rounds, in round k each
// rank sends an empty message to rank+2^k and receives one from rank-2^k.
func (c *Comm) Barrier() error {
	if err := c.begin(); err != nil {
		return err
	}
	c.enter(callBarrier, 0, 0)
	// No defers: a rank sleeping at the gate has this frame on its stack,
	// and theirs would make it larger (coll_bulk.go, meet). Nothing below
	// leaves but by returning, or by the rank's end (an abort's Goexit, a
	// panic that fails the job), after which neither bracket matters.
	var err error
	if g := c.bulkGateFor(); g == nil {
		err = c.barrierByMessages()
	} else {
		c.r.clock.EnterEngine() // for the message path too, if it falls back (coll_bulk.go)
		if !g.meet(c.r, bulkBarrier, true) {
			err = c.barrierByMessages()
		}
		c.r.clock.LeaveEngine()
	}
	c.leave()
	return err
}

// barrierByMessages is Barrier's dissemination algorithm. Out of line: a
// rank sleeping at the gate has Barrier's frame on its stack, not this
// one's (coll_bulk.go, meet).
//
//go:noinline
func (c *Comm) barrierByMessages() error {
	n, me := c.Size(), c.rank
	var failed schedErr
	for mask := 1; mask < n; mask <<= 1 {
		failed.keep(c.exchange(nil, (me+mask)%n, nil, (me-mask+n)%n, tagBarrier))
	}
	return failed.err
}
