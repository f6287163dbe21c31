// Package npbgo_test runs the NAS kernels as users do: as separate
// processes started by gompirun, for real and under virtual time.
//
// gompirun and the benchmarks are built once (TestMain); every job is
// bounded by gompirun's -timeout and by the test's own deadline.
package npbgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

var kernels = []string{"ep", "is", "cg", "mg", "ft", "lu", "sp", "bt"}

// ranksFor is the rank count a test uses for benchmark k where it would
// use n: SP (and BT) need a square count, so 2 becomes 4 and 8 becomes 16.
func ranksFor(k string, n int) int {
	if k != "sp" && k != "bt" {
		return n
	}
	for s := 1; ; s++ {
		if s*s >= n {
			return s * s
		}
	}
}

// bin is the directory holding the built gompirun and kernels; work is an
// empty working directory for the jobs, so that a timer.flag file lying in
// the source tree cannot change what the kernels print.
var bin, work string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "npb-launch-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, work = filepath.Join(dir, "bin")+string(filepath.Separator), filepath.Join(dir, "work")
	for _, d := range []string{bin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// One go command builds all six in parallel.
	args := []string{"build", "-o", bin, "../cmd/gompirun"}
	for _, k := range kernels {
		args = append(args, "./"+k)
	}
	// And the kernels' tests, whose TestPredictInProcess makes the
	// in-process prediction gompirun's is compared with.
	testArgs := []string{"test", "-c", "-o", bin}
	for _, k := range kernels {
		testArgs = append(testArgs, "./"+k)
	}
	for _, a := range [][]string{args, testArgs} {
		if out, err := exec.Command("go", a...).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go %s: %v\n%s", strings.Join(a, " "), err, out)
			return 1
		}
	}
	return m.Run()
}

type result struct {
	stdout, stderr string
	code           int
}

// gompirun runs one job. env entries override the test's environment; the
// timer breakdown is switched off so that outputs compare line by line.
func gompirun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"-timeout", "60s"}, args...)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "gompirun"), args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "NPB_TIMER_FLAG=0", "GOMPI_TRANSPORT=")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gompirun %s did not end within 90s; stderr:\n%s", strings.Join(args, " "), errb.String())
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func kernel(k string) string { return filepath.Join(bin, k) }

var (
	verified  = regexp.MustCompile(`(?m)^ Verification\s+=\s+SUCCESSFUL$`)
	totalProc = regexp.MustCompile(`(?m)^ Total processes\s+=\s+(\d+)$`)
	// timing lines are the only ones that may differ between two runs of a
	// kernel with the same class and rank count.
	timing = regexp.MustCompile(`Time in seconds|Mop/s|CPU Time|Initialization time`)
)

// verificationValues are, per kernel, the lines holding the numbers that
// verification compares with the published ones. IS prints none: it checks
// key ranks internally and reports only the outcome.
var verificationValues = map[string]*regexp.Regexp{
	"ep": regexp.MustCompile(`(?m)^(Sums =.*|No\. Gaussian Pairs =.*| +\d+ +\d+)$`),
	"is": nil,
	"cg": regexp.MustCompile(`(?m)^ (Zeta is .*|Error is .*)$`),
	"mg": regexp.MustCompile(`(?m)^ (L2 Norm is .*|Error is .*)$`),
	"ft": regexp.MustCompile(`(?m)^ T = +\d+ +Checksum = .*$`),
	"sp": regexp.MustCompile(`(?m)^ +\d +\S+ \S+ \S+$`), // RMS norms of the residual and the error: computed, reference, difference
	"bt": regexp.MustCompile(`(?m)^ +\d +\S+ \S+ \S+$`),
	// LU: the same norms, and the surface integral.
	"lu": regexp.MustCompile(`(?m)^( +\d +\S+ \S+ \S+| +\S+E[-+]\d+ \S+ \S+)$`),
}

// wantVerified checks that a job ended well, ran ranks ranks and verified.
func wantVerified(t *testing.T, r result, ranks int) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if !verified.MatchString(r.stdout) {
		t.Fatalf("no \"Verification = SUCCESSFUL\" in the output:\n%s", r.stdout)
	}
	m := totalProc.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != fmt.Sprint(ranks) {
		t.Fatalf("report names %v processes, want %d:\n%s", m, ranks, r.stdout)
	}
}

// values returns the verification lines of kernel k's output; it fails
// when a kernel that prints them printed none.
func values(t *testing.T, k, stdout string) []string {
	t.Helper()
	re := verificationValues[k]
	if re == nil {
		return nil
	}
	v := re.FindAllString(stdout, -1)
	if len(v) == 0 {
		t.Fatalf("%s printed no verification values:\n%s", k, stdout)
	}
	return v
}

// untimed is the output without its timing lines.
func untimed(stdout string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stdout, "\n") {
		if !timing.MatchString(l) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// sameResults requires two runs of one kernel to agree on every value and
// every other line but the timings.
func sameResults(t *testing.T, k string, a, b result, what string) {
	t.Helper()
	if va, vb := values(t, k, a.stdout), values(t, k, b.stdout); strings.Join(va, "\n") != strings.Join(vb, "\n") {
		t.Fatalf("%s: verification values differ:\n%s\n--- versus ---\n%s", what, strings.Join(va, "\n"), strings.Join(vb, "\n"))
	}
	if ua, ub := untimed(a.stdout), untimed(b.stdout); ua != ub {
		t.Fatalf("%s: outputs differ beyond the timings:\n%s\n--- versus ---\n%s", what, ua, ub)
	}
}

// TestClassWTwoProcesses runs every kernel at class W as two processes
// (four for SP and BT, which need a square count), over shared memory (the
// default between processes of one host) and over forced TCP; both must
// verify, with the same numbers.
func TestClassWTwoProcesses(t *testing.T) {
	for _, k := range kernels {
		t.Run(k, func(t *testing.T) {
			np := ranksFor(k, 2)
			shm := gompirun(t, nil, "-np", fmt.Sprint(np), kernel(k), "-class", "W")
			wantVerified(t, shm, np)
			if shm.stderr != "" {
				t.Errorf("stderr of a successful run: %q", shm.stderr)
			}
			tcp := gompirun(t, []string{"GOMPI_TRANSPORT=tcp"}, "-np", fmt.Sprint(np), kernel(k), "-class", "W")
			wantVerified(t, tcp, np)
			sameResults(t, k, shm, tcp, "shared memory versus TCP")
		})
	}
}

var report = regexp.MustCompile(`(?m)^gompi prediction: (\d+) ranks on machine \S+, cpu-scale (\S+)\n\s+predicted time\s+\S+ \S+ \(rank \d+ finishes last\)$`)

// wantReport checks the prediction report gompirun prints on stderr.
func wantReport(t *testing.T, r result, ranks int, cpuScale string) {
	t.Helper()
	m := report.FindStringSubmatch(r.stderr)
	if m == nil || m[1] != fmt.Sprint(ranks) || m[2] != cpuScale {
		t.Fatalf("no prediction report for %d ranks at cpu-scale %s on stderr:\n%s", ranks, cpuScale, r.stderr)
	}
}

// TestVirtualVerifiesAsReal runs every kernel at class S under virtual
// time, 4 ranks over 2 processes, and compares it with a real 4-process
// run: virtual time changes the clock, never the computation, so the
// verification values must be identical.
func TestVirtualVerifiesAsReal(t *testing.T) {
	for _, k := range kernels {
		t.Run(k, func(t *testing.T) {
			realRun := gompirun(t, nil, "-np", "4", kernel(k), "-class", "S")
			wantVerified(t, realRun, 4)
			virt := gompirun(t, nil, "-np", "2", "-virtual", "4", "-cpu-scale", "1", kernel(k), "-class", "S")
			wantVerified(t, virt, 4)
			wantReport(t, virt, 4, "1")
			sameResults(t, k, realRun, virt, "real versus virtual")
		})
	}
	// Ignoring the measured computation (cpu-scale 0) changes nothing
	// either; here 8 ranks, as 4 per process both times.
	t.Run("cg/cpu-scale-0", func(t *testing.T) {
		realRun := gompirun(t, nil, "-np", "2", "-ranks", "8", kernel("cg"), "-class", "S")
		wantVerified(t, realRun, 8)
		virt := gompirun(t, nil, "-np", "2", "-virtual", "8", "-cpu-scale", "0", kernel("cg"), "-class", "S")
		wantVerified(t, virt, 8)
		wantReport(t, virt, 8, "0")
		sameResults(t, "cg", realRun, virt, "real versus virtual")
	})
}

// prediction is the part of gompirun's -report JSON that depends on the
// program's messages only (not on the host's speed).
type prediction struct {
	Predicted     float64 `json:"predicted"`
	PredictedRank int     `json:"predicted_rank"`
	Temporal      int64   `json:"temporal"`
	HistoryMisses int64   `json:"history_misses"`
	PerRank       []struct {
		Rank          int     `json:"rank"`
		End           float64 `json:"end"`
		Finished      bool    `json:"finished"`
		Communication float64 `json:"communication"`
		Waiting       float64 `json:"waiting"`
		Waits         int     `json:"waits"`
		Sent          int64   `json:"sent"`
		SentBytes     int64   `json:"sent_bytes"`
		Recvd         int64   `json:"recvd"`
		RecvBytes     int64   `json:"recvd_bytes"`
	} `json:"per_rank"`
}

// predict runs kernel k at class S as 8 virtual ranks (16 for SP) over np
// processes with -cpu-scale 0 and returns its report.
func predict(t *testing.T, k string, np int) prediction {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.json")
	n := ranksFor(k, 8)
	r := gompirun(t, nil, "-np", fmt.Sprint(np), "-virtual", fmt.Sprint(n), "-cpu-scale", "0", "-report", file, kernel(k), "-class", "S")
	wantVerified(t, r, n)
	wantReport(t, r, n, "0")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p prediction
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("-report %s: %v", b, err)
	}
	if len(p.PerRank) != n || !(p.Predicted > 0) {
		t.Fatalf("report of %d ranks predicting %g s, want %d ranks and a positive time:\n%s", len(p.PerRank), p.Predicted, n, b)
	}
	for _, rr := range p.PerRank {
		if !rr.Finished {
			t.Fatalf("rank %d did not finish:\n%s", rr.Rank, b)
		}
	}
	// The kernels make no temporally sensitive call (no AnySource, Test,
	// Iprobe or Waitany family), as in NPB: their predictions must not
	// depend on host arrival order.
	if p.Temporal != 0 || p.HistoryMisses != 0 {
		t.Fatalf("%d temporally sensitive calls, %d history misses; want none:\n%s", p.Temporal, p.HistoryMisses, b)
	}
	return p
}

// inProcess is kernel k's class S prediction for 8 ranks at cpu-scale 0
// made without gompirun: the kernel's TestPredictInProcess runs it in the
// test binary's process (npbtest.PredictInProcess).
func inProcess(t *testing.T, k string) prediction {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, k+".test"), "-test.run", "^TestPredictInProcess$", "-test.v")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "NPB_TIMER_FLAG=0", fmt.Sprintf("NPB_PREDICT_RANKS=%d", ranksFor(k, 8)), "NPB_PREDICT_REPORT="+file)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPredictInProcess") {
		t.Fatalf("%s.test -test.run TestPredictInProcess: %v\n%s", k, err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p prediction
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("in-process report %s: %v", b, err)
	}
	return p
}

// TestCommunicationPrediction: with the computation left out
// (-cpu-scale 0) a prediction depends on the kernel's messages alone, so
// 8 ranks in one process and over two processes under gompirun, and 8
// ranks of a process without gompirun, must predict the same times, to the
// last bit (all but the waiting time's split, see differences). (docs/model.md, "Stalls", names the one case where a
// multi-process prediction may depend on host timing; a difference here
// means a kernel ran into it, or a bug.)
func TestCommunicationPrediction(t *testing.T) {
	for _, k := range kernels {
		t.Run(k, func(t *testing.T) {
			one, two := predict(t, k, 1), predict(t, k, 2)
			if d := differences(one, two); len(d) > 0 {
				t.Fatalf("1 and 2 processes predict differently:\n%s", strings.Join(d, "\n"))
			}
			if d := differences(inProcess(t, k), one); len(d) > 0 {
				t.Fatalf("gompirun predicts differently from the kernel run in one process without it:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// differences lists the fields in which two predictions differ, as
// "field: a versus b".
func differences(a, b prediction) []string {
	var d []string
	var walk func(name string, x, y reflect.Value)
	walk = func(name string, x, y reflect.Value) {
		switch x.Kind() {
		case reflect.Struct:
			for i := 0; i < x.NumField(); i++ {
				walk(name+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i))
			}
		case reflect.Slice:
			if x.Len() != y.Len() {
				d = append(d, fmt.Sprintf("%s: %d versus %d entries", name, x.Len(), y.Len()))
				return
			}
			for i := 0; i < x.Len(); i++ {
				walk(fmt.Sprintf("%s[%d]", name, i), x.Index(i), y.Index(i))
			}
		case reflect.Float64:
			// Waiting is End minus the other two, summed wait by wait; an
			// in-process run splits it over its waits in host order and
			// was seen to differ in the last bit (End never did).
			xf, yf := x.Float(), y.Float()
			if xf != yf && !(strings.HasSuffix(name, ".Waiting") && math.Abs(xf-yf) <= 1e-12*math.Abs(xf)) {
				d = append(d, fmt.Sprintf("%s: %v versus %v", name, xf, yf))
			}
		default:
			if xi, yi := x.Interface(), y.Interface(); xi != yi {
				d = append(d, fmt.Sprintf("%s: %v versus %v", name, xi, yi))
			}
		}
	}
	walk("report", reflect.ValueOf(a), reflect.ValueOf(b))
	return d
}

// TestBadInput: a kernel given what it cannot run ends the job with a
// non-zero status and one line naming the problem, never a hang. (No
// kernel has an option that perturbs its data, so the exit status of a
// failed verification cannot be provoked honestly from here; the kernels
// return it as an error from the rank function, which gompirun's own tests
// cover.)
func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"-np", "2", kernel("cg"), "-class", "Q"}, `cg: unknown class "Q"`},
		{[]string{"-np", "2", kernel("ep"), "-bogus"}, "ep: flag provided but not defined: -bogus"},
		{[]string{"-np", "3", kernel("is")}, "is: number of processes 3 is not a power of two"},
		{[]string{"-np", "3", kernel("cg")}, "cg: number of processes 3 is not a power of two"},
		{[]string{"-np", "3", kernel("ft")}, "ft: the number of ranks must be a power of two, got 3"},
		{[]string{"-np", "2", "-virtual", "6", kernel("is")}, "is: number of processes 6 is not a power of two"},
		{[]string{"-np", "2", kernel("sp")}, "sp: 2 processes: SP needs a square number of processes"},
		{[]string{"-np", "3", kernel("lu")}, "lu:"},
		{[]string{"-np", "2", kernel("bt")}, "bt: 2 processes: BT needs a square number of processes"},
	}
	for _, c := range cases {
		r := gompirun(t, nil, c.args...)
		if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("gompirun %s: exit %d, stderr %q; want a non-zero exit and one line with %q",
				strings.Join(c.args, " "), r.code, r.stderr, c.msg)
		}
	}
}
