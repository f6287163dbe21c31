package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gompi/gompi/mpi"
)

// The tests run real multi-process jobs: gompirun and the test program are
// built once, then every job is bounded by -timeout and by the test's own
// deadline.
var gompirun, jobProg string

// freshCache is the environment of a gompirun whose own binary cache is
// empty; the go command keeps its build cache, so a build costs seconds.
var freshCache []string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gompirun-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gompirun = filepath.Join(dir, "gompirun")
	jobProg = filepath.Join(dir, "job")
	for _, b := range [][2]string{{gompirun, "."}, {jobProg, "./testdata/job"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", b[1], err, out)
			os.Exit(1)
		}
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	freshCache = []string{"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "GOCACHE=" + strings.TrimSpace(string(gocache))}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// start launches gompirun with args; env entries are added to the environment.
func start(t *testing.T, env []string, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(gompirun, args...)
	cmd.Env = append(os.Environ(), env...)
	out, errb := new(syncBuffer), new(syncBuffer)
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out, errb
}

func finish(t *testing.T, cmd *exec.Cmd, out, errb *syncBuffer, began time.Time) result {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		r := result{stdout: out.String(), stderr: errb.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return r
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("gompirun %v did not end within 30s; stderr: %s", cmd.Args, errb)
	}
	return result{}
}

func gorun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	began := time.Now()
	cmd, out, errb := start(t, env, args...)
	return finish(t, cmd, out, errb, began)
}

var tcp = []string{"GOMPI_TRANSPORT=tcp"}

// wantRing checks that every rank of an n-rank ring job reported success.
func wantRing(t *testing.T, r result, n int) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for i := 0; i < n; i++ {
		if want := fmt.Sprintf("ok rank %d of %d\n", i, n); !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in output:\n%s", want, r.stdout)
		}
	}
}

func TestRingOverTCP(t *testing.T) {
	wantRing(t, gorun(t, tcp, "-np", "4", "-timeout", "20s", jobProg), 4)
}

// TestRingDefaultTransport runs over shared memory between the processes.
func TestRingDefaultTransport(t *testing.T) {
	wantRing(t, gorun(t, nil, "-np", "3", "-timeout", "20s", jobProg), 3)
}

func TestMixedPlacement(t *testing.T) {
	// 7 ranks over 3 processes: blocks of 2, 2 and 3 goroutine ranks.
	wantRing(t, gorun(t, tcp, "-np", "3", "-ranks", "7", "-timeout", "20s", jobProg), 7)
	// The same over shared memory.
	wantRing(t, gorun(t, nil, "-np", "2", "-ranks", "5", "-timeout", "20s", jobProg), 5)
	// All ranks in one process: inproc only.
	wantRing(t, gorun(t, nil, "-np", "1", "-ranks", "4", "-timeout", "20s", jobProg), 4)
}

// A rank that truncates in a Bcast still forwards to its children, so a
// job of separate processes ends instead of hanging until its timeout.
func TestBcastTruncationAcrossProcesses(t *testing.T) {
	for _, env := range [][]string{nil, tcp} {
		wantRing(t, gorun(t, env, "-np", "4", "-timeout", "20s", jobProg, "-mode", "bcasttrunc"), 4)
	}
}

// TestNonblockingCollectivesAcrossProcesses: nonblocking collectives and
// an Idup outstanding together, progressed by a blocked Recv, over shared
// memory and TCP, with several ranks per process, and predicted (virtual
// ranks over two processes, computation measured; with one rank a
// process, whose meter keeps its thread locked between bursts, and the
// runtime aborts a coroutine switch in another lock state than the
// coroutine's creation).
func TestNonblockingCollectivesAcrossProcesses(t *testing.T) {
	for _, env := range [][]string{nil, tcp} {
		wantRing(t, gorun(t, env, "-np", "4", "-timeout", "20s", jobProg, "-mode", "nbc"), 4)
	}
	wantRing(t, gorun(t, nil, "-np", "2", "-ranks", "5", "-timeout", "20s", jobProg, "-mode", "nbc"), 5)
	wantRing(t, gorun(t, nil, "-np", "2", "-virtual", "6", "-timeout", "20s", jobProg, "-mode", "nbc"), 6)
	wantRing(t, gorun(t, nil, "-np", "2", "-virtual", "2", "-timeout", "20s", jobProg, "-mode", "nbc"), 2)
}

// TestNonblockingCollectivesRepeatableAcrossProcesses: the prediction of
// the nonblocking-collectives job at -cpu-scale 0 is the same bit for bit
// whether its 8 ranks run in 1, 2 or 4 processes (over shared memory or
// TCP), and from run to run: the schedules are progressed by the waits of
// the rank that owns them, never by the host's timing.
func TestNonblockingCollectivesRepeatableAcrossProcesses(t *testing.T) {
	type config struct {
		np  string
		env []string
	}
	var ref mpi.Report
	var refWhat string
	for i, c := range []config{{"1", nil}, {"2", nil}, {"4", nil}, {"4", tcp}, {"2", nil}} {
		what := fmt.Sprintf("-np %s %v", c.np, c.env)
		got, _ := vrun(t, c.env, "-np", c.np, "-virtual", "8", "-cpu-scale", "0", jobProg, "-mode", "nbc")
		if len(got.PerRank) != 8 || len(got.Unfinished) != 0 || got.Predicted <= 0 {
			t.Fatalf("%s: %d ranks, unfinished %v, predicted %g", what, len(got.PerRank), got.Unfinished, got.Predicted)
		}
		if i == 0 {
			ref, refWhat = got, what
			continue
		}
		if got.Predicted != ref.Predicted {
			t.Errorf("%s: predicted %.17g, %s predicted %.17g", what, got.Predicted, refWhat, ref.Predicted)
		}
		for r := range got.PerRank {
			if got.PerRank[r].End != ref.PerRank[r].End {
				t.Errorf("%s: rank %d ends at %.17g, %s at %.17g", what, r, got.PerRank[r].End, refWhat, ref.PerRank[r].End)
			}
		}
	}
}

// TestEagerExchangeAcrossProcesses: two ranks in two processes send each
// other windows of eager messages larger than a ring holds, overwriting
// each buffer as soon as its Send returns, over shared memory (where the
// engine lends the transport the user's buffer and a sender waiting for
// room drains its own rings), in virtual time, and over TCP.
func TestEagerExchangeAcrossProcesses(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, nil},
		{nil, []string{"-virtual", "2"}},
		{[]string{"GOMPI_SHM_RING=65536"}, nil},
		{tcp, nil},
	} {
		args := append([]string{"-np", "2", "-timeout", "25s"}, c.args...)
		r := gorun(t, c.env, append(args, jobProg, "-mode", "exchange")...)
		if r.code != 0 || strings.Count(r.stdout, "exchange ok") != 2 {
			t.Errorf("%v %v: exit %d\nstdout: %s\nstderr: %s", c.env, c.args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestPollingEveryTestVariant completes traffic by polling only (Test,
// Testany, Testsome, Testall; eager and rendezvous sizes; a truncating
// receive each round: the job's poll mode) over TCP, with spinning ranks
// and with ranks that sleep at once (GOMPI_SPIN=0, what a machine with
// fewer cores than ranks gets), over shared memory, and in one process. A
// rank polling Test over TCP used to see frames only when the scheduler
// preempted it, every 10 ms or more (transport.Inbox.NextNow); a lost
// frame would run into -timeout.
func TestPollingEveryTestVariant(t *testing.T) {
	poll := []string{"-timeout", "25s", jobProg, "-mode", "poll", "-rounds", "32"}
	for _, c := range []struct {
		name string
		env  []string
		np   []string
	}{
		{"tcp", tcp, []string{"-np", "3"}},
		{"tcp, no spinning", append([]string{"GOMPI_SPIN=0"}, tcp...), []string{"-np", "3"}},
		{"shm", nil, []string{"-np", "3"}},
		{"in-process", nil, []string{"-np", "1", "-ranks", "3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantRing(t, gorun(t, c.env, append(c.np, poll...)...), 3)
		})
	}
}

// pids collects the "pid N" lines hang-mode ranks print.
var pidLine = regexp.MustCompile(`pid (\d+) rank (\d+)`)

func pidsOf(s string) map[int]int {
	m := map[int]int{}
	for _, g := range pidLine.FindAllStringSubmatch(s, -1) {
		pid, _ := strconv.Atoi(g[1])
		rank, _ := strconv.Atoi(g[2])
		m[rank] = pid
	}
	return m
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// noneLeft fails unless every pid is gone. gompirun has killed them when it
// returns; the bound only keeps a test from waiting forever, and is
// generous so that a loaded machine does not fail it.
func noneLeft(t *testing.T, pids map[int]int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for rank, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("rank %d (pid %d) is still running", rank, pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// waitPids waits until n hang-mode ranks have announced themselves.
func waitPids(t *testing.T, out *syncBuffer, n int) map[int]int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := pidsOf(out.String())
		if len(p) == n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d ranks started", len(p), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestFailures(t *testing.T) {
	cases := []struct {
		mode string
		code int
		msg  string
	}{
		{"error", 1, "gompirun: rank 1 failed: boom\n"},
		{"abort", 7, "gompirun: rank 1 called Abort(7)\n"},
		{"exit0", 1, "exited (status 0) before its ranks finished\n"},
		{"panic", 1, "\ngompirun: rank 1 panicked: oops\n"},
	}
	for _, c := range cases {
		for _, tr := range []string{"tcp", "auto"} {
			var env []string
			if tr == "tcp" {
				env = tcp
			}
			t.Run(c.mode+"/"+tr, func(t *testing.T) {
				r := gorun(t, env, "-np", "3", "-timeout", "20s", jobProg, "-mode", c.mode)
				if r.code != c.code || !strings.HasSuffix(r.stderr, c.msg) {
					t.Fatalf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, c.code, c.msg)
				}
				// One line, but a panic's stack trace comes first.
				if n := strings.Count(r.stderr, "\n"); n != 1 && c.mode != "panic" {
					t.Errorf("%d lines on stderr, want one: %q", n, r.stderr)
				}
				noneLeft(t, pidsOf(r.stdout))
			})
		}
	}
}

func TestKillRank(t *testing.T) {
	t.Run("tcp", func(t *testing.T) { testKillRank(t, tcp) })
	t.Run("auto", func(t *testing.T) { testKillRank(t, nil) })
}

func testKillRank(t *testing.T, env []string) {
	began := time.Now()
	cmd, out, errb := start(t, env, "-np", "3", "-timeout", "20s", jobProg, "-mode", "stuck")
	pids := waitPids(t, out, 3)
	syscall.Kill(pids[1], syscall.SIGKILL)
	r := finish(t, cmd, out, errb, began)
	want := fmt.Sprintf("gompirun: rank 1 (pid %d) was killed by signal 9 (killed)\n", pids[1])
	if r.code != 137 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want 137 and %q", r.code, r.stderr, want)
	}
	noneLeft(t, pids)
}

func TestGompirunKilled(t *testing.T) {
	for name, env := range map[string][]string{"tcp": tcp, "auto": nil} {
		t.Run(name, func(t *testing.T) {
			cmd, out, errb := start(t, env, "-np", "3", "-ranks", "4", jobProg, "-mode", "stuck")
			pids := waitPids(t, out, 4)
			cmd.Process.Kill()
			finish(t, cmd, out, errb, time.Now())
			noneLeft(t, pids)
		})
	}
}

func TestInterruptIsForwarded(t *testing.T) {
	began := time.Now()
	cmd, out, errb := start(t, nil, "-np", "2", jobProg, "-mode", "stuck")
	pids := waitPids(t, out, 2)
	cmd.Process.Signal(syscall.SIGINT)
	r := finish(t, cmd, out, errb, began)
	if r.code != 130 || !strings.Contains(r.stderr, "received interrupt") {
		t.Fatalf("exit %d, stderr %q; want 130 and the signal named", r.code, r.stderr)
	}
	noneLeft(t, pids)
}

// TestTimeout: a job that runs past -timeout is stopped, and the report
// says what each rank was doing: rank 0 computes, rank 1 waits for it.
func TestTimeout(t *testing.T) {
	r := gorun(t, nil, "-np", "2", "-timeout", "3s", jobProg, "-mode", "stuck")
	want := "gompirun: job timed out after 3s; its ranks were:\n" +
		"  rank 0 not blocked in MPI (computing, polling or between waits)\n" +
		"  rank 1 in Recv from 0 tag 99\n"
	if r.code != 124 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want 124 and %q", r.code, r.stderr, want)
	}
	noneLeft(t, pidsOf(r.stdout))
}

func TestStdinGoesToRankZeroAndTagOutput(t *testing.T) {
	out := outputWithInput(t, strings.NewReader("hello there\n"), "-np", "2", "-tag-output", jobProg, "-mode", "stdin")
	if want := "[0] rank 0 read \"hello there\\n\"\n"; out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
}

// TestLastLinesWithoutNewline: each rank's unterminated last line ends as
// a line of its own, never glued to another rank's.
func TestLastLinesWithoutNewline(t *testing.T) {
	r := gorun(t, nil, "-np", "3", "-timeout", "20s", jobProg, "-mode", "nonewline")
	lines := strings.Split(r.stdout, "\n")
	sort.Strings(lines)
	if want := []string{"", "rank 0", "rank 1", "rank 2"}; r.code != 0 || !slices.Equal(lines, want) {
		t.Fatalf("exit %d, stdout %q; want the lines %q", r.code, r.stdout, want[1:])
	}
}

// outputWithInput runs gompirun with args and input on its standard input,
// and returns its standard output; the job is killed after 60 s.
func outputWithInput(t *testing.T, input io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command(gompirun, args...)
	cmd.Stdin = input
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gompirun %v: %v", args, err)
	}
	return string(out)
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{"-np", "0", jobProg},
		{"-bogus", jobProg},
		{"-np", "2"},
		{"-np", "2", "-ranks", "1", jobProg},
		{"-np", "2", "./testdata/no-such-program"},
		{"-np", "2", "no-such-command-gompi"},
	}
	for _, args := range cases {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "gompirun: ") {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line", args, r.code, r.stderr)
		}
	}
	r := gorun(t, freshCache, "-np", "2", "./testdata/broken")
	if r.code != 2 || !strings.HasSuffix(r.stderr, "gompirun: cannot build "+mustAbs(t, "testdata/broken")+"\n") ||
		!strings.Contains(r.stderr, "undefined") {
		t.Errorf("broken program: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestNotMainPackage: go build makes an archive of a library package, which
// gompirun once tried to run ("permission denied").
func TestNotMainPackage(t *testing.T) {
	r := gorun(t, freshCache, "-np", "2", "./testdata/notmain")
	want := "gompirun: " + mustAbs(t, "testdata/notmain") + " is not a main package: it builds no program to run\n"
	if r.code != 2 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, want)
	}
}

func TestBuildsPackage(t *testing.T) {
	r := gorun(t, freshCache, "-np", "2", "-timeout", "60s", "./testdata/job")
	wantRing(t, r, 2)
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// syncBuffer is a buffer that exec's copying goroutine writes while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
