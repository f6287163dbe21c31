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

// -plot draws a sweep (SVG here) and one prediction's ranks (PNG here);
// a bad file name, -plot without -virtual, and a one-run plot of more
// ranks than it draws are usage errors before anything runs.
func TestVirtualPlot(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := t.TempDir()
	svg, png := filepath.Join(dir, "sweep.svg"), filepath.Join(dir, "ranks.png")
	if r := gorun(t, nil, "-np", "2", "-virtual", "2,4", "-cpu-scale", "0", "-plot", svg, prog, "-iters", "2"); r.code != 0 {
		t.Fatalf("sweep -plot: exit %d:\n%s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(svg); err != nil || !strings.Contains(string(data), "<svg") || !strings.Contains(string(data), "perfect scaling") {
		t.Errorf("sweep plot: %v, %.200q", err, data)
	}
	if r := gorun(t, nil, "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-plot", png, prog, "-iters", "2"); r.code != 0 {
		t.Fatalf("-plot: exit %d:\n%s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(data), "\x89PNG\r\n") {
		t.Errorf("rank plot: %v, %d bytes, not a PNG", err, len(data))
	}
	for _, args := range [][]string{
		{"-np", "2", "-virtual", "4", "-plot", filepath.Join(dir, "p.jpg"), prog},
		{"-np", "2", "-plot", filepath.Join(dir, "p.svg"), prog},
		{"-np", "2", "-virtual", "5000", "-plot", filepath.Join(dir, "p.svg"), prog},
		{"-np", "2", "-virtual", "4", "-plot", filepath.Join(dir, "no", "such", "p.svg"), prog},
	} {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "-plot") {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line about -plot", args, r.code, r.stderr)
		}
	}
}

// -h and --help list every option with a line on what it does, on
// standard output, exit 0.
func TestHelpListsEveryOption(t *testing.T) {
	for _, h := range []string{"-h", "--help"} {
		r := gorun(t, nil, h)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", h, r.code, r.stderr)
		}
		for _, opt := range []string{"-np", "-n", "-ranks", "-virtual", "-machine", "-cpu-scale", "-report", "-plot",
			"-trace", "-trace-ranks", "-trace-max", "-hosts", "-hostfile", "-launcher", "-iface", "-tag-output",
			"-timeout", "-calibrate", "-contention-kernel", "-print-machine", "-record", "-replay"} {
			if !strings.Contains(r.stdout, "\n  "+opt+" ") && !strings.Contains(r.stdout, "\n  "+opt+"\n") {
				t.Errorf("%s does not list %s:\n%s", h, opt, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "calibrate-quick") {
			t.Errorf("%s lists the test-only -calibrate-quick", h)
		}
	}
	if r := gorun(t, nil, "-version"); r.code != 0 || !strings.HasPrefix(r.stdout, "gompirun ") || !strings.Contains(r.stdout, ", go1.") {
		t.Errorf("-version: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := gorun(t, nil, "-version", "-np", "2"); r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("-version -np 2: exit %d, stderr %q; want a one-line usage error", r.code, r.stderr)
	}
}

// -x VAR=VALUE, -x VAR (gompirun's own value) and -genv VAR VALUE set a
// variable in every rank's environment; bad names, unset variables and the
// variables gompirun sets itself are one-line usage errors.
func TestUserEnvironment(t *testing.T) {
	r := gorun(t, []string{"JOB_TEST_B=from-gompirun"}, "-np", "2", "-x", "JOB_TEST_A=x value", "-x", "JOB_TEST_B", jobProg, "-mode", "env")
	if r.code != 0 || strings.Count(r.stdout, `A="x value" B="from-gompirun"`) != 2 {
		t.Errorf("-x: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = gorun(t, nil, "-genv", "JOB_TEST_A", "a b", "-np", "2", "-genv", "JOB_TEST_B", "", jobProg, "-mode", "env")
	if r.code != 0 || strings.Count(r.stdout, `A="a b" B=""`) != 2 {
		t.Errorf("-genv: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"-np", "2", "-x", "1BAD=1", jobProg},
		{"-np", "2", "-x", "JOB_TEST_SURELY_UNSET", jobProg},
		{"-np", "2", "-x", "GOMPI_SIZE=9", jobProg},
		{"-np", "2", "-genv", "GOMPI_SPIN", "bogus", jobProg},
		{"-np", "2", "-genv", "A"},
	} {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line", args, r.code, r.stderr)
		}
	}
}
