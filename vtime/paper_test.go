package vtime

import (
	"math"
	"math/rand"
	"testing"
)

// The paper as a test suite: each test is named after the equation,
// algorithm line or figure of VACED-SIM (Lin et al., IEICE 2013) it checks.

// Tianhe-1A parameters of Sect. 5.2.
const (
	bMem = 6.38e9
	bNet = 4.16e9
)

func lh(h int) float64 { return 15e-6 + float64(h)*0.6e-6 }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func tianhe(t *testing.T, p int) *Target {
	t.Helper()
	m, err := Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := m.Place(p)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// fakeMeter is a CPU clock the test advances by hand.
type fakeMeter struct {
	now, t1 float64
	on      bool
}

func (f *fakeMeter) Begin() { f.t1, f.on = f.now, true }
func (f *fakeMeter) End() float64 { // no burst in progress: 0, as ThreadCPU
	if !f.on {
		return 0
	}
	f.on = false
	return f.now - f.t1
}
func (f *fakeMeter) Peek() float64 {
	if !f.on {
		return 0
	}
	return f.now - f.t1
}
func (f *fakeMeter) Abandon()         { f.on = false }
func (f *fakeMeter) Running() float64 { return f.Peek() }

func TestEq3SendTimes(t *testing.T) {
	tg := tianhe(t, 400)
	for _, tc := range []struct {
		src, dst int
		size     int64
		ts       float64
	}{{0, 1, 100, 0}, {0, 12, 1 << 20, 1.5}, {5, 300, 4096, 2e-3}, {13, 13, 7, 0}} {
		tr, ta := tg.Transfer(tc.ts, tc.size, tc.src, tc.dst, nil)
		s := float64(tc.size)
		if !near(tr, tc.ts+s/bMem) {
			t.Errorf("%+v: t_r = %g, want t_s + s/B_mem = %g", tc, tr, tc.ts+s/bMem)
		}
		h := tg.Hop(tc.src, tc.dst)
		L := s / bMem
		if h > 0 {
			L = s/bNet + lh(h)
		}
		if !near(ta, tr+L) {
			t.Errorf("%+v: t_a = %g, want t_r + L(s, %d) = %g", tc, ta, h, tr+L)
		}
	}
}

func TestEq4NetworkTransferH0UsesMemoryBandwidth(t *testing.T) {
	tg := tianhe(t, 24)
	tr, ta := tg.Transfer(0, 6380, 0, 11, nil) // same node
	if !near(ta-tr, 6380/bMem) {
		t.Errorf("h = 0: L = %g, want s/B_mem = %g", ta-tr, 6380/bMem)
	}
}

func TestEq4NetworkTransferHPositiveUsesNetwork(t *testing.T) {
	tg := tianhe(t, 400)
	for _, tc := range []struct {
		x, y, h int
	}{{0, 12, 3}, {0, 191, 3}, {0, 192, 5}, {191, 192, 5}} {
		tr, ta := tg.Transfer(0, 4160, tc.x, tc.y, nil)
		if want := 4160/bNet + lh(tc.h); !near(ta-tr, want) {
			t.Errorf("hop(%d,%d): L = %g, want s/B_net + l(%d) = %g", tc.x, tc.y, ta-tr, tc.h, want)
		}
	}
}

func TestEq4ZeroByteReqAck(t *testing.T) {
	tg := tianhe(t, 24)
	tr, ta := tg.Transfer(1, 0, 0, 12, nil)
	if tr != 1 || !near(ta, 1+lh(3)) {
		t.Errorf("REQ: t_r = %g, t_a = %g; want 1 and 1 + l(3)", tr, ta)
	}
}

func TestEq5TianheHop(t *testing.T) {
	eq5 := func(x, y int) int {
		switch {
		case x/12 == y/12:
			return 0
		case x/192 == y/192:
			return 3
		}
		return 5
	}
	const p = 12 * 16 * 3
	tg := tianhe(t, p)
	for x := 0; x < p; x++ {
		for y := 0; y < p; y++ {
			if h := tg.Hop(x, y); h != eq5(x, y) {
				t.Fatalf("hop(%d, %d) = %d, Eq. (5) gives %d", x, y, h, eq5(x, y))
			}
		}
	}
}

// TestPresetHops checks every preset's hop function on chosen pairs.
func TestPresetHops(t *testing.T) {
	for _, tc := range []struct {
		preset string
		p      int
		pairs  [][3]int // x, y, hop
	}{
		{"tianhe1a", 1024, [][3]int{{0, 11, 0}, {0, 12, 3}, {0, 191, 3}, {0, 192, 5}, {1023, 0, 5}}},
		{"xsim-ethernet", 64, [][3]int{{0, 0, 0}, {0, 1, 2}, {5, 63, 2}}},
		// 4 cores on a star per processor; processors on a star: 1+2+1.
		{"xsim-ethernet-multicore", 64, [][3]int{{0, 3, 2}, {0, 4, 4}, {7, 60, 4}}},
		// 32x32 mesh: rank = x + 32 y.
		{"xsim-mesh2d", 1024, [][3]int{{0, 1, 1}, {0, 31, 31}, {0, 32, 1}, {0, 1023, 62}}},
		// 2 cores on a star, then an 8x8x16 mesh / torus of processors.
		{"xsim-mesh3d-dualcore", 2048, [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 14, 1 + 7 + 1}, {0, 2047, 1 + 29 + 1}}}, // rank 2047: processor 1023 = (7,7,15)
		{"xsim-torus3d-dualcore", 2048, [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 14, 1 + 1 + 1}, {0, 2047, 1 + 3 + 1}}},
		// Processor 7 = (7,0,0): the twisted wrap link of dimension 0 also
		// moves dimension 1, so (0,0,0) -> (7,0,0) takes 2 links, not 1.
		{"xsim-twisted3d-dualcore", 2048, [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 14, 1 + 2 + 1}, {0, 16, 1 + 1 + 1}}},
	} {
		m, err := Preset(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := m.Place(tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.preset, err)
		}
		for _, pr := range tc.pairs {
			if h := tg.Hop(pr[0], pr[1]); h != pr[2] {
				t.Errorf("%s: hop(%d, %d) = %d, want %d", tc.preset, pr[0], pr[1], h, pr[2])
			}
			if h, g := tg.Hop(pr[0], pr[1]), tg.Hop(pr[1], pr[0]); h != g {
				t.Errorf("%s: hop not symmetric on (%d, %d): %d vs %d", tc.preset, pr[0], pr[1], h, g)
			}
		}
	}
}

// TestSect32EventRules: E_Start sets t_V = 0 and t'1; a start event adds
// t'2 - t'1 (times the CPU scale); an end event sets t'1; E_End adds the
// last burst.
func TestSect32EventRules(t *testing.T) {
	tg := tianhe(t, 2)
	f := &fakeMeter{now: 100}
	r := NewRank(tg, 0, f, 2)
	r.SimStart()
	f.now += 1.5
	if got := r.Now(); !near(got, 3) {
		t.Errorf("Wtime mid-burst = %g, want 2 x 1.5", got)
	}
	r.Begin()
	if !near(r.tv, 3) {
		t.Fatalf("after E_start t_V = %g, want 3", r.tv)
	}
	f.now += 10 // inside the activity: not computation
	r.EndSend(0)
	if !near(r.tv, 3) {
		t.Fatalf("after E_end of a zero-byte send t_V = %g, want 3", r.tv)
	}
	f.now += 0.25
	r.Elapse(1)
	r.SimEnd()
	res := r.Result()
	if !near(res.End, 3+0.5+1) || !near(res.Computation, res.End) || !res.Finished {
		t.Errorf("E_End: %+v, want end 4.5 all computation", res)
	}
}

func TestSect32CPUScaleZeroIgnoresComputation(t *testing.T) {
	f := &fakeMeter{}
	r := NewRank(tianhe(t, 2), 0, f, 0)
	r.SimStart()
	f.now += 5
	r.Elapse(0.5)
	r.SimEnd()
	if r.Result().End != 0.5 {
		t.Errorf("cpu-scale 0: end %g, want only the Elapse 0.5", r.Result().End)
	}
}

func TestSect42SendEndsAtBufferCopy(t *testing.T) {
	tg := tianhe(t, 24)
	r := NewRank(tg, 0, nil, 0)
	r.SimStart()
	r.Elapse(1)
	r.Begin()
	ta := r.Stamp(1<<20, 12)
	if want := 1 + 2*float64(1<<20)/bMem - float64(1<<20)/bMem + float64(1<<20)/bNet + lh(3); !near(ta, want) {
		t.Errorf("t_a = %g, want %g", ta, want)
	}
	r.EndSend(1 << 20)
	if want := 1 + float64(1<<20)/bMem; !near(r.tv, want) {
		t.Errorf("after DS t_V = %g, want t_r = %g", r.tv, want)
	}
}

// Sect. 4.3: DR copies the DATA from the message buffer in size/B_mem. The
// copy is charged to the wait that completes the receive (EndRecv returns
// when it completes, Ready folds it in), so a blocking receive that finds
// its message waiting ends at t_V + s/B_mem exactly as the paper's rule
// gives; t_V itself is not advanced at the DR's end.
func TestSect43DataReceiveCopies(t *testing.T) {
	r := NewRank(tianhe(t, 2), 0, nil, 0)
	r.SimStart()
	r.Begin()
	copied := r.EndRecv(6380)
	if !near(copied, 6380/bMem) || r.tv != 0 {
		t.Fatalf("DR: copy done at %g (want s/B_mem), t_V = %g (want 0)", copied, r.tv)
	}
	r.Begin()
	r.WaitStart(true)
	r.Ready(copied)
	r.WaitEnd()
	if !near(r.tv, 6380/bMem) {
		t.Errorf("after the receive's wait t_V = %g, want s/B_mem", r.tv)
	}
}

// The same eager message, reaching the host before its receive is posted
// (DR) or after it (Algorithm 3 with the posting time), gives the same wait
// end: the repeatability the DR accounting exists for. For the host to take
// the DR path the message must have been put in the unexpected queue by an
// earlier wait that began after it arrived on the target (Algorithm 2 line
// 13), so both ranks have such a wait.
func TestDRAndLateDealAgree(t *testing.T) {
	const s = 4000
	post := 1e-3
	earlierWait := func(r *Rank) {
		r.SimStart()
		r.Elapse(post / 2)
		r.Begin()
		r.WaitStart(true)
		r.WaitEnd()
		r.Elapse(post / 2)
	}
	viaDR := NewRank(tianhe(t, 2), 0, nil, 0)
	earlierWait(viaDR)
	viaDR.Begin()
	copied := viaDR.EndRecv(s)
	viaDR.Begin()
	viaDR.EndSend(100) // a send between posting and waiting, as Sendrecv does
	viaDR.Begin()
	viaDR.WaitStart(true)
	viaDR.Ready(copied)
	viaDR.WaitEnd()

	late := NewRank(tianhe(t, 2), 0, nil, 0)
	earlierWait(late)
	late.Begin()
	late.EndSend(100)
	late.Begin()
	late.WaitStart(false)
	late.Deal(Message{Kind: Data, Size: s, Arrival: post / 4, Peer: 1, Started: post}, true)
	late.WaitEnd()
	if viaDR.tv != late.tv {
		t.Fatalf("DR path ends at %v, late deal at %v", viaDR.tv, late.tv)
	}
}

func TestLAPSEOverheadChargedToSender(t *testing.T) {
	m, _ := Preset("tianhe1a")
	m.Overhead = Overhead{A: 2e-6, B: 1e-9}
	tg, err := m.Place(24)
	if err != nil {
		t.Fatal(err)
	}
	tr, ta := tg.Transfer(0, 1000, 0, 12, nil)
	o := 2e-6 + 1e-9*1000
	if !near(tr, o+1000/bMem) || !near(ta, tr+1000/bNet+lh(3)) {
		t.Errorf("overhead: t_r = %g, t_a = %g", tr, ta)
	}
}

// --- Algorithms 2 and 3 ----------------------------------------------------

// Algorithm 2's loop and the scenarios of Fig. 4 (b) and (c) are tested
// against the production loop in package mpi (mpi/alg2_test.go, TestAlg2*):
// a copy of the loop here could pass while the real one is wrong. The
// tests below check Algorithm 3's rules on a Rank alone.

func TestAlgorithm3Line15ReqAnsweredByAck(t *testing.T) {
	r := NewRank(tianhe(t, 400), 0, nil, 0)
	r.SimStart()
	r.WaitStart(false)
	ta, _ := r.Deal(Message{Kind: Req, Arrival: 2, Size: 1 << 20, Peer: 300}, true)
	if want := 2 + lh(5); !near(ta, want) {
		t.Errorf("ACK t_a = %g, want t_temp + l(5) = %g (ACK is zero-byte)", ta, want)
	}
	if r.wait.cur.end != 0 {
		t.Errorf("a REQ moved the wait's end to %g", r.wait.cur.end)
	}
}

func TestAlgorithm3Line18AckAnsweredByData(t *testing.T) {
	r := NewRank(tianhe(t, 24), 0, nil, 0)
	r.SimStart()
	r.WaitStart(false)
	s := int64(1 << 20)
	ta, tr := r.Deal(Message{Kind: Ack, Arrival: 2, Size: s, Peer: 12}, true)
	if want := 2 + 2*float64(s)/bMem - float64(s)/bMem + float64(s)/bNet + lh(3); !near(ta, want) {
		t.Errorf("DATA t_a = %g, want %g", ta, want)
	}
	if want := 2 + float64(s)/bMem; !near(r.wait.cur.end, want) || !near(tr, want) {
		t.Errorf("line 21: A_WT_end = %g, send done at %g, want t_temp + s/B_mem = %g", r.wait.cur.end, tr, want)
	}
}

func TestAlgorithm3Line21UnrelatedAckLeavesWaitEnd(t *testing.T) {
	r := NewRank(tianhe(t, 24), 0, nil, 0)
	r.SimStart()
	r.WaitStart(false)
	_, tr := r.Deal(Message{Kind: Ack, Arrival: 2, Size: 100, Peer: 12}, false)
	if r.wait.cur.end != 0 {
		t.Errorf("unrelated ACK moved A_WT_end to %g", r.wait.cur.end)
	}
	if want := 2 + 100/bMem; !near(tr, want) {
		t.Errorf("unrelated ACK: the send is done at %g, want t_temp + s/B_mem = %g for the wait to come", tr, want)
	}
}

// TestAlgorithm3Line26DataCopyEnd: a DATA has no reply; Deal returns when
// its copy into the user buffer completes, t_temp + s/B_mem, and moves the
// wait's end there only when the DATA is related to c (line 26). An
// unrelated one leaves the end for the wait that completes its receive.
func TestAlgorithm3Line26DataCopyEnd(t *testing.T) {
	s := int64(1 << 20)
	for _, related := range []bool{true, false} {
		r := NewRank(tianhe(t, 24), 0, nil, 0)
		r.SimStart()
		r.WaitStart(false)
		_, got := r.Deal(Message{Kind: Data, Arrival: 2, Size: s, Peer: 12}, related)
		if want := 2 + float64(s)/bMem; !near(got, want) {
			t.Errorf("related %v: copy ends at %g, want t_temp + s/B_mem = %g", related, got, want)
		}
		end := 0.0
		if related {
			end = got
		}
		if r.wait.cur.end != end {
			t.Errorf("related %v: A_WT_end = %g, want %g", related, r.wait.cur.end, end)
		}
	}
}

// TestAlgorithm3Lines1To13DealTime checks t_temp for arrivals in the
// current wait, in an earlier wait, between waits and before all waits.
func TestAlgorithm3Lines1To13DealTime(t *testing.T) {
	r := NewRank(tianhe(t, 2), 0, nil, 0)
	r.SimStart()
	w := &r.wait
	for _, s := range []span{{10, 12}, {20, 30}} { // waits 0 and 1
		r.tv = s.start
		r.WaitStart(false)
		w.cur.end = s.end
		r.WaitEnd()
	}
	r.tv = 40
	r.WaitStart(false) // wait 2 starts at 40
	for _, tc := range []struct{ ta, want float64 }{
		{45, 45}, // line 2: during the current wait
		{40, 40},
		{22, 22}, // line 9: during wait 1
		{10, 10}, // start of wait 0
		{35, 40}, // line 11: between wait 1 and wait 2
		{12, 12}, // at wait 0's end: that wait (closed; the paper's line 8 says the next, see TestDealTimeTieAtWaitEnd)
		{30, 30},
		{15, 20},
		{3, 10}, // before the first wait: A_WT_start[0]
	} {
		if got := w.dealTime(tc.ta); got != tc.want {
			t.Errorf("t_a = %g: t_temp = %g, want %g", tc.ta, got, tc.want)
		}
	}
}

// TestDealNotBeforeOperationStarted: a REQ that arrived on the target
// before its receive was posted is answered at the posting time.
func TestDealNotBeforeOperationStarted(t *testing.T) {
	r := NewRank(tianhe(t, 24), 0, nil, 0)
	r.SimStart()
	r.Elapse(2)
	r.WaitStart(true) // a wait [2, 2] puts the REQ in the unexpected queue on the target
	r.WaitEnd()
	r.Elapse(8)
	r.WaitStart(false)
	// Algorithm 3 alone would answer at A_WT_start[0] = 2.
	ta, _ := r.Deal(Message{Kind: Req, Arrival: 1, Peer: 12, Started: 7}, true)
	if want := 7 + lh(3); !near(ta, want) {
		t.Errorf("ACK t_a = %g, want posting time 7 + l(3) = %g", ta, want)
	}
}

// TestHistoryMergeIsExact compares dealTime on the merged history with
// Algorithm 3's lines 1-13 run literally on the full arrays (with a past
// wait's end included, as in TestDealTimeTieAtWaitEnd).
func TestHistoryMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	r := NewRank(tianhe(t, 2), 0, nil, 0)
	r.SimStart()
	var starts, ends []float64
	for i := 0; i < 300; i++ {
		if rng.Intn(3) > 0 { // computation between waits, or none
			r.Elapse(float64(rng.Intn(4)))
		}
		r.WaitStart(false)
		r.wait.cur.end = r.tv + float64(rng.Intn(3))
		starts, ends = append(starts, r.wait.cur.start), append(ends, r.wait.cur.end)
		r.WaitEnd()
	}
	r.Elapse(1)
	r.WaitStart(false)
	starts = append(starts, r.tv)
	num := len(starts) - 1
	literal := func(ta float64) float64 {
		if ta >= starts[num] {
			return ta
		}
		i := num - 1
		for i >= 0 && starts[i] > ta {
			i--
		}
		if i < 0 {
			return starts[0]
		}
		if ends[i] >= ta {
			return ta
		}
		return starts[i+1]
	}
	if len(r.wait.hist) >= num {
		t.Errorf("history not merged: %d spans for %d waits", len(r.wait.hist), num)
	}
	for ta := -1.0; ta <= r.tv+1; ta += 0.5 {
		if got, want := r.wait.dealTime(ta), literal(ta); got != want {
			t.Fatalf("t_a = %g: merged history gives %g, Algorithm 3 %g", ta, got, want)
		}
	}
}

// TestDealTimeTieAtWaitEnd: a message that arrives on the target exactly
// when a wait ends is dealt with at its arrival whichever way the host
// delivers it. Reaching the host during that wait, it waits in the early
// queue and Algorithm 2's line 23 (t_a <= A_WT_end) deals with it there;
// reaching it later, Algorithm 3 finds it in the history, where line 8
// (A_WT_end[i] > t_a) as the paper writes it would leave it to the next
// wait's start. dealTime includes a past wait's end, so the two agree; it
// matters most for a send's zero-length completion wait, which the paper's
// line 8 makes deal with nothing.
func TestDealTimeTieAtWaitEnd(t *testing.T) {
	for _, length := range []float64{0, 2e-6} {
		const end = 10e-6
		m := Message{Kind: Data, Arrival: end, Size: 8, Peer: 1}
		wait := func() *Rank {
			r := NewRank(tianhe(t, 2), 0, nil, 0)
			r.SimStart()
			r.Elapse(end - length)
			r.WaitStart(false)
			r.wait.cur.end = end
			return r
		}
		early := wait()
		if !early.DueInWait(m.Arrival) {
			t.Fatalf("wait of %g s: line 23 leaves a message at its end in the early queue", length)
		}
		_, dealtInWait := early.Deal(m, false)
		late := wait()
		late.WaitEnd()
		late.Elapse(1e-6)
		late.WaitStart(false)
		_, dealtLater := late.Deal(m, false)
		if dealtInWait != dealtLater {
			t.Errorf("wait of %g s: copy done at %g dealt from the early queue, %g from the history", length, dealtInWait, dealtLater)
		}
	}
}

func TestHistoryCapCountsMisses(t *testing.T) {
	r := NewRank(tianhe(t, 2), 0, nil, 0)
	r.SimStart()
	for i := 0; i < historyCap+10; i++ {
		r.Elapse(1)
		r.WaitStart(true)
		r.WaitEnd()
	}
	if len(r.wait.hist) > historyCap {
		t.Fatalf("history has %d entries, cap %d", len(r.wait.hist), historyCap)
	}
	r.Elapse(1)
	r.WaitStart(false)
	if got := r.wait.dealTime(0.5); got != 0.5 || r.Result().HistoryMisses != 1 {
		t.Errorf("lookup before the kept history: t_temp %g misses %d", got, r.Result().HistoryMisses)
	}
	recent := r.tv - 3.5
	if got := r.wait.dealTime(recent); got != r.tv-3 {
		t.Errorf("recent lookup: t_temp %g, want %g", got, r.tv-3)
	}
	r.ForgetBefore(r.tv - 10)
	if n := len(r.wait.hist); n != 10 { // the waits that started at tv-10 ... tv-1
		t.Errorf("ForgetBefore kept %d spans, want 10", n)
	}
	if got := r.wait.dealTime(recent); got != r.tv-3 {
		t.Errorf("after ForgetBefore: t_temp %g, want %g", got, r.tv-3)
	}
}

// TestProbeFoundEndsWaitAtArrival: a Probe's wait ends when the target
// sees the probed message (not in the paper, which has no probe).
func TestProbeFoundEndsWaitAtArrival(t *testing.T) {
	r := NewRank(tianhe(t, 2), 0, nil, 0)
	r.SimStart()
	r.Elapse(1)
	r.Begin()
	r.WaitStart(false)
	r.Found(3)
	r.WaitEnd()
	if r.tv != 3 {
		t.Errorf("probe wait ended at %g, want the arrival 3", r.tv)
	}
	r.Begin()
	r.WaitStart(false)
	r.Found(2) // arrived during the first wait [1, 3]: seen at once
	r.WaitEnd()
	if r.tv != 3 {
		t.Errorf("probe of an old message moved t_V to %g", r.tv)
	}
}
