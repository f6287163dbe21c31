package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// TestVirtualSweep: -virtual 2,4,8 makes the three predictions the three
// single runs make (bit for bit at cpu-scale 0), prints a row for each with
// speedup and efficiency against P = 2 and shares that add up to 100%, and
// writes the three reports to -report as a JSON array.
func TestVirtualSweep(t *testing.T) {
	prog := vprog(t, "skeleton")
	file := filepath.Join(t.TempDir(), "sweep.json")
	r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "2,4,8", "-cpu-scale", "0", "-report", file, prog, "-iters", "5")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var reps []mpi.Report
	if err := json.Unmarshal(data, &reps); err != nil || len(reps) != 3 {
		t.Fatalf("-report: %d reports, %v", len(reps), err)
	}
	_, table, ok := strings.Cut(r.stderr, "gompi sweep: machine tianhe1a, cpu-scale 0\n")
	if !ok {
		t.Fatalf("no sweep table:\n%s", r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")[1:] // after the header
	if len(lines) != 3 {
		t.Fatalf("table rows:\n%s", table)
	}
	for i, p := range []int{2, 4, 8} {
		single, _ := vrun(t, nil, "-np", "2", "-virtual", strconv.Itoa(p), "-cpu-scale", "0", prog, "-iters", "5")
		if reps[i].Ranks != p || reps[i].Predicted != single.Predicted {
			t.Errorf("sweep row %d: %d ranks, predicted %v s; -virtual %d alone predicts %v s", i, reps[i].Ranks, reps[i].Predicted, p, single.Predicted)
		}
		f := strings.Fields(lines[i])
		// ranks, predicted (value unit), speedup, efficiency, three shares
		if len(f) != 8 || f[0] != strconv.Itoa(p) {
			t.Fatalf("row %q", lines[i])
		}
		speedup, _ := strconv.ParseFloat(f[3], 64)
		if want := reps[0].Predicted / reps[i].Predicted; speedup < want-0.0005 || speedup > want+0.0005 {
			t.Errorf("row %d: speedup %v, want %.3f", i, speedup, want)
		}
		eff, _ := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
		if want := 100 * reps[0].Predicted / reps[i].Predicted * 2 / float64(p); eff < want-0.05 || eff > want+0.05 {
			t.Errorf("row %d: efficiency %v%%, want %.1f%%", i, eff, want)
		}
		sum := 0.0
		for _, s := range f[5:] {
			v, _ := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
			sum += v
		}
		if sum < 99.8 || sum > 100.2 {
			t.Errorf("row %d: shares add up to %v%%", i, sum)
		}
	}
}

// Bad lists are usage errors, one line each, before anything runs.
func TestVirtualSweepBadLists(t *testing.T) {
	prog := vprog(t, "skeleton")
	for _, tc := range []struct{ list, want string }{
		{"4,4", "given twice"},
		{"2,x", `"x": want a number of ranks`},
		{"2,0", "need at least one rank"},
		{"1,4", "need at least one rank per process"},
		{"2,", `"": want a number of ranks`},
	} {
		r := gorun(t, nil, "-np", "2", "-virtual", tc.list, "-cpu-scale", "0", prog)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("-virtual %s: exit %d, stderr %q; want exit 2 and one line saying %q", tc.list, r.code, r.stderr, tc.want)
		}
	}
}
