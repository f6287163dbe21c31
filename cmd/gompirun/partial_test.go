package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type partialReport struct {
	Partial    string `json:"partial"`
	Unfinished []int  `json:"unfinished"`
	PerRank    []struct {
		Rank     int     `json:"rank"`
		End      float64 `json:"end"`
		Finished bool    `json:"finished"`
		Sent     int64   `json:"sent"`
	} `json:"per_rank"`
}

func readPartial(t *testing.T, report, trace string) (partialReport, chromeTrace) {
	t.Helper()
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	var rep partialReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(trace)
	if err != nil {
		t.Fatalf("no trace: %v", err)
	}
	var tr chromeTrace
	var other struct {
		OtherData struct {
			Partial string `json:"partial"`
		} `json:"otherData"`
	}
	if err := json.Unmarshal(data, &tr); err != nil || json.Unmarshal(data, &other) != nil || other.OtherData.Partial == "" {
		t.Errorf("trace: %v, otherData.partial %q; want it marked partial", err, other.OtherData.Partial)
	}
	return rep, tr
}

// A virtual job that deadlocks still reports what it predicted: the ranks
// that finished whole, the one left waiting as unfinished, the report and
// the trace marked partial with the reason.
func TestPartialReportOfDeadlock(t *testing.T) {
	dir := t.TempDir()
	report, trace := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.json")
	r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-report", report, "-trace", trace, jobProg, "-mode", "leave")
	if r.code != 1 || !strings.Contains(r.stderr, "gompi PARTIAL prediction, of what happened before the job stopped: deadlock") ||
		!strings.Contains(r.stderr, "gompirun: deadlock") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	rep, _ := readPartial(t, report, trace)
	if !strings.HasPrefix(rep.Partial, "deadlock") || len(rep.Unfinished) != 1 || rep.Unfinished[0] != 0 || len(rep.PerRank) != 4 {
		t.Fatalf("report: %+v", rep)
	}
	for _, pr := range rep.PerRank {
		if pr.Finished != (pr.Rank != 0) {
			t.Errorf("rank %d: finished %v", pr.Rank, pr.Finished)
		}
	}
}

// An interrupted virtual run reports how far every rank got: each rank's
// clock and messages so far, from both processes, and the events traced.
func TestPartialReportOfInterrupt(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := t.TempDir()
	report, trace := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.json")
	began := time.Now()
	cmd, out, errb := start(t, nil, "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-report", report, "-trace", trace, "-trace-max", "2000", prog, "-iters", "100000000", "-big", "1024")
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	r := finish(t, cmd, out, errb, began)
	if r.code != 130 || !strings.Contains(r.stderr, "PARTIAL prediction, of what happened before the job stopped: received interrupt") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	rep, tr := readPartial(t, report, trace)
	if len(rep.PerRank) != 4 || len(rep.Unfinished) != 4 {
		t.Fatalf("report: %+v", rep)
	}
	for _, pr := range rep.PerRank {
		if pr.Finished || !(pr.End > 0) || pr.Sent == 0 {
			t.Errorf("rank %d: finished %v, reached %g s, sent %d; want unfinished, a time and messages", pr.Rank, pr.Finished, pr.End, pr.Sent)
		}
	}
	if len(tr.TraceEvents) < 100 {
		t.Errorf("%d trace events", len(tr.TraceEvents))
	}
}
