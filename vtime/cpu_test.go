package vtime

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// burn spins for d of this thread's CPU time.
func burn(d time.Duration) {
	start, _ := threadNow()
	x := 1.0
	for {
		for i := 0; i < 1000; i++ {
			x = x*1.0000001 + 1e-9
		}
		if now, _ := threadNow(); now-start >= d {
			break
		}
	}
	if x == 0 {
		println()
	}
}

// TestThreadCPUChargesOwnBurst: a rank that burns a known amount of CPU
// while other goroutines compete for the same cores is charged that amount
// (within 5%), not the wall time it took.
func TestThreadCPUChargesOwnBurst(t *testing.T) {
	cpu, err := NewThreadCPU(0)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < 2*runtime.GOMAXPROCS(0); i++ { // competitors
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				x++
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()

	const want = 60 * time.Millisecond
	tg := tianhe(t, 2)
	r := NewRank(tg, 0, cpu.Meter(), 1)
	r.SimStart()
	wall := time.Now()
	burn(want)
	r.SimEnd()
	got := r.Result().Computation
	if d := got - want.Seconds(); d < -0.05*want.Seconds() || d > 0.05*want.Seconds() {
		t.Errorf("charged %.4f s for a %.4f s burn (wall %v)", got, want.Seconds(), time.Since(wall))
	}
}

// TestThreadCPUSubtractsItsOwnCost: a meter subtracts what its own clock
// readings add to a burst (ThreadCPU), and only that. A burst with nothing
// in it, measured at about that cost, is charged a fraction of it; a burst
// that burns CPU is charged at least what the burn's own readings of the
// clock say it burnt; Peeks (MPI_Wtime) never go back, and End never
// reports less than the last Peek.
func TestThreadCPUSubtractsItsOwnCost(t *testing.T) {
	cpu, err := NewThreadCPU(0)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	empty, peek, wall := cpu.OwnCost()
	t.Logf("own cost: %.0f ns a burst, %.0f ns a Peek, %.0f ns a short burst", empty*1e9, peek*1e9, wall*1e9)
	if empty <= 0 || empty > 1e-3 || peek < 0 || peek > 1e-3 {
		t.Fatalf("own cost %g s a burst, %g s a Peek: want (0, 1 ms] and [0, 1 ms]", empty, peek)
	}
	if wall < 0 || wall >= shortBurst.Seconds() {
		t.Fatalf("own cost %g s a short burst: want [0, %v)", wall, shortBurst)
	}
	m := cpu.Meter().(*threadMeter)
	charged := make([]float64, 101)
	for i := range charged {
		m.Begin()
		d, _ := m.end(0) // by the CPU clock, as a burst past shortBurst
		charged[i] = d.Seconds()
	}
	sort.Float64s(charged)
	if med := charged[len(charged)/2]; med >= empty {
		t.Errorf("an empty burst is charged %.0f ns (median) by the CPU clock, not less than its cost %.0f ns", med*1e9, empty*1e9)
	}
	for range 20 {
		m.Begin()
		start, _ := threadNow()
		burn(200 * time.Microsecond)
		end, _ := threadNow()
		if got := m.End(); got < (end - start).Seconds() {
			t.Fatalf("a burst that burnt %v was charged %.0f ns", end-start, got*1e9)
		}
	}
	m.Begin()
	last := 0.0
	for range 50 {
		p := m.Peek()
		if p < last {
			t.Fatalf("Peek went back from %g to %g s", last, p)
		}
		last = p
	}
	if got := m.End(); got < last {
		t.Fatalf("End charged %g s after a Peek of %g s", got, last)
	}
}

// TestThreadCPUShortBurstByWallClock: a burst shorter than shortBurst by
// the monotonic clock is measured by it, and charged no more than its
// wall time and never less than Running returned for it; a burst that
// burns longer is measured by the thread's CPU clock, which charges at
// least what it burnt.
func TestThreadCPUShortBurstByWallClock(t *testing.T) {
	cpu, err := NewThreadCPU(0)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	m := cpu.Meter().(*threadMeter)
	byWall := 0
	for range 200 {
		w0 := time.Now()
		m.Begin()
		d, wall := m.end(shortBurst)
		if w := time.Since(w0); wall {
			byWall++
			if d > w {
				t.Fatalf("a burst within %v of wall time was charged %v", w, d)
			}
		}
	}
	if byWall == 0 {
		t.Fatal("no empty burst of 200 was measured by the monotonic clock")
	}
	for range 200 {
		m.Begin()
		r := m.Running()
		if got := m.End(); got < r {
			t.Fatalf("End charged %.0f ns after Running said %.0f ns", got*1e9, r*1e9)
		}
	}
	// What another goroutine's Running returned (its clock may run ahead
	// of the monotonic one's reading): a short burst is charged no less.
	for range 200 {
		m.Begin()
		m.bounded.Store(int64(shortBurst / 2))
		if d, wall := m.end(shortBurst); wall && d < shortBurst/2 {
			t.Fatalf("a short burst was charged %v after Running said %v", d, shortBurst/2)
		}
	}
	for range 20 {
		m.Begin()
		start, _ := threadNow()
		burn(2 * shortBurst)
		end, _ := threadNow()
		d, wall := m.end(shortBurst)
		if wall || d < end-start {
			t.Fatalf("a burst that burnt %v was charged %v (by the monotonic clock: %v)", end-start, d, wall)
		}
	}
}

// TestThreadCPUPinnedMeterKeepsItsThread: a pinned meter (Pinner) keeps
// its slot and its goroutine's thread from one burst to the next, where an
// unpinned one gives them back at each End; the next Begin takes no
// second slot. unpin gives both back between bursts and does nothing
// within one; the Begin after it takes them again and reads the thread's
// id anew; Abandon after the last burst gives them back. A pinned meter's
// burst is charged the CPU time it burnt, as an unpinned one's.
func TestThreadCPUPinnedMeterKeepsItsThread(t *testing.T) {
	cpu, err := NewThreadCPU(2)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	slots := func() int { return len(cpu.slots) }
	plain := cpu.Meter().(*threadMeter)
	plain.Begin()
	plain.End()
	if n := slots(); n != 0 || plain.locked {
		t.Fatalf("after End an unpinned meter holds %d slots (locked %v), want none", n, plain.locked)
	}

	m := cpu.Meter().(*threadMeter)
	unpin := m.Pin()
	m.Begin()
	m.End()
	if n := slots(); n != 1 || !m.locked {
		t.Fatalf("after End a pinned meter holds %d slots (locked %v), want 1", n, m.locked)
	}
	m.Begin()
	if n := slots(); n != 1 {
		t.Fatalf("a pinned meter's second burst holds %d slots, want 1", n)
	}
	if id := threadID(); int32(id) != m.lockedTid || m.tid.Load() != m.lockedTid {
		t.Fatalf("the burst runs on thread %d, the meter says %d (shared %d)", id, m.lockedTid, m.tid.Load())
	}
	start, _ := threadNow()
	burn(20 * time.Millisecond)
	end, _ := threadNow()
	if got, burnt := m.End(), (end - start).Seconds(); got < burnt || got > 1.05*burnt {
		t.Errorf("a pinned burst that burnt %.4f s was charged %.4f s", burnt, got)
	}

	m.Begin()
	unpin()
	if n := slots(); n != 1 || !m.locked {
		t.Fatalf("unpin within a burst left %d slots (locked %v), want 1 and locked", n, m.locked)
	}
	m.End()
	unpin()
	if n := slots(); n != 0 || m.locked {
		t.Fatalf("unpin between bursts left %d slots (locked %v), want none", n, m.locked)
	}
	m.lockedTid = -1 // the next Begin must read it again
	m.Begin()
	if n := slots(); n != 1 || int32(threadID()) != m.lockedTid {
		t.Fatalf("the Begin after unpin holds %d slots, thread %d (meter: %d)", n, threadID(), m.lockedTid)
	}
	m.End()
	m.Abandon()
	if n := slots(); n != 0 || m.locked {
		t.Fatalf("Abandon after the last burst left %d slots (locked %v)", n, m.locked)
	}
}

// TestThreadCPUBoundsConcurrentBursts: no more than slots ranks are inside
// a burst at once.
func TestThreadCPUBoundsConcurrentBursts(t *testing.T) {
	cpu, err := NewThreadCPU(2)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	var in, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := cpu.Meter()
			for k := 0; k < 20; k++ {
				m.Begin()
				n := in.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(100 * time.Microsecond)
				in.Add(-1)
				m.End()
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak concurrent bursts %d, want 1..2", p)
	}
}

// TestRankBoundWhileComputing: while a rank computes, another goroutine
// reads a lower bound on its clock that grows with the CPU time the rank's
// thread spends (read through that thread's clock) and with Elapse, never
// passes what the burst is charged, and is gone once the rank is in an MPI
// activity.
func TestRankBoundWhileComputing(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two processors: the reader must run while the rank computes, not only when the runtime preempts it")
	}
	cpu, err := NewThreadCPU(0)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	r := NewRank(tianhe(t, 2), 0, cpu.Meter(), 2) // cpu-scale 2
	if _, ok := r.Bound(); ok {
		t.Fatal("a bound before the rank started")
	}
	half, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		r.SimStart()
		burn(20 * time.Millisecond)
		r.Elapse(1)
		close(half)
		burn(20 * time.Millisecond)
		r.Begin() // an MPI activity starts: the burst is charged
		<-half
	}()
	<-half
	b1, ok := r.Bound()
	if !ok || b1 < 1+2*0.019 {
		t.Fatalf("bound %v (ok %v) after 20 ms of CPU at scale 2 and Elapse(1): want at least 1.038", b1, ok)
	}
	var b2 float64
	for {
		b, ok := r.Bound()
		if !ok {
			break
		}
		if b < b2 {
			t.Fatalf("the bound went back from %v to %v", b2, b)
		}
		b2 = b
		time.Sleep(time.Millisecond)
	}
	<-done
	if b2 <= b1 || b2 > r.Now() {
		t.Errorf("bound grew from %v to %v; the burst ended at t_V = %v", b1, b2, r.Now())
	}
}

// Reached, read from another goroutine, is the bound while the rank
// computes and t_V at the burst's start once it is in an MPI activity,
// never more than t_V: what a progress line or a partial report shows.
func TestRankReached(t *testing.T) {
	cpu, err := NewThreadCPU(0)
	if err != nil {
		t.Skipf("thread CPU clock unavailable: %v", err)
	}
	r := NewRank(tianhe(t, 2), 0, cpu.Meter(), 1)
	if got := r.Reached(); got != 0 {
		t.Fatalf("reached %v before the start", got)
	}
	computing, inMPI, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		r.SimStart()
		r.Elapse(2)
		burn(5 * time.Millisecond)
		close(computing)
		<-inMPI
		r.Begin() // an MPI activity: the burst is charged, no bound
		inMPI <- struct{}{}
		<-inMPI
	}()
	<-computing
	if got := r.Reached(); got < 2 {
		t.Fatalf("reached %v while computing after Elapse(2)", got)
	}
	inMPI <- struct{}{}
	<-inMPI
	got := r.Reached()
	close(inMPI)
	<-done
	if got < 2 || got > r.Now() {
		t.Errorf("reached %v in an MPI activity; t_V %v", got, r.Now())
	}
}
