package vtime

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// Meter measures a rank's computation bursts: the CPU time its thread
// spends between an end event (Begin) and the next start event (End).
// Tests use a fake; ThreadCPU measures the real thread.
type Meter interface {
	// Begin starts a burst (t'1 = now).
	Begin()
	// End finishes the burst and returns its length in seconds (t'2 - t'1).
	End() float64
	// Peek is the length of the burst in progress, in seconds.
	Peek() float64
	// Abandon releases what Begin took, for a rank that dies mid-burst
	// or has ended.
	Abandon()
	// Running is the length of the burst in progress in seconds as
	// another goroutine sees it (0 when it cannot tell); safe to call from
	// any goroutine while a burst is measured (Rank.Bound).
	Running() float64
}

// ThreadCPU makes Meters that read the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID). For the reading to be the burst's own CPU time
// the goroutine must stay on one OS thread for the burst, so Begin locks
// it to its thread and End unlocks it. So that P ranks do not become P
// locked threads, at most slots ranks compute at once: Begin takes a slot
// (waiting while all are busy, which costs no CPU and so is not charged)
// and End gives it back. A pinned meter (Pinner) keeps both from one
// burst to the next.
//
// A reading of the clock is a system call, and the part of Begin's that
// follows its sample and the part of End's that precedes its sample lie
// inside the burst: measured, they would be charged as computation the
// program never did, once per MPI call (docs/model.md, "Cost"). So are the
// readings of a Peek (MPI_Wtime) inside a burst, whole. The factory
// measures both on this host when it is made, as the least a burst with
// nothing in it, and the least a Peek, adds, and meters subtract them:
// the least, so that no burst is charged less than its own computation.
//
// A burst shorter than shortBurst by the monotonic clock, which costs no
// system call, is charged that wall time instead (End's short path).
type ThreadCPU struct {
	slots chan struct{}
	// emptyBurst is the least length an End reports for a burst with
	// nothing in it, peekCost the least a Peek within a burst adds to it;
	// emptyWall is the least wall time of an empty burst's short path.
	emptyBurst, peekCost, emptyWall time.Duration
}

// shortBurst is the longest burst End measures by the monotonic clock
// (a read without a system call) instead of the thread's CPU clock (a
// system call). A thread that leaves its CPU within a burst is away for
// two context switches at least, longer than this, so a burst this short
// ran on its CPU throughout and its wall time is its CPU time. Between two
// MPI calls with no computation between them, the common case in a
// program's communication phases, End then makes no system call.
const shortBurst = time.Microsecond

// NewThreadCPU returns a meter factory allowing slots concurrent bursts
// (slots <= 0: GOMAXPROCS). It fails when the thread CPU clock is not
// available on this system.
func NewThreadCPU(slots int) (*ThreadCPU, error) {
	if _, err := threadNow(); err != nil {
		return nil, err
	}
	if slots <= 0 {
		slots = runtime.GOMAXPROCS(0)
	}
	c := &ThreadCPU{slots: make(chan struct{}, slots)}
	c.emptyBurst, c.peekCost, c.emptyWall = c.measureOwnCost()
	return c, nil
}

// ownCostSamples is how many bursts measureOwnCost times of each kind: a
// few hundred microseconds of a job's start on a host with slow system
// calls, enough for the least to be the floor.
const ownCostSamples = 64

// measureOwnCost returns the least measured length of a burst with
// nothing in it, the least that one Peek adds to a burst, and the least
// wall time of an empty burst's short path, over ownCostSamples bursts
// each, measured by the meters' own code.
func (c *ThreadCPU) measureOwnCost() (emptyBurst, peekCost, emptyWall time.Duration) {
	m := &threadMeter{gate: c}
	emptyBurst, withPeek := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	emptyWall = time.Duration(math.MaxInt64)
	for range ownCostSamples {
		m.Begin()
		d, _ := m.end(0)
		emptyBurst = min(emptyBurst, d)
		m.Begin()
		m.Peek()
		d, _ = m.end(0)
		withPeek = min(withPeek, d)
		m.Begin()
		emptyWall = min(emptyWall, time.Since(m.w1)) // as end's short path
		m.release()
	}
	return emptyBurst, max(withPeek-emptyBurst, 0), emptyWall
}

// OwnCost is what meters subtract from each burst measured by the
// thread's CPU clock, and from it for each Peek within it, and from each
// burst measured by the monotonic clock (shortBurst), in seconds: the
// measurement's own share of their lengths on this host (for reports and
// tests).
func (c *ThreadCPU) OwnCost() (emptyBurst, peek, emptyWall float64) {
	return c.emptyBurst.Seconds(), c.peekCost.Seconds(), c.emptyWall.Seconds()
}

// Slots is how many bursts may be measured at once.
func (c *ThreadCPU) Slots() int { return cap(c.slots) }

// Meter returns a meter for one rank; use it from that rank's goroutine.
func (c *ThreadCPU) Meter() Meter { return &threadMeter{gate: c} }

// Pinner is implemented by meters that can keep their rank's goroutine on
// one thread, with its compute slot, from one burst to the next
// (ThreadCPU's).
type Pinner interface {
	// Pin makes the meter keep its thread and slot after End, so that the
	// next Begin on the same thread neither waits for a slot nor asks the
	// system for the thread's id: its one system call is then the reading
	// of the thread's clock, and a short burst (End's short path) costs
	// no other. It returns unpin, which
	// lets go of both until the next Begin takes them again; unpin does
	// nothing while a burst is measured.
	//
	// A goroutine locked to its thread that yields its processor or
	// blocks hands the processor to another thread (runtime.LockOSThread),
	// a context switch each time: the rank's goroutine calls unpin before
	// it yields or sleeps while it waits (transport.Inbox.SetOnYield), and
	// before it switches to a coroutine, which the runtime requires to
	// find the thread-lock state it was made in.
	// Pin only the meter of a process's only measured rank: it keeps a
	// slot, and so the thread, between its bursts, which other ranks would
	// wait for. Call it before the first Begin, from the rank's goroutine
	// or before it starts.
	Pin() (unpin func())
}

type threadMeter struct {
	gate *ThreadCPU
	held bool
	// locked: the meter holds a slot and has locked the goroutine to the
	// thread whose id is lockedTid. Without pinned it is held.
	locked, pinned bool
	lockedTid      int32
	t1             time.Duration
	// peeked is the largest length a Peek of the burst in progress
	// returned: what End charges is never less, so that MPI_Wtime does
	// not go back.
	peeked time.Duration
	// w1 is the monotonic clock at t1; peekedAny says a Peek read the
	// thread's clock in this burst (whose End then reads it too).
	w1        time.Time
	peekedAny bool
	// bounded is the most Running returned in this burst (nanoseconds),
	// which End's short path never charges less than.
	bounded atomic.Int64
	// For Running, from other goroutines: the burst's thread and t1, and
	// the Peeks' cost so far (nanoseconds; the rank's goroutine writes it).
	tid     atomic.Int32
	shared1 atomic.Int64
	peeks   atomic.Int64
}

func (m *threadMeter) Begin() {
	if !m.locked {
		m.gate.slots <- struct{}{}
		runtime.LockOSThread()
		m.locked = true
		// The thread's id before t1: its system call is the
		// measurement's, not the rank's computation (BenchmarkBurstParts).
		m.lockedTid = int32(threadID())
	}
	m.held = true
	m.peeked, m.peekedAny = 0, false
	m.peeks.Store(0)
	m.bounded.Store(0)
	m.t1, _ = threadNow()
	m.w1 = time.Now() // after t1: the wall interval lies within the CPU one
	m.tid.Store(m.lockedTid)
	m.shared1.Store(int64(m.t1))
}

// length is the burst's length at reading t: what the clock says since
// t1 less the measurement's own cost (ThreadCPU), never less than a Peek
// returned, nor than 0.
func (m *threadMeter) length(t time.Duration) time.Duration {
	return max(t-m.t1-m.ownCost(), m.peeked, 0)
}

// ownCost is what the measurement has added to the burst in progress so
// far: its two readings' share, and each Peek's.
func (m *threadMeter) ownCost() time.Duration {
	return m.gate.emptyBurst + time.Duration(m.peeks.Load())
}

func (m *threadMeter) Running() float64 {
	tid := m.tid.Load()
	if tid <= 0 {
		return 0
	}
	t, err := threadCPUOf(int(tid))
	if err != nil {
		return 0
	}
	// Less the measurement's cost, as End: a bound, never more than End
	// will charge (each Peek after this reading adds at least what End
	// subtracts for it). End's short path measures by another clock, so
	// it is told what was returned.
	d := max(t-time.Duration(m.shared1.Load())-m.ownCost(), 0)
	for {
		b := m.bounded.Load()
		if int64(d) <= b || m.bounded.CompareAndSwap(b, int64(d)) {
			break
		}
	}
	return d.Seconds()
}

func (m *threadMeter) End() float64 {
	if !m.held {
		return 0
	}
	d, _ := m.end(shortBurst)
	return d.Seconds()
}

// end is End for a burst in progress, as a duration; a burst shorter
// than short by the monotonic clock, with no Peek, is charged its wall
// time less that clock's own share (ThreadCPU.emptyWall), and no less
// than Running returned meanwhile (byWall).
func (m *threadMeter) end(short time.Duration) (d time.Duration, byWall bool) {
	if w := time.Since(m.w1); w < short && !m.peekedAny {
		m.release()
		return max(w-m.gate.emptyWall, time.Duration(m.bounded.Load()), 0), true
	}
	t2, _ := threadNow()
	m.release()
	return m.length(t2), false
}

func (m *threadMeter) Peek() float64 {
	if !m.held {
		return 0
	}
	t, _ := threadNow()
	d := m.length(t)
	m.peekedAny = true
	m.peeks.Add(int64(m.gate.peekCost))
	m.peeked = d
	return d.Seconds()
}

func (m *threadMeter) Abandon() {
	m.held = false
	if m.locked {
		m.unlock()
	}
}

// release ends the burst's measurement: the thread and slot go back with
// it unless the meter is pinned.
func (m *threadMeter) release() {
	m.held = false
	if !m.pinned {
		m.unlock()
	}
}

func (m *threadMeter) unlock() {
	m.locked = false
	runtime.UnlockOSThread()
	<-m.gate.slots
}

func (m *threadMeter) Pin() (unpin func()) {
	m.pinned = true
	return m.unpin
}

func (m *threadMeter) unpin() {
	if m.locked && !m.held {
		m.unlock()
	}
}
