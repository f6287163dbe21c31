package mpi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// TestSummarizeEngineCounts: the engine's counts of records from several
// processes add up beside the model's summary, and the JSON keeps both
// parts of every record at the top level, as gompirun -report writes it.
func TestSummarizeEngineCounts(t *testing.T) {
	rec := func(rank int, end float64, c EngineCounts) RankRecord {
		return RankRecord{vtime.RankResult{Rank: rank, End: end, Finished: true}, c}
	}
	procA := []RankRecord{rec(2, 3, EngineCounts{Sent: 4, SentBytes: 400, Temporal: 1, Stalls: 2}), rec(0, 2, EngineCounts{Sent: 1, SentBytes: 10})}
	procB := []RankRecord{rec(1, 5, EngineCounts{Sent: 2, SentBytes: 20, Temporal: 2, SpeculativeStalls: 1})}
	rep := Summarize("tianhe1a", 1, append(procA, procB...), 10)
	if rep.Ranks != 3 || rep.Predicted != 5 || rep.PredictedRank != 1 {
		t.Errorf("model's summary %+v", rep.Report)
	}
	want := EngineCounts{Sent: 7, SentBytes: 430, Temporal: 3, Stalls: 2, SpeculativeStalls: 1}
	if rep.EngineCounts != want {
		t.Errorf("counts %+v, want %+v", rep.EngineCounts, want)
	}
	for i, r := range rep.PerRank {
		if r.Rank != i {
			t.Fatalf("per-rank records not in rank order: %v", rep.PerRank)
		}
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, line := range []string{"predicted time   5 s (rank 1", "messages sent    7 (430 bytes)",
		"temporally sensitive calls: 3", "speculative stalls: 1 of 3"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, text.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var flat map[string]any
	if err := json.Unmarshal(js.Bytes(), &flat); err != nil {
		t.Fatal(err)
	}
	if flat["sent"] != 7.0 || flat["predicted"] != 5.0 {
		t.Errorf("JSON lacks the top-level sent and predicted: %s", js.String())
	}
	per := flat["per_rank"].([]any)[2].(map[string]any)
	if per["rank"] != 2.0 || per["sent"] != 4.0 || per["end"] != 3.0 {
		t.Errorf("rank 2's JSON record %v", per)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Predicted != 5 || len(back.PerRank) != 3 || back.PerRank[2].Sent != 4 {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}
