package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

func sampleReport() *report {
	return &report{
		Start: time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC), LoadBefore: "0.10 0.20 0.30", LoadAfter: "1.00 0.50 0.40",
		Host: "2 CPUs (linux/amd64)", Class: "A", NP: 2, Runs: 3,
		Build:    "go build -o $BIN/ ./cmd/gompirun ./npb-go/ep",
		Commands: []shownCase{{"shm-2core", "$BIN/gompirun -np 2 $BIN/K -class A", "$BIN/gompirun -np 2 -virtual 2 -machine m.json $BIN/K -class A"}},
		Notes:    []string{"net-1gbit-1core: skipped: needs root to create network namespaces"},
		Rows: []row{
			{Case: "shm-2core", Kernel: "EP", Real: []float64{2.00, 2.20, 2.10}, Pred: []float64{2.31, 2.40, 2.30}},
			{Case: "shm-2core", Kernel: "IS", Real: []float64{0.31}, Why: "failed: predicted run 1: Verification = UNSUCCESSFUL"},
		},
	}
}

func TestReportMarkdown(t *testing.T) {
	var b strings.Builder
	sampleReport().write(&b, "markdown")
	out := b.String()
	for _, want := range []string{
		"Measured 2026-11-23 20:00 UTC on 2 CPUs (linux/amd64), load average 0.10 0.20 0.30 before and 1.00 0.50 0.40 after.",
		"| case | kernel | real s | predicted s | RE | real min-max | predicted min-max | note |\n|---|---|---:|---:|---:|---:|---:|---|\n",
		"| shm-2core | EP | 2.10 | 2.31 | +10.0% | 2.00-2.20 | 2.30-2.40 |  |\n",
		"| shm-2core | IS | - | - | - | - | - | failed: predicted run 1: Verification = UNSUCCESSFUL |\n",
		"    $BIN/gompirun -np 2 -virtual 2 -machine m.json $BIN/K -class A    # shm-2core, predicted\n",
		"net-1gbit-1core: skipped: needs root",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestReportText(t *testing.T) {
	var b strings.Builder
	sampleReport().write(&b, "text")
	out := b.String()
	for _, want := range []string{
		`(?m)^date +2026-11-23 20:00:00 UTC$`,
		`(?m)^shm-2core predicted +\$BIN/gompirun -np 2 -virtual 2 -machine m.json \$BIN/K -class A$`,
		`(?m)^case +kernel +real s +predicted s +RE +real min-max +predicted min-max +note$`,
		`(?m)^shm-2core +EP +2.10 +2.31 +\+10.0% +2.00-2.20 +2.30-2.40$`,
		`(?m)^shm-2core +IS +- +- +- +- +- +failed: predicted run 1: Verification = UNSUCCESSFUL$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("text lacks %s:\n%s", want, out)
		}
	}
	// The columns line up: each row's RE starts where the header's does.
	lines := strings.Split(out, "\n")
	at := -1
	for _, l := range lines {
		if strings.HasPrefix(l, "case ") {
			at = strings.Index(l, "RE")
		}
		if strings.HasPrefix(l, "shm-2core ") && !strings.Contains(l, "$BIN") && at >= 0 && l[at] == ' ' {
			t.Errorf("misaligned row %q (RE at column %d)", l, at)
		}
	}
}

func TestVerdict(t *testing.T) {
	r := sampleReport()
	if err := r.verdict(context.Background()); err == nil || err.Error() != "1 of 2 rows failed" {
		t.Errorf("verdict %v, want 1 of 2 rows failed", err)
	}
	r.Rows = r.Rows[:1]
	if err := r.verdict(context.Background()); err != nil {
		t.Errorf("verdict %v, want none", err)
	}
	r.Rows = nil
	if err := r.verdict(context.Background()); err == nil {
		t.Error("no rows and no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.verdict(ctx); err != errInterrupted {
		t.Errorf("verdict after an interrupt %v", err)
	}
}
