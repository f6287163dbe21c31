package vtime

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// contended is a one-level machine of cores cores per node whose ranks slow
// each other by the table s.
func contended(t *testing.T, cores int, mapping string, s []float64, p int) *Target {
	t.Helper()
	m := &Machine{Name: "contended", BMem: 1e10, CoresPerNode: cores, Mapping: mapping,
		Levels: []Level{{topologySpec: topologySpec{Kind: "star"}, Bandwidth: 1e9}}, Contention: s}
	tg, err := m.Place(p)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestContentionScalesMeasuredComputation: a burst measured as d is charged
// d x cpu-scale x S(k_t) / S(k_h), in Wtime mid-burst and at the start event;
// Elapse (the target's own computation) is not scaled.
func TestContentionScalesMeasuredComputation(t *testing.T) {
	s := []float64{1, 1.25, 1.5} // S(4) is past the table: the last entry
	for _, tc := range []struct {
		hostConcurrency int
		factor          float64
	}{
		{1, 1.5},        // the host computed the ranks one at a time
		{2, 1.5 / 1.25}, // the host measurement already holds S(2)
		{4, 1},          // the host computed as many at once as the node
		{8, 1},          // beyond the table on both sides
	} {
		tg := contended(t, 4, "block", s, 4) // 4 ranks on one node: k_t = 4
		f := &fakeMeter{}
		r := NewRank(tg, 1, f, 2)
		r.SetHostConcurrency(tc.hostConcurrency)
		r.SimStart()
		f.now += 0.5
		if got, want := r.Now(), 0.5*2*tc.factor; !near(got, want) {
			t.Errorf("k_h %d: Wtime mid-burst %g, want %g", tc.hostConcurrency, got, want)
		}
		r.Begin()
		r.EndSend(0)
		f.now += 0.25
		r.Elapse(1)
		r.SimEnd()
		res := r.Result()
		if want := 0.75*2*tc.factor + 1; !near(res.End, want) || !near(res.Computation, want) {
			t.Errorf("k_h %d: end %g, computation %g, want %g", tc.hostConcurrency, res.End, res.Computation, want)
		}
		if !near(res.Contention, tc.factor) || res.NodeRanks != 4 || res.HostConcurrency != tc.hostConcurrency {
			t.Errorf("k_h %d: record %+v, want factor %g, 4 node ranks", tc.hostConcurrency, res, tc.factor)
		}
	}
}

// TestContentionFactorIsOneWithoutTable: a machine without a table charges
// what was measured, whatever the placement and the host.
func TestContentionFactorIsOneWithoutTable(t *testing.T) {
	tg := contended(t, 12, "block", nil, 24)
	for _, kh := range []int{1, 2, 12, 64} {
		if f := tg.ContentionFactor(5, kh); f != 1 {
			t.Errorf("no table, k_h %d: factor %g, want 1", kh, f)
		}
		f := &fakeMeter{}
		r := NewRank(tg, 5, f, 1)
		r.SetHostConcurrency(kh)
		r.SimStart()
		f.now += 3
		r.SimEnd()
		if got := r.Result().End; got != 3 {
			t.Errorf("no table, k_h %d: end %g, want the measured 3", kh, got)
		}
	}
	rep := Summarize("m", 1, []RankResult{{Rank: 0, Contention: 1, NodeRanks: 12, HostConcurrency: 1}}, 1)
	if rep.Contention != nil {
		t.Errorf("factor 1 reported as contention: %+v", rep.Contention)
	}
}

// TestContentionNotAppliedAtCPUScaleZero: nothing is measured, so the clock
// records no contention and Elapse is charged as given.
func TestContentionNotAppliedAtCPUScaleZero(t *testing.T) {
	tg := contended(t, 2, "block", []float64{1, 2}, 2)
	r := NewRank(tg, 0, &fakeMeter{}, 0)
	r.SetHostConcurrency(1)
	r.SimStart()
	r.Elapse(1)
	r.SimEnd()
	if res := r.Result(); res.End != 1 || res.Contention != 0 || res.HostConcurrency != 0 {
		t.Errorf("cpu-scale 0: %+v, want end 1 and no contention record", res)
	}
}

// TestContentionSlowdownUsesLastEntryPastTheTable: S(k) for k beyond the
// table is its last entry; S(1) and S(0) are 1.
func TestContentionSlowdownUsesLastEntryPastTheTable(t *testing.T) {
	m := &Machine{Contention: []float64{1, 1.2, 1.3}}
	for k, want := range map[int]float64{0: 1, 1: 1, 2: 1.2, 3: 1.3, 4: 1.3, 1000: 1.3} {
		if got := m.ContentionSlowdown(k); got != want {
			t.Errorf("S(%d) = %g, want %g", k, got, want)
		}
	}
	if got := (&Machine{}).ContentionSlowdown(8); got != 1 {
		t.Errorf("no table: S(8) = %g, want 1", got)
	}
}

// TestNodeRanksFollowsTheMapping: k_t for block and round-robin placements,
// with a partly filled last node, and against counting the ranks whose
// Core lies on the same node.
func TestNodeRanksFollowsTheMapping(t *testing.T) {
	// 10 ranks, 4 cores per node: 3 nodes.
	want := map[string][]int{
		"block":       {4, 4, 4, 4, 4, 4, 4, 4, 2, 2}, // nodes hold 4, 4, 2
		"round-robin": {4, 3, 3, 4, 3, 3, 4, 3, 3, 4}, // rank r on node r mod 3: 4, 3, 3
	}
	for mapping, ks := range want {
		tg := contended(t, 4, mapping, nil, 10)
		for r, k := range ks {
			if got := tg.NodeRanks(r); got != k {
				t.Errorf("%s: k_t(%d) = %d, want %d", mapping, r, got, k)
			}
		}
	}
	for _, mapping := range []string{"block", "round-robin"} {
		for cores := 1; cores <= 7; cores++ {
			for p := 1; p <= 40; p++ {
				tg := contended(t, cores, mapping, nil, p)
				count := map[int]int{}
				for r := 0; r < p; r++ {
					count[tg.Core(r)/cores]++
				}
				for r := 0; r < p; r++ {
					if got, want := tg.NodeRanks(r), count[tg.Core(r)/cores]; got != want {
						t.Fatalf("%s, %d cores per node, P %d: k_t(%d) = %d, counted %d", mapping, cores, p, r, got, want)
					}
				}
			}
		}
	}
}

// TestContentionFactorFromPlacementAndHost: the factor S(k_t) / S(k_h) for
// ranks on full and partly filled nodes.
func TestContentionFactorFromPlacementAndHost(t *testing.T) {
	s := []float64{1, 1.22, 1.5, 1.75}
	tg := contended(t, 4, "block", s, 6) // nodes hold ranks 0-3 and 4-5
	for _, tc := range []struct {
		rank, kh int
		want     float64
	}{
		{0, 1, 1.75}, {3, 2, 1.75 / 1.22}, {0, 4, 1}, {4, 1, 1.22}, {5, 2, 1}, {5, 4, 1.22 / 1.75},
	} {
		if got := tg.ContentionFactor(tc.rank, tc.kh); !near(got, tc.want) {
			t.Errorf("rank %d, k_h %d: factor %g, want %g", tc.rank, tc.kh, got, tc.want)
		}
	}
}

// TestContentionValidationNamesTheEntry: bad tables are rejected naming the
// entry; a machine without the field keeps its JSON form.
func TestContentionValidationNamesTheEntry(t *testing.T) {
	base := `{"name": "m", "bmem": 1e9, "cores_per_node": 2, "levels": [{"topology": "star", "bandwidth": 1e9}]`
	for _, tc := range []struct{ table, want string }{
		{`[1.1, 1.2]`, "contention[0]"},
		{`[0, 1.2]`, "contention[0]"},
		{`[1, 1.2, 0.9]`, "contention[2]"},
		{`[1, 101]`, "contention[1]"},
		{`[1, -2]`, "contention[1]"},
		{`[1, "x"]`, "contention"},
	} {
		_, err := ParseMachine([]byte(base + `, "contention": ` + tc.table + `}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("contention %s: error %v, want one naming %q", tc.table, err, tc.want)
		}
	}
	for _, tc := range []struct {
		table []float64
		want  string
	}{
		{[]float64{1, math.NaN()}, "contention[1]"},
		{[]float64{1, 2, math.Inf(1)}, "contention[2]"},
		{make([]float64, maxContentionEntries+1), "contention:"},
	} {
		m := &Machine{Name: "m", BMem: 1e9, CoresPerNode: 1, Levels: []Level{{topologySpec: topologySpec{Kind: "star"}, Bandwidth: 1e9}},
			Contention: tc.table}
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d entries: error %v, want one naming %q", len(tc.table), err, tc.want)
		}
	}
	for _, good := range []string{`[1]`, `[1, 1, 1.3, 100]`, `[]`} {
		if _, err := ParseMachine([]byte(base + `, "contention": ` + good + `}`)); err != nil {
			t.Errorf("contention %s rejected: %v", good, err)
		}
	}
	m, err := ParseMachine([]byte(base + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(m.JSON()), "contention") {
		t.Errorf("a machine without a table writes one:\n%s", m.JSON())
	}
}

// TestReportSaysWhenContentionScalesComputation: the text report names the
// factor and the concurrencies; the JSON carries them.
func TestReportSaysWhenContentionScalesComputation(t *testing.T) {
	rs := []RankResult{
		{Rank: 0, Finished: true, Contention: 1.22, NodeRanks: 2, HostConcurrency: 1},
		{Rank: 1, Finished: true, Contention: 1.22, NodeRanks: 2, HostConcurrency: 1},
	}
	rep := Summarize("m", 1, rs, 1)
	var text bytes.Buffer
	rep.WriteText(&text)
	if want := "computation x1.22 for contention: 2 ranks per node, host computes 1 at once"; !strings.Contains(text.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, text.String())
	}
	rs = append(rs, RankResult{Rank: 2, Finished: true, Contention: 1, NodeRanks: 1, HostConcurrency: 1})
	rep = Summarize("m", 1, rs, 1)
	text.Reset()
	rep.WriteText(&text)
	if want := "computation x1 - x1.22 for contention: 1-2 ranks per node, host computes 1 at once"; !strings.Contains(text.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, text.String())
	}
	var js bytes.Buffer
	rep.WriteJSON(&js)
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Contention == nil || back.Contention.MaxFactor != 1.22 ||
		back.PerRank[0].NodeRanks != 2 {
		t.Errorf("JSON round trip: %v %+v", err, back.Contention)
	}
	plain := Summarize("m", 1, []RankResult{{Rank: 0, Finished: true}}, 1)
	text.Reset()
	plain.WriteText(&text)
	if strings.Contains(text.String(), "contention") {
		t.Errorf("report without contention mentions it:\n%s", text.String())
	}
}
