package vtime

import (
	"math"
	"sync/atomic"
)

// Rank is one rank's virtual clock: VACED-SIM's three private variables
// t_V, t'1 and t'2 (Sect. 3.2) and their update rules at the 12 event
// points, plus the waiting activity's history (earlyqueue.go). It is used by
// the rank's own goroutine only, but for Bound.
//
// The event methods come in the order the protocol engine calls them:
//
//	SimStart  (Begin  {Stamp}  End{Send,Recv}  |  Begin WaitStart {Early DueNow DueInWait Deal} WaitEnd)*  SimEnd
//
// Computation between an end event and the next start event is measured by
// the Meter (actual simulation, Eq. 2) and scaled by cpuScale and by the
// contention factor (contention.go). The MPI library's own bookkeeping
// between its event points (posting, matching, queue work) is not the
// program's computation, and on the target it is the software overhead
// o(s) already charged: the engine brackets it with EnterEngine and
// LeaveEngine, between which no burst is measured.
type Rank struct {
	id  int
	t   *Target
	cpu *measuredCPU // nil when computation is not measured (cpu-scale 0)

	tv     float64 // t_V: the rank's virtual time, seconds
	forgot float64 // the latest bound ForgetBefore was given (Forgot)

	nic Link // the injection link its network messages queue on (nic_queue)

	wait waitState // Algorithm 2 / 3 state

	comp, comm, waiting float64 // time by kind of activity
	end                 float64 // t_V at E_End

	// What Bound reads from other goroutines while the rank computes:
	// busy is odd while a burst is open (between an end event outside the
	// engine and the next start event), base is t_V's float64 bits when it
	// opened, plus what Elapse added since. open is the rank's own copy.
	busy atomic.Uint64
	base atomic.Uint64

	// The small fields together, no padding between them: a virtual run
	// holds a million clocks (TestRankSize).
	engine int32 // depth of EnterEngine: no burst is measured while > 0
	ended  bool
	open   bool
}

// measuredCPU is what a clock that measures computation holds besides the
// rest: at cpu-scale 0 (skeletons, the largest runs) no clock needs it,
// and a million clocks are 32 bytes each smaller without it
// (TestRankSize).
type measuredCPU struct {
	meter    Meter
	cpuScale float64
	// burstScale multiplies every measured burst: cpuScale x the
	// contention factor, fixed before the rank starts so that charging a
	// burst stays one multiplication.
	burstScale float64
	// contention is S(k_t) / S(k_h) (1 until SetHostConcurrency), with the
	// two concurrencies it came from, for the report.
	contention                 float64
	nodeRanks, hostConcurrency int32
}

// NewRank makes rank id's clock on target t. meter measures computation
// bursts; with cpuScale 0 it is never read (pass nil): predictions then
// depend on the program's messages and Elapse calls only, and are exactly
// repeatable.
func NewRank(t *Target, id int, meter Meter, cpuScale float64) *Rank {
	if cpuScale == 0 || meter == nil {
		return &Rank{id: id, t: t}
	}
	return &Rank{id: id, t: t, cpu: &measuredCPU{meter: meter, cpuScale: cpuScale, burstScale: cpuScale, contention: 1}}
}

// Meter is the meter NewRank was given, nil when computation is not
// measured.
func (r *Rank) Meter() Meter {
	if r.cpu == nil {
		return nil
	}
	return r.cpu.meter
}

// SetHostConcurrency tells the clock k_h, how many of the job's ranks the
// host computes at once on the cores that measure this rank, so that its
// measured computation is scaled by the contention factor S(k_t) / S(k_h)
// (Target.ContentionFactor). Call it before SimStart. Without it no factor
// applies, as when the machine has no contention table.
func (r *Rank) SetHostConcurrency(k int) {
	c := r.cpu
	if c == nil {
		return // nothing is measured, so nothing is scaled
	}
	k = max(k, 1)
	c.contention = r.t.ContentionFactor(r.id, k)
	c.nodeRanks, c.hostConcurrency = int32(r.t.NodeRanks(r.id)), int32(k)
	c.burstScale = c.cpuScale * c.contention
}

// Now is t_V, including the computation burst in progress (MPI_Wtime).
func (r *Rank) Now() float64 {
	if c := r.cpu; c != nil {
		return r.tv + c.burstScale*c.meter.Peek()
	}
	return r.tv
}

// Elapse adds d seconds of computation without using the host CPU (mu-pi's
// MPI_Elapse_time, for skeleton programs).
func (r *Rank) Elapse(d float64) {
	if d > 0 {
		r.tv += d
		r.comp += d
		if r.open {
			r.base.Store(math.Float64bits(r.tv))
		}
	}
}

// Overhead adds d seconds of an MPI call's own time without using the host
// CPU, charged as communication: a poll's cost (package mpi, pollCost),
// which is the call's software overhead on the target, not the program's
// computation.
func (r *Rank) Overhead(d float64) {
	if d > 0 {
		r.tv += d
		r.comm += d
	}
}

// Bound is, for any goroutine, a lower bound on the rank's virtual time
// while it computes between MPI calls: t_V when the burst began, plus
// Elapse since, plus the burst's CPU time so far, scaled. Whatever the rank
// does next, it does at that time or later, so every message it will send
// arrives later still: the conservative protocol's bound for a rank that is
// neither parked nor in an MPI call (package mpi, virtual_stall.go). ok is
// false when the rank is not computing: in an MPI call, parked, or not
// started. The bound grows while the burst lasts.
func (r *Rank) Bound() (t float64, ok bool) {
	s := r.busy.Load()
	if s%2 == 0 {
		return 0, false
	}
	t = math.Float64frombits(r.base.Load())
	if c := r.cpu; c != nil {
		t += c.burstScale * c.meter.Running()
	}
	if r.busy.Load() != s {
		return 0, false // the burst ended meanwhile: what was read may be past its end
	}
	return t, true
}

// Reached is how far the rank's clock has gone, for a reader on another
// goroutine (a progress display, the partial report of a job that
// failed): t_V when its current or last computation burst opened, or,
// while it computes, the burst's bound so far. The rank's own fields are
// not read.
func (r *Rank) Reached() float64 {
	if t, ok := r.Bound(); ok {
		return t
	}
	return math.Float64frombits(r.base.Load())
}

// SimStart is E_Start: t_V = 0, t'1 = now.
func (r *Rank) SimStart() {
	r.tv = 0
	r.resume()
}

// SimEnd is E_End: t'2 = now, t_V += t'2 - t'1. t_V is then the rank's
// predicted execution time.
func (r *Rank) SimEnd() {
	r.pause()
	r.ended = true
	r.end = r.tv
}

// Begin is E_start of any communication activity: t'2 = now and
// t_V = t_V + (t'2 - t'1) (Eq. 1 and 2).
func (r *Rank) Begin() { r.pause() }

// Stamp is the arrival time t_a of a message of size bytes (0 for REQ and
// ACK) that this rank sends now to rank dst from DS, RS or AS (Sect. 4.2).
func (r *Rank) Stamp(size int64, dst int) float64 {
	_, ta := r.t.Transfer(r.tv, size, r.id, dst, &r.nic)
	return ta
}

// EndSend is E_end of DS, RS or AS: the sender is free once the message is
// in its message buffer, t_V = t_r(m) (Sect. 4.2). size is 0 for REQ / ACK.
func (r *Rank) EndSend(size int64) {
	tr := r.t.buffered(r.tv, size)
	r.comm += tr - r.tv
	r.tv = tr
	r.resume()
}

// EndRecv is E_end of DR: the DATA is copied from the message buffer to
// the user buffer, which takes size / B_mem (Sect. 4.3). It returns when the
// copy completes, t_V + size/B_mem, and leaves t_V alone: the waiting
// activity that completes the receive ends no earlier than that (Ready).
// The paper adds the copy to t_V at once; charging it to the wait instead
// gives the same time as Algorithm 3 gives when the same message reaches
// the host after the receive is posted (Deal with t_temp = the posting
// time), so the prediction does not depend on which the host saw first.
// The two differ only when the rank computes between Irecv and its wait,
// where this overlaps the copy with the computation.
func (r *Rank) EndRecv(size int64) (copied float64) {
	copied = r.tv + r.t.CopyTime(size)
	r.resume()
	return copied
}

// Abandon releases what the meter holds when the rank dies mid-burst (a
// panic or an aborted job; the rank's times are then meaningless), or
// after SimEnd, where a pinned meter (Pinner) still holds its thread.
func (r *Rank) Abandon() {
	if r.cpu != nil {
		r.cpu.meter.Abandon()
	}
}

// pause ends a computation burst (t'2 = now) and charges it to t_V.
func (r *Rank) pause() {
	if r.open {
		r.open = false
		r.busy.Add(1) // before the burst's end is read: see Bound
	}
	c := r.cpu
	if c == nil {
		return
	}
	d := c.burstScale * c.meter.End()
	r.tv += d
	r.comp += d
}

// resume starts a computation burst: t'1 = now, unless the engine's own
// work is in progress (EnterEngine), whose end starts it instead.
func (r *Rank) resume() {
	if r.engine != 0 {
		return
	}
	if !r.open {
		r.base.Store(math.Float64bits(r.tv)) // before the burst's t'1: not charged to it
	}
	if r.cpu != nil {
		r.cpu.meter.Begin()
	}
	if !r.open {
		r.open = true
		r.busy.Add(1) // after the meter's t'1 and thread are recorded: see Bound
	}
}

// EnterEngine says the MPI engine starts its own work inside a call
// (posting an operation, matching, a waiting phase): the computation burst
// in progress ends here (t_V += it) and none is measured until the
// matching LeaveEngine, whatever event points come between. Calls nest.
// Not in the paper, whose computation is everything between an end event
// and the next start event: in gompi that also held the engine's
// bookkeeping around the activities, charged as computation, while the
// target's MPI spends that time within o(s) (docs/model.md).
func (r *Rank) EnterEngine() {
	if r.engine == 0 {
		r.pause()
	}
	r.engine++
}

// LeaveEngine ends what EnterEngine began: the program computes again from
// here (t'1 = now) once the outermost bracket closes.
func (r *Rank) LeaveEngine() {
	if r.engine == 0 {
		return
	}
	if r.engine--; r.engine == 0 {
		r.resume()
	}
}

// Result is the rank's record for the report; valid after SimEnd.
func (r *Rank) Result() RankResult {
	res := RankResult{
		Rank: r.id, End: r.end, Finished: r.ended,
		Computation: r.comp, Communication: r.comm, Waiting: r.waiting,
		Waits: r.wait.num, HistoryMisses: int(r.wait.misses), HistoryKept: len(r.wait.hist),
	}
	if c := r.cpu; c != nil && c.hostConcurrency > 0 { // measured, and told the host's concurrency
		res.Contention, res.NodeRanks, res.HostConcurrency = c.contention, int(c.nodeRanks), int(c.hostConcurrency)
	}
	return res
}
