package launch

import (
	"math"
	"testing"
	"time"
)

// Tests of the job-wide stall decision (quiesce.go) as a pure function of
// the samples processes send, in the order gompirun receives them.

// quiet is a process whose ranks are all parked.
func quiet(sent, recvd int64, activity uint64, parked int) Sample {
	return Sample{Quiet: true, Sent: sent, Recvd: recvd, Activity: activity, Parked: parked, Rank: -1}
}

func holding(s Sample, t float64, rank int) Sample {
	s.Cand, s.T, s.Rank = true, t, rank
	return s
}

func answer(s Sample, wave uint64) Sample {
	s.Wave = wave
	return s
}

// wantProbe checks that a starts a wave and returns its number.
func wantProbe(t *testing.T, a Action) uint64 {
	t.Helper()
	if a.Probe == 0 || a.Resolve || a.Deadlock {
		t.Fatalf("got %+v, want a probe", a)
	}
	return a.Probe
}

func wantNothing(t *testing.T, a Action) {
	t.Helper()
	if a != (Action{}) {
		t.Fatalf("got %+v, want nothing", a)
	}
}

// Two processes parked, nothing in flight: the first wave confirms and the
// process holding the earlier candidate is told to resolve.
func TestDetectorResolvesTheEarliestCandidate(t *testing.T) {
	d := NewDetector(2)
	p0 := holding(quiet(3, 2, 10, 2), 2e-3, 1)
	p1 := holding(quiet(2, 3, 7, 2), 1e-3, 3)
	// Process 0 parks holding a candidate; process 1 has not been heard:
	// everyone is asked.
	w1 := wantProbe(t, d.Report(0, p0))
	wantNothing(t, d.Report(0, answer(p0, w1)))
	// Process 1 is parked too, but what was known before the wave said
	// nothing of it: a second wave, which confirms.
	w2 := wantProbe(t, d.Report(1, answer(p1, w1)))
	wantNothing(t, d.Report(1, answer(p1, w2)))
	a := d.Report(0, answer(p0, w2))
	if !a.Resolve || a.Proc != 1 || a.Rank != 3 {
		t.Fatalf("got %+v, want process 1 to resolve rank 3", a)
	}
	if all, spec := d.Resolved(); all != 1 || spec != 0 {
		t.Fatalf("resolved %d, %d speculatively", all, spec)
	}
	// The order counts as sent until process 1 reports it consumed: a
	// sample without it is not balanced; with a candidate, it refreshes
	// what is known, which confirms nothing.
	w := wantProbe(t, d.Report(1, p1))
	wantNothing(t, d.Report(1, answer(p1, w)))
	wantNothing(t, d.Report(0, answer(p0, w)))
	wantNothing(t, d.Report(1, quiet(3, 4, 11, 2)))   // order consumed; rank 3 sent a frame to process 0: in flight
	w = wantProbe(t, d.Report(0, quiet(3, 3, 12, 2))) // process 0 took it: balanced
	// Process 0 wakes again and sends before the probe reaches it: no
	// verdict, and its answer shows a frame in flight again.
	wantNothing(t, d.Report(0, answer(quiet(4, 3, 13, 2), w)))
	wantNothing(t, d.Report(1, answer(quiet(3, 4, 11, 2), w)))
	// Process 1 takes it: balanced again, a new wave.
	if w2 := wantProbe(t, d.Report(1, quiet(3, 5, 12, 2))); w2 == w {
		t.Fatal("the new wave reuses the old number")
	}
}

// Equal arrival times go to the lowest rank, whichever process reports it.
func TestDetectorTiesGoToTheLowestRank(t *testing.T) {
	d := NewDetector(3)
	ss := []Sample{holding(quiet(1, 1, 1, 1), 5e-6, 4), holding(quiet(1, 1, 1, 1), 5e-6, 2), holding(quiet(1, 1, 1, 1), 6e-6, 0)}
	a := d.Report(0, ss[0])
	d.Report(1, ss[1])
	d.Report(2, ss[2])
	if a = settle(d, ss, a); !a.Resolve || a.Proc != 1 || a.Rank != 2 {
		t.Fatalf("got %+v, want process 1 to resolve rank 2", a)
	}
}

// settle answers every wave with the processes' samples until the detector
// does something else.
func settle(d *Detector, ss []Sample, a Action) Action {
	for i := 0; a.Probe != 0 && i < 10; i++ {
		w := a.Probe
		a = Action{}
		for p := len(ss) - 1; p >= 0; p-- {
			if b := d.Report(p, answer(ss[p], w)); b != (Action{}) {
				a = b
			}
		}
	}
	return a
}

// A frame in flight (sent by one process, not consumed by the other)
// keeps the job from being judged stalled, although both are parked.
func TestDetectorWaitsForFramesInFlight(t *testing.T) {
	d := NewDetector(2)
	p0 := holding(quiet(5, 4, 1, 1), 1e-3, 0)
	wantNothing(t, d.Report(1, quiet(4, 4, 1, 1)))
	// 9 sent, 8 consumed: the candidate's holder gets everyone asked, and
	// the answers do not balance.
	if a := settle(d, []Sample{p0, quiet(4, 4, 1, 1)}, d.Report(0, p0)); a != (Action{}) {
		t.Fatalf("got %+v with a frame in flight", a)
	}
	// The receiver wakes, takes it and parks again: now balanced.
	w := wantProbe(t, d.Report(1, quiet(4, 5, 2, 1)))
	wantNothing(t, d.Report(0, answer(holding(quiet(5, 4, 1, 1), 1e-3, 0), w)))
	if a := d.Report(1, answer(quiet(4, 5, 2, 1), w)); !a.Resolve || a.Proc != 0 || a.Rank != 0 {
		t.Fatalf("got %+v", a)
	}
}

// The classic counter-example to a single snapshot: process 0 reported
// parked, then took a frame, sent one to process 1, which took it and
// parked; process 2 sent the first frame before it parked. The latest
// samples balance, but the wave finds process 0's state changed (or not
// quiet): no resolve.
func TestDetectorProcessWakingBetweenWaves(t *testing.T) {
	d := NewDetector(3)
	p0 := holding(quiet(0, 0, 1, 1), 1e-3, 0)
	wantNothing(t, d.Report(1, quiet(0, 1, 1, 1)))
	wantNothing(t, d.Report(2, quiet(1, 0, 1, 1)))
	w := wantProbe(t, d.Report(0, p0))
	// Process 0 is awake when probed: it answers not quiet.
	wantNothing(t, d.Report(0, answer(Sample{}, w)))
	wantNothing(t, d.Report(1, answer(quiet(0, 1, 1, 1), w)))
	wantNothing(t, d.Report(2, answer(quiet(1, 0, 1, 1), w)))
	// Same story, but process 0 is parked again by the probe, in another
	// nap: its counters moved too.
	d = NewDetector(3)
	wantNothing(t, d.Report(1, quiet(0, 1, 1, 1)))
	wantNothing(t, d.Report(2, quiet(1, 0, 1, 1)))
	w = wantProbe(t, d.Report(0, p0))
	wantNothing(t, d.Report(0, answer(quiet(1, 1, 2, 1), w)))
	wantNothing(t, d.Report(1, answer(quiet(0, 1, 1, 1), w)))
	// 2 sent, 2 received now, all quiet: a second wave, not a verdict.
	wantProbe(t, d.Report(2, answer(quiet(1, 0, 1, 1), w)))
	// A rank that woke and slept again without sending or receiving across
	// processes changes only the activity: that too blocks the verdict.
	d = NewDetector(1)
	w = wantProbe(t, d.Report(0, holding(quiet(0, 0, 4, 2), 1e-3, 1)))
	if a := d.Report(0, answer(holding(quiet(0, 0, 5, 2), 1e-3, 1), w)); a.Resolve {
		t.Fatalf("resolved across a wake-up: %+v", a)
	}
}

// A report that comes while a wave is out, and balances the counters the
// wave's answers do not, starts the next wave as soon as that one ends (it
// once waited for a tick: 200 ms per stall, now and then).
func TestDetectorReportDuringWave(t *testing.T) {
	d := NewDetector(2)
	p0 := holding(quiet(1, 0, 1, 1), 1e-3, 0) // sent a frame to process 1
	p1 := quiet(0, 0, 1, 1)
	wantNothing(t, d.Report(1, p1))
	w := wantProbe(t, d.Report(0, p0)) // a candidate: everyone is asked
	wantNothing(t, d.Report(1, answer(p1, w)))
	wantNothing(t, d.Report(1, quiet(0, 1, 2, 1))) // took the frame, parked again
	if w2 := wantProbe(t, d.Report(0, answer(p0, w))); w2 == w {
		t.Fatal("same wave")
	}
}

// A wave's answer that arrives after an unasked sample of a later state
// still counts for its wave; answers to old waves are ignored.
func TestDetectorStaleAnswers(t *testing.T) {
	d := NewDetector(2)
	s0, s1 := holding(quiet(1, 1, 3, 1), 1e-3, 0), quiet(1, 1, 3, 1)
	d.Report(1, s1)
	w := wantProbe(t, d.Report(0, s0))
	wantNothing(t, d.Report(0, answer(s0, w+7))) // not this wave
	wantNothing(t, d.Report(0, answer(s0, w)))
	if a := d.Report(1, answer(s1, w)); !a.Resolve || a.Rank != 0 {
		t.Fatalf("got %+v", a)
	}
}

// All parked, nothing in flight, no early message anywhere: a deadlock, but
// only after DeadlockStrikes waves (the later ones started by ticks) that
// all see the same state; a process that finished (gone) counts with its
// last sample.
func TestDetectorDeadlock(t *testing.T) {
	d := NewDetector(2)
	p0 := quiet(1, 1, 3, 1)
	p0.Rank, p0.Blocked = 0, "rank 0 in Wait"
	d.Report(1, quiet(0, 0, 1, 0)) // finished
	wantNothing(t, d.Gone(1))
	w := wantProbe(t, d.Report(0, p0))
	a := d.Report(0, answer(p0, w))
	for strike := 2; strike <= DeadlockStrikes; strike++ {
		wantNothing(t, a)
		w = wantProbe(t, d.Tick())
		a = d.Report(0, answer(p0, w))
	}
	if !a.Deadlock || a.Proc != 0 || a.Rank != 0 || a.Blocked != "rank 0 in Wait" {
		t.Fatalf("got %+v, want a deadlock", a)
	}
	// A change between strikes starts the count again.
	d = NewDetector(1)
	w = wantProbe(t, d.Report(0, p0))
	wantNothing(t, d.Report(0, answer(p0, w))) // strike 1
	w = wantProbe(t, d.Tick())
	changed := p0
	changed.Activity++
	w = wantProbe(t, d.Report(0, answer(changed, w))) // no verdict: a new wave at once
	for strike := 1; strike < DeadlockStrikes; strike++ {
		wantNothing(t, d.Report(0, answer(changed, w)))
		w = wantProbe(t, d.Tick())
	}
	if a := d.Report(0, answer(changed, w)); !a.Deadlock {
		t.Fatalf("got %+v, want a deadlock %d strikes after the change", a, DeadlockStrikes)
	}
	// Every rank finished: nothing to report.
	d = NewDetector(1)
	w = wantProbe(t, d.Report(0, quiet(0, 0, 0, 0)))
	wantNothing(t, d.Report(0, answer(quiet(0, 0, 0, 0), w)))
	wantNothing(t, d.Report(0, answer(quiet(0, 0, 0, 0), wantProbe(t, d.Tick()))))
}

// Every process parked, samples unchanged, counters that never balance (a
// miscount): after StuckTicks ticks the holder of the earliest early
// message is told to resolve, speculatively. A change restarts the count.
func TestDetectorFallbackWhenCountersNeverBalance(t *testing.T) {
	d := NewDetector(2)
	p0, p1 := holding(quiet(1, 0, 2, 1), 3e-3, 0), holding(quiet(0, 0, 2, 1), 2e-3, 1)
	settle(d, []Sample{p0, p1}, d.Report(1, p1))
	settle(d, []Sample{p0, p1}, d.Report(0, p0))
	tick := func() Action {
		a := d.Tick()
		if a.Probe != 0 {
			wantNothing(t, d.Report(0, answer(p0, a.Probe)))
			wantNothing(t, d.Report(1, answer(p1, a.Probe)))
		}
		return a
	}
	for i := 0; i < StuckTicks; i++ {
		if a := tick(); a.Probe == 0 {
			t.Fatalf("tick %d: got %+v, want a probe", i, a)
		}
	}
	p1.Activity++ // a rank woke and slept again: the count restarts
	if a := settle(d, []Sample{p0, p1}, d.Report(1, p1)); a != (Action{}) {
		t.Fatalf("got %+v", a)
	}
	for i := 0; i < StuckTicks; i++ {
		if a := tick(); a.Probe == 0 {
			t.Fatalf("tick %d after the change: got %+v, want a probe", i, a)
		}
	}
	a := tick()
	if !a.Resolve || !a.Speculative || a.Proc != 1 || a.Rank != 1 {
		t.Fatalf("got %+v, want process 1 to resolve rank 1 speculatively", a)
	}
	if all, spec := d.Resolved(); all != 1 || spec != 1 {
		t.Fatalf("resolved %d, %d speculatively", all, spec)
	}
}

// A wave a process does not answer is abandoned after AbandonTicks ticks.
func TestDetectorAbandonsUnansweredWaves(t *testing.T) {
	d := NewDetector(2)
	d.Report(0, quiet(0, 0, 1, 1))
	w := wantProbe(t, d.Report(1, quiet(0, 0, 1, 1)))
	wantNothing(t, d.Report(0, answer(quiet(0, 0, 1, 1), w)))
	for i := 1; i < AbandonTicks; i++ {
		wantNothing(t, d.Tick())
	}
	if w2 := wantProbe(t, d.Tick()); w2 == w {
		t.Fatal("same wave number")
	}
	wantNothing(t, d.Report(1, answer(quiet(0, 0, 1, 1), w))) // too late
}

func (s Sample) with(sent, recvd int64) Sample {
	s.Sent, s.Recvd = sent, recvd
	return s
}

// Out-of-range processes and processes that left are ignored.
func TestDetectorBadInput(t *testing.T) {
	d := NewDetector(1)
	wantNothing(t, d.Report(-1, quiet(0, 0, 0, 1)))
	wantNothing(t, d.Report(1, quiet(0, 0, 0, 1)))
	wantNothing(t, d.Gone(5))
	d.Gone(0)
	wantNothing(t, d.Report(0, quiet(0, 0, 0, 1)))
}

// The watch connections end to end: two agents report parked processes,
// answer gompirun's probe, and the one holding the earliest early message
// gets the order to resolve; closing the server ends both connections.
func TestWatchOverTheExchange(t *testing.T) {
	s, path := testServer(t, 2)
	if _, err := DialWatch(&Env{Exchange: path, Token: "bad", Proc: 0}); err == nil {
		t.Fatal("a watch with the wrong token was accepted")
	}
	state := []Sample{holding(quiet(1, 0, 5, 1), 2e-3, 0), holding(quiet(0, 1, 5, 1), 1e-3, 1)}
	orders := make(chan [2]int, 4)
	ended := make(chan int, 2)
	var ws []*Watch
	for p := range state {
		w := testWatch(t, path, p)
		ws = append(ws, w)
		go func() {
			for {
				o, err := w.Next()
				if err != nil {
					ended <- p
					return
				}
				if o.Probe != 0 {
					w.Send(answer(state[p], o.Probe))
				} else if o.Resolve {
					orders <- [2]int{p, o.Rank}
				}
			}
		}()
	}
	for p, w := range ws {
		if err := w.Send(state[p]); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case o := <-orders:
		if o != [2]int{1, 1} {
			t.Fatalf("process %d told to resolve rank %d; want process 1, rank 1", o[0], o[1])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no order")
	}
	if all, spec := s.StallsResolved(); all != 1 || spec != 0 {
		t.Fatalf("resolved %d, %d speculatively", all, spec)
	}
	s.Close()
	for range ws {
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatal("a watch connection outlived the server")
		}
	}
	for _, w := range ws {
		w.Close()
	}
}

// A resolve order carries Until, the earliest candidate of every other
// rank (those of other processes, and the resolving process's others in
// its Next), and Settled, the resolved candidate's time, which later
// probes carry too; alone in the job a candidate's Until is unbounded.
func TestDetectorBoundsUntilAndSettled(t *testing.T) {
	resolve := func(ss []Sample) (*Detector, Action) {
		d := NewDetector(len(ss))
		var a Action
		for p := range ss {
			if b := d.Report(p, ss[p]); b != (Action{}) {
				a = b
			}
		}
		return d, settle(d, ss, a)
	}
	p0 := holding(quiet(1, 1, 1, 2), 1e-3, 1)
	p0.Next = 4e-3
	d, a := resolve([]Sample{p0, holding(quiet(1, 1, 1, 1), 3e-3, 2), quiet(1, 1, 1, 1)})
	if !a.Resolve || a.Proc != 0 || a.Rank != 1 || a.Until != 3e-3 || a.Settled != 1e-3 {
		t.Fatalf("got %+v, want process 0 to resolve rank 1 with Until 3e-3 and Settled 1e-3", a)
	}
	// The order consumed, a rank holds a candidate again: the probe that
	// follows carries the settled time.
	if p := d.Report(0, holding(quiet(1, 2, 2, 2), 2e-3, 0)); p.Probe == 0 || p.Settled != 1e-3 {
		t.Fatalf("got %+v, want a probe carrying Settled 1e-3", p)
	}

	p0.Next = 2e-3
	if _, a = resolve([]Sample{p0, holding(quiet(1, 1, 1, 1), 3e-3, 2)}); !a.Resolve || a.Until != 2e-3 {
		t.Fatalf("got %+v, want Until 2e-3, the next candidate of the resolving process", a)
	}
	if _, a = resolve([]Sample{holding(quiet(1, 1, 1, 1), 3e-3, 0), quiet(1, 1, 1, 1)}); !a.Resolve || !math.IsInf(a.Until, 1) {
		t.Fatalf("got %+v, want an unbounded Until with no other candidate", a)
	}
}

// A process whose watch connection opens while a wave is out is sent that
// wave's probe at once: the wave does not wait for it until abandoned.
func TestWatchLateJoinerGetsTheWaveInFlight(t *testing.T) {
	_, path := testServer(t, 2)
	early := testWatch(t, path, 0)
	if err := early.Send(holding(quiet(0, 0, 1, 1), 1e-3, 0)); err != nil {
		t.Fatal(err)
	}
	o, err := early.Next() // the wave, sent to process 0 alone
	if err != nil || o.Probe == 0 {
		t.Fatalf("process 0 got %+v, %v; want a probe", o, err)
	}
	late := testWatch(t, path, 1)
	got := make(chan Order, 1)
	go func() {
		o, _ := late.Next()
		got <- o
	}()
	select {
	case lo := <-got:
		if lo.Probe != o.Probe || !lo.Arm {
			t.Fatalf("the late process got %+v, want the probe of wave %d, armed", lo, o.Probe)
		}
	case <-time.After(TickEvery / 2):
		t.Fatal("the late process was not probed before the next tick")
	}
}

// Ranks computing between MPI calls count as quiet with a bound on what
// they do next: a candidate before every bound is resolved (and Until is
// no later than the least bound), one at or after it waits for a later
// wave, and such a job is never judged deadlocked.
func TestDetectorComputingRanks(t *testing.T) {
	computing := func(s Sample, bound float64) Sample {
		s.Computing, s.Bound = 1, bound
		return s
	}
	d := NewDetector(2)
	ss := []Sample{holding(quiet(1, 1, 1, 1), 2e-3, 0), computing(quiet(1, 1, 1, 0), 1e-3)}
	a := d.Report(0, ss[0])
	d.Report(1, ss[1])
	if a = settle(d, ss, a); a != (Action{}) {
		t.Fatalf("got %+v with a computing rank at 1e-3 before the candidate at 2e-3, want nothing", a)
	}
	for range DeadlockStrikes + 1 {
		if a = settle(d, ss, d.Tick()); a != (Action{}) {
			t.Fatalf("tick: got %+v, want nothing (no deadlock while a rank computes)", a)
		}
	}
	ss[1].Bound = 5e-3 // its clock has passed the candidate
	a = settle(d, ss, d.Tick())
	if !a.Resolve || a.Proc != 0 || a.Until != 5e-3 {
		t.Fatalf("got %+v, want process 0 to resolve, Until the computing rank's 5e-3", a)
	}
}

// A wave starts only where it could end in an order: with every process
// quiet, balanced, but one rank computing and no candidate anywhere, the
// wave would conclude nothing (a virtual run whose ranks take turns
// computing and waiting looks like that all the time), so none starts
// until a rank holds a candidate earlier than the computing rank's bound,
// or the computing rank parks too.
func TestDetectorStartsOnlyDecisiveWaves(t *testing.T) {
	computing := func(s Sample, bound float64) Sample {
		s.Computing, s.Bound = 1, bound
		return s
	}
	d := NewDetector(2)
	wantNothing(t, d.Report(0, quiet(1, 1, 1, 1)))
	wantNothing(t, d.Report(1, computing(quiet(1, 1, 1, 0), 1e-3)))
	wantNothing(t, d.Report(1, computing(quiet(1, 1, 1, 0), 2e-3))) // it computes on
	wantProbe(t, d.Report(1, quiet(1, 1, 2, 1)))                    // and parks: a deadlock, maybe

	d = NewDetector(2)
	wantNothing(t, d.Report(1, computing(quiet(1, 1, 1, 0), 1e-3)))
	held := holding(quiet(1, 1, 1, 1), 5e-4, 0)
	held.Quiet = false // not yet parked: its report starts no wave of its own
	wantNothing(t, d.Report(0, held))
	held.Quiet = true
	wantProbe(t, d.Report(0, held))

	if !decisive([]Sample{holding(quiet(1, 1, 1, 1), 5e-4, 0), computing(quiet(1, 1, 1, 0), 1e-3)}) ||
		decisive([]Sample{holding(quiet(1, 1, 1, 1), 2e-3, 0), computing(quiet(1, 1, 1, 0), 1e-3)}) ||
		decisive([]Sample{quiet(1, 1, 1, 1), computing(quiet(1, 1, 1, 0), 1e-3)}) ||
		!decisive([]Sample{quiet(1, 1, 1, 1), quiet(1, 1, 1, 2)}) {
		t.Error("decisive: want a wave for a candidate before every bound, or for every rank parked; none otherwise")
	}
}

// Pending says when gompirun's orders wait unread on a watch connection:
// not before any, yes once the detector's tick has probed, no again once
// the agent has read the probe, and no after Close.
func TestWatchPending(t *testing.T) {
	_, path := testServer(t, 1)
	w := testWatch(t, path, 0)
	pending := func() bool {
		time.Sleep(2 * pendingEvery) // Pending asks the kernel at most that often
		return w.Pending()
	}
	if pending() {
		t.Fatal("pending before gompirun sent anything")
	}
	deadline := time.Now().Add(10 * TickEvery)
	for !pending() {
		if time.Now().After(deadline) {
			t.Fatal("no probe pending after ten ticks")
		}
	}
	if o, err := w.Next(); err != nil || o.Probe == 0 {
		t.Fatalf("read %+v, %v; want a probe", o, err)
	}
	if pending() {
		t.Fatal("still pending after the probe was read")
	}
	w.Close()
	if pending() {
		t.Fatal("pending after Close")
	}
}
