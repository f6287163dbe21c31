package vtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestSummarizeMergesProcesses(t *testing.T) {
	// Records from two processes, out of order.
	procA := []RankResult{
		{Rank: 2, End: 3, Finished: true, Computation: 1, Communication: 0.5, Waiting: 1.5},
		{Rank: 0, End: 2, Finished: true, Computation: 2, Waiting: 0},
	}
	procB := []RankResult{
		{Rank: 1, End: 5, Finished: true, Computation: 4, Communication: 0.25, Waiting: 0.75},
		{Rank: 3, End: 1, Finished: false, Computation: 1},
	}
	rep := Summarize("tianhe1a", 1, append(procA, procB...), 10)
	if rep.Ranks != 4 || rep.Predicted != 5 || rep.PredictedRank != 1 || rep.Slowdown != 2 {
		t.Errorf("report %+v", rep)
	}
	if c := rep.Computation; c.Min != 1 || c.MinRank != 2 || c.Max != 4 || c.MaxRank != 1 || c.Mean != 2 {
		t.Errorf("computation %+v", c)
	}
	if len(rep.Unfinished) != 1 || rep.Unfinished[0] != 3 {
		t.Errorf("unfinished %v", rep.Unfinished)
	}
	for i, r := range rep.PerRank {
		if r.Rank != i {
			t.Fatalf("per-rank records not in rank order: %v", rep.PerRank)
		}
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"4 ranks on machine tianhe1a", "predicted time   5 s (rank 1", "slowdown 2",
		"computation", "unfinished ranks"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Predicted != 5 || len(back.PerRank) != 4 {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

func TestSecondsFormatting(t *testing.T) {
	for in, want := range map[float64]string{0: "0 s", 2.5e-8: "25 ns", 1.68e-5: "16.8 us", 0.0125: "12.5 ms", 3: "3 s"} {
		if got := Seconds(in); got != want {
			t.Errorf("Seconds(%g) = %q, want %q", in, got, want)
		}
	}
}

// TestSummarizeCopiesOnlyToSort: results already in rank order (what a
// job's processes publish) become the report's PerRank as they are, so a
// run of millions of ranks does not hold them twice; results out of order
// are sorted in a copy, the caller's slice left as it was.
func TestSummarizeCopiesOnlyToSort(t *testing.T) {
	inOrder := []RankResult{{Rank: 0, End: 1}, {Rank: 1, End: 2}, {Rank: 2, End: 3}}
	if rep := Summarize("m", 1, inOrder, 1); &rep.PerRank[0] != &inOrder[0] || rep.Predicted != 3 {
		t.Errorf("results in rank order were copied (or summarized wrong: predicted %g)", rep.Predicted)
	}
	outOfOrder := []RankResult{{Rank: 2, End: 3}, {Rank: 0, End: 1}, {Rank: 1, End: 2}}
	rep := Summarize("m", 1, outOfOrder, 1)
	if &rep.PerRank[0] == &outOfOrder[0] || outOfOrder[0].Rank != 2 {
		t.Errorf("results out of order sorted in place: %v", outOfOrder)
	}
	for i, r := range rep.PerRank {
		if r.Rank != i {
			t.Fatalf("per-rank records not in rank order: %v", rep.PerRank)
		}
	}
}
