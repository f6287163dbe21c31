package vtime

import (
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
	// Abandon releases what Begin took, for a rank that dies mid-burst.
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
// and End gives it back.
type ThreadCPU struct {
	slots chan struct{}
}

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
	return &ThreadCPU{slots: make(chan struct{}, slots)}, nil
}

// Slots is how many bursts may be measured at once.
func (c *ThreadCPU) Slots() int { return cap(c.slots) }

// Meter returns a meter for one rank; use it from that rank's goroutine.
func (c *ThreadCPU) Meter() Meter { return &threadMeter{gate: c} }

type threadMeter struct {
	gate *ThreadCPU
	held bool
	t1   time.Duration
	// For Running, from other goroutines: the burst's thread and t1.
	tid     atomic.Int32
	shared1 atomic.Int64
}

func (m *threadMeter) Begin() {
	m.gate.slots <- struct{}{}
	runtime.LockOSThread()
	m.held = true
	// The thread's id before t1: its system call is the measurement's,
	// not the rank's computation (BenchmarkBurstParts).
	tid := threadID()
	m.t1, _ = threadNow()
	m.tid.Store(int32(tid))
	m.shared1.Store(int64(m.t1))
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
	return max(t-time.Duration(m.shared1.Load()), 0).Seconds()
}

func (m *threadMeter) End() float64 {
	if !m.held {
		return 0
	}
	t2, _ := threadNow()
	m.release()
	return max(t2-m.t1, 0).Seconds()
}

func (m *threadMeter) Peek() float64 {
	if !m.held {
		return 0
	}
	t, _ := threadNow()
	return max(t-m.t1, 0).Seconds()
}

func (m *threadMeter) Abandon() {
	if m.held {
		m.release()
	}
}

func (m *threadMeter) release() {
	m.held = false
	runtime.UnlockOSThread()
	<-m.gate.slots
}
