package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// Tests of gompirun -virtual P: whole jobs, virtual clocks in every process,
// the report merged by gompirun.

var (
	vprogsOnce sync.Once
	vprogsErr  error
	vprogs     = map[string]string{} // name -> binary
)

// vprog builds (once per test binary) the programs the virtual-time tests
// run, next to gompirun so that TestMain removes them.
func vprog(t *testing.T, name string) string {
	t.Helper()
	vprogsOnce.Do(func() {
		dir := filepath.Dir(gompirun)
		for name, pkg := range map[string]string{
			"pingpong": "../../samples/pingpong",
			"skeleton": "../../samples/skeleton",
			"taskfarm": "../../samples/taskfarm",
			"polls":    "./testdata/polls",
			"cpuburn":  "./testdata/cpuburn",
			"earlyack": "./testdata/earlyack",
			"stalls":   "./testdata/stalls",
			"barrier":  "../../samples/barrier",
			"gatefall": "./testdata/gatefallback",
			"commskel": "../../samples/commskel",
		} {
			bin := filepath.Join(dir, "v-"+name)
			if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
				vprogsErr = fmt.Errorf("building %s: %v\n%s", pkg, err, out)
				return
			}
			vprogs[name] = bin
		}
	})
	if vprogsErr != nil {
		t.Fatal(vprogsErr)
	}
	return vprogs[name]
}

// vrun runs a virtual job that must succeed and returns its report.
func vrun(t *testing.T, env []string, args ...string) (mpi.Report, result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.json")
	r := gorun(t, env, append([]string{"-timeout", "25s", "-report", file}, args...)...)
	if r.code != 0 {
		t.Fatalf("gompirun %v: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep mpi.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, data)
	}
	return rep, r
}

// The machine of testdata/vmesh.json: one core per node on a 4 x 4 mesh,
// so ranks 0 and 1 are h = 1 hop apart.
const (
	meshBMem = 6.38e9
	meshBNet = 4.16e9
	meshL    = 15e-6 + 1*0.6e-6
)

func eagerOneWay(s float64) float64      { return 2*s/meshBMem + s/meshBNet + meshL }
func rendezvousOneWay(s float64) float64 { return 3*meshL + 2*s/meshBMem + s/meshBNet }

// onewayLine is one line of the pingpong sample's table.
var onewayLine = regexp.MustCompile(`(?m)^\s*(\d+)\s+([0-9.]+)\s+[0-9.]+$`)

// TestVirtualPingPongClosedFormsThroughGompirun checks the closed forms of
// docs/model.md (cpu-scale 0, receiver waiting, h > 0) on the pingpong
// sample run by gompirun over two processes. Rank 0 of a ping-pong of k
// round trips per size ends at exactly sum over sizes of 2k x one-way
// (k = iters + the warm-up), which the report gives to full precision;
// the sample's table (3 decimals of a microsecond) is checked per size.
func TestVirtualPingPongClosedFormsThroughGompirun(t *testing.T) {
	prog := vprog(t, "pingpong")
	const iters = 3
	for _, tc := range []struct {
		name       string
		eagerLimit int // the machine's net_eager_limit; -1: omitted (64 KiB)
		max        int
	}{
		{"eager", -1, 1 << 10},
		{"rendezvous", 0, 1 << 20}, // every non-empty message by rendezvous
		{"mixed", -1, 1 << 20},
		{"mixed-machine-limit", 4 << 10, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			machine := "testdata/vmesh.json"
			eagerLimit := vtime.DefaultEagerLimit
			if tc.eagerLimit >= 0 {
				m, err := vtime.LoadMachine(machine)
				if err != nil {
					t.Fatal(err)
				}
				eagerLimit = tc.eagerLimit
				m.NetEagerLimit = &eagerLimit
				machine = filepath.Join(t.TempDir(), "vmesh.json")
				if err := os.WriteFile(machine, m.JSON(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The protocol is the target's: gompi's own eager limit does
			// not change the prediction.
			env := []string{"GOMPI_EAGER_LIMIT=" + strconv.Itoa(1<<20-eagerLimit)}
			rep, r := vrun(t, env, "-np", "2", "-virtual", "2", "-cpu-scale", "0",
				"-machine", machine, prog, "-iters", strconv.Itoa(iters), "-max", strconv.Itoa(tc.max))
			oneway := map[int]float64{}
			want := 0.0
			for s := 0; s <= tc.max; s = max(2*s, 1) {
				ow := eagerOneWay(float64(s))
				if s > eagerLimit {
					ow = rendezvousOneWay(float64(s))
				}
				oneway[s] = ow
				want += 2 * (iters + 1) * ow
			}
			if len(rep.PerRank) != 2 || rep.PerRank[0].Rank != 0 {
				t.Fatalf("report has ranks %+v", rep.PerRank)
			}
			if got := rep.PerRank[0].End; math.Abs(got-want) > 1e-9*want {
				t.Errorf("rank 0 ends at %.15g s, closed forms give %.15g (relative error %.2g)", got, want, math.Abs(got-want)/want)
			}
			if rep.Predicted != rep.PerRank[0].End {
				t.Errorf("predicted %.15g, want rank 0's end %.15g", rep.Predicted, rep.PerRank[0].End)
			}
			lines := onewayLine.FindAllStringSubmatch(r.stdout, -1)
			if len(lines) != len(oneway) {
				t.Fatalf("%d table lines for %d sizes:\n%s", len(lines), len(oneway), r.stdout)
			}
			for _, l := range lines {
				s, _ := strconv.Atoi(l[1])
				us, _ := strconv.ParseFloat(l[2], 64)
				if w := oneway[s] * 1e6; math.Abs(us-w) > 0.0005+1e-12 {
					t.Errorf("%d bytes: printed one-way %.3f us, closed form %.6f us", s, us, w)
				}
			}
		})
	}
}

// TestVirtualRepeatableThroughGompirun runs the Elapse-based skeleton
// (samples/skeleton) with cpu-scale 0 as P = 8 ranks hosted by 1, 2 and 4
// processes, over shared memory and over TCP, twice each, on a one-node
// target (tianhe1a: h = 0) and on a network of dual-core nodes: the
// predicted time and every rank's end must be bit-identical, with eager
// halos, with a rendezvous halo, and with -pipeline (Isend + Send streams
// that stall Algorithm 2 in every iteration: every process must resolve
// them as one does, none speculatively). On tianhe1a the rendezvous halo followed by the Allreduce
// made ranks 2 and 6 end 8 B / B_mem apart from run to run until
// vtime.Rank.Deal dealt a message that arrived when its receive was posted
// at the posting time (vtime/started_test.go).
func TestVirtualRepeatableThroughGompirun(t *testing.T) {
	prog := vprog(t, "skeleton")
	type config struct {
		np  string
		env []string
	}
	configs := []config{{"1", nil}, {"2", nil}, {"4", nil}, {"2", tcp}, {"4", tcp}}
	for _, tc := range []struct {
		name, machine string
		args          []string
	}{
		{"eager-halos/tianhe1a", "tianhe1a", []string{"-big", "16384"}},
		{"eager-halos/mesh3d", "xsim-mesh3d-dualcore", []string{"-big", "16384"}},
		{"rendezvous-halo/tianhe1a", "tianhe1a", []string{"-big", "262144"}},
		{"rendezvous-halo/mesh3d", "xsim-mesh3d-dualcore", []string{"-big", "262144"}},
		{"pipeline/tianhe1a", "tianhe1a", []string{"-big", "262144", "-pipeline"}},
		{"pipeline/mesh3d", "xsim-mesh3d-dualcore", []string{"-big", "262144", "-pipeline"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ref *mpi.Report
			var refWhat string
			variants := map[string]bool{}
			stalls := map[int64]bool{} // stalls resolved per run: the same in every configuration
			for _, c := range configs {
				for rep := 0; rep < 2; rep++ {
					what := fmt.Sprintf("-np %s %v run %d", c.np, c.env, rep)
					args := []string{"-np", c.np, "-virtual", "8", "-cpu-scale", "0", "-machine", tc.machine, prog, "-iters", "4"}
					got, _ := vrun(t, c.env, append(args, tc.args...)...)
					if len(got.PerRank) != 8 || len(got.Unfinished) != 0 || got.Temporal != 0 || got.SpeculativeStalls != 0 {
						t.Fatalf("%s: %d ranks, unfinished %v, %d temporal calls, %d speculative stalls",
							what, len(got.PerRank), got.Unfinished, got.Temporal, got.SpeculativeStalls)
					}
					stalls[got.Stalls] = true
					var key strings.Builder
					for _, r := range got.PerRank {
						fmt.Fprintf(&key, "%x ", math.Float64bits(r.End))
					}
					variants[key.String()] = true
					if ref == nil {
						ref, refWhat = &got, what
						continue
					}
					if got.Predicted != ref.Predicted {
						t.Errorf("%s: predicted %.17g, %s predicted %.17g", what, got.Predicted, refWhat, ref.Predicted)
					}
					for i, r := range got.PerRank {
						if r.End != ref.PerRank[i].End {
							t.Errorf("%s: rank %d ends at %.17g, %s at %.17g", what, i, r.End, refWhat, ref.PerRank[i].End)
						}
					}
				}
			}
			if len(stalls) != 1 {
				t.Errorf("stalls resolved per run differ between runs: %v", stalls)
			}
			t.Logf("%d distinct sets of per-rank end times over %d runs; stalls per run %v", len(variants), 2*len(configs), stalls)
		})
	}
}

// TestVirtualReportAndUsage checks the -report file and the usage errors of
// the virtual-time options.
func TestVirtualReportAndUsage(t *testing.T) {
	prog := vprog(t, "skeleton")
	file := filepath.Join(t.TempDir(), "r.json")
	r := gorun(t, nil, "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-report", file, "-timeout", "25s", prog, "-iters", "2")
	if r.code != 0 || !strings.Contains(r.stderr, "gompi prediction: 4 ranks on machine tianhe1a, cpu-scale 0") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"machine", "ranks", "cpu_scale", "predicted", "predicted_rank", "wall", "slowdown",
		"computation", "communication", "waiting", "sent", "sent_bytes", "temporal", "history_misses", "per_rank"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("report has no %q: %s", f, data)
		}
	}
	var rep mpi.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Ranks != 4 || len(rep.PerRank) != 4 || !(rep.Predicted > 0) || rep.Machine != "tianhe1a" {
		t.Errorf("report: %d ranks, %d records, predicted %v, machine %q", rep.Ranks, len(rep.PerRank), rep.Predicted, rep.Machine)
	}
	for _, r := range rep.PerRank {
		sum := r.Computation + r.Communication + r.Waiting
		if !r.Finished || math.Abs(sum-r.End) > 1e-12*r.End {
			t.Errorf("rank %d: finished %v, %g + %g + %g != end %g", r.Rank, r.Finished, r.Computation, r.Communication, r.Waiting, r.End)
		}
	}

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-np", "2", "-virtual", "4", "-machine", "testdata/badmachine.json", prog}, "bmem"},
		{[]string{"-np", "2", "-virtual", "4", "-machine", "testdata/no-such-machine.json", prog}, "no-such-machine.json"},
		{[]string{"-np", "2", "-virtual", "4", "-machine", "testdata/badcontention.json", prog}, "contention[1]"},
		{[]string{"-np", "2", "-machine", "tianhe1a", prog}, "need -virtual"},
		{[]string{"-np", "2", "-report", file, prog}, "need -virtual"},
		{[]string{"-np", "4", "-virtual", "2", prog}, "-virtual 2"},
		{[]string{"-np", "2", "-virtual", "4", "-cpu-scale", "-1", prog}, "-cpu-scale"},
		{[]string{"-np", "2", "-virtual", "4", "-ranks", "4", prog}, "-ranks"},
	} {
		r := gorun(t, nil, c.args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "gompirun: ") || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line naming %q", c.args, r.code, r.stderr, c.msg)
		}
	}
}

var burnedLine = regexp.MustCompile(`rank (\d+) burned (\d+) ns`)

// TestVirtualMeasuresComputation runs a program whose ranks burn a known
// amount of their own thread's CPU time under -cpu-scale 1 (and 2): the
// report must charge each rank that computation, scaled, within 5%. The
// comparison is with the program's own thread CPU clock, so host load does
// not matter.
func TestVirtualMeasuresComputation(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is measured on Linux only")
	}
	prog := vprog(t, "cpuburn")
	for _, c := range []struct{ np, p, scale string }{{"1", "2", "1"}, {"2", "2", "2"}} {
		rep, r := vrun(t, nil, "-np", c.np, "-virtual", c.p, "-cpu-scale", c.scale, prog, "-ms", "150")
		scale, _ := strconv.ParseFloat(c.scale, 64)
		burned := map[int]float64{}
		for _, g := range burnedLine.FindAllStringSubmatch(r.stdout, -1) {
			rank, _ := strconv.Atoi(g[1])
			ns, _ := strconv.ParseFloat(g[2], 64)
			burned[rank] = ns * 1e-9
		}
		if len(burned) != len(rep.PerRank) {
			t.Fatalf("%d ranks printed, %d in the report:\n%s", len(burned), len(rep.PerRank), r.stdout)
		}
		for _, rr := range rep.PerRank {
			want := scale * burned[rr.Rank]
			if rr.Computation < want || rr.Computation > 1.05*want {
				t.Errorf("-np %s -cpu-scale %s: rank %d charged %.6f s of computation, burned %.6f s (x %g)",
					c.np, c.scale, rr.Rank, rr.Computation, burned[rr.Rank], scale)
			}
		}
	}
}

// TestVirtualContentionThroughGompirun runs testdata/cpuburn's 2 ranks on
// one node of testdata/vcontended.json (2 cores per node, S(2) = 1.5).
// Computed one at a time (GOMAXPROCS=1, one process), each rank is charged
// 1.5 x what it burned; with the host concurrency overridden to 2, or two
// processes on a host of at least 2 cores, the measurement already holds
// the contention and is charged as burned. The report's records and its
// text say so.
func TestVirtualContentionThroughGompirun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is measured on Linux only")
	}
	prog := vprog(t, "cpuburn")
	twoProcs := min(runtime.NumCPU(), 2)
	for _, c := range []struct {
		np       string
		env      []string
		kh       int
		factor   float64
		textLine string
	}{
		{"1", []string{"GOMAXPROCS=1"}, 1, 1.5, "computation x1.5 for contention: 2 ranks per node, host computes 1 at once"},
		{"1", []string{"GOMAXPROCS=1", launch.EnvHostConcurrency + "=2"}, 2, 1, ""},
		{"2", []string{"GOMAXPROCS=1"}, twoProcs, 1.5 / []float64{1, 1.5}[twoProcs-1], ""},
	} {
		rep, r := vrun(t, c.env, "-np", c.np, "-virtual", "2", "-cpu-scale", "1", "-machine", "testdata/vcontended.json", prog, "-ms", "60")
		burned := map[int]float64{}
		for _, g := range burnedLine.FindAllStringSubmatch(r.stdout, -1) {
			rank, _ := strconv.Atoi(g[1])
			ns, _ := strconv.ParseFloat(g[2], 64)
			burned[rank] = ns * 1e-9
		}
		for _, rr := range rep.PerRank {
			if rr.NodeRanks != 2 || rr.HostConcurrency != c.kh || math.Abs(rr.Contention-c.factor) > 1e-12 {
				t.Errorf("-np %s %v: rank %d record k_t %d, k_h %d, factor %g; want 2, %d, %g",
					c.np, c.env, rr.Rank, rr.NodeRanks, rr.HostConcurrency, rr.Contention, c.kh, c.factor)
			}
			want := c.factor * burned[rr.Rank]
			if rr.Computation < want || rr.Computation > 1.05*want {
				t.Errorf("-np %s %v: rank %d charged %.6f s, burned %.6f s (x %g)", c.np, c.env, rr.Rank, rr.Computation, burned[rr.Rank], c.factor)
			}
		}
		if mentions := strings.Contains(r.stderr, "for contention"); c.factor == 1 && mentions {
			t.Errorf("-np %s %v: factor 1, yet the report mentions contention:\n%s", c.np, c.env, r.stderr)
		}
		if c.textLine != "" && !strings.Contains(r.stderr, c.textLine) {
			t.Errorf("-np %s %v: the report lacks %q:\n%s", c.np, c.env, c.textLine, r.stderr)
		}
	}
}

// TestVirtualEarlyAckAcrossProcesses checks the stall handling of
// Algorithm 2 (mpi/virtual_stall.go) in a world spread over processes.
// testdata/earlyack parks rank 0 in a Recv with rank 1's rendezvous ACK
// early; rank 0 then computes 1 ms before it waits for its Isend. The ACK
// must be dealt with exactly, at that wait's start T, so rank 1 gets its
// DATA after T, with the ranks in one process and in three (over shared
// memory and over TCP): the job is not stalled while rank 2 sleeps, and
// gompirun's job-wide detection (internal/launch/quiesce.go) sees that.
// Before it, a process that could not see the whole job dealt with the ACK
// at once, at its arrival 2 l, when rank 0 parked: rank 1 ended 1 ms
// earlier (docs/model.md, "Stalls"). Rank 2 sleeps longer than gompirun's
// fallback for counters that never balance (launch.StuckTicks ticks): that
// fallback must not fire while a rank is outside MPI.
func TestVirtualEarlyAckAcrossProcesses(t *testing.T) {
	sleep := ((launch.StuckTicks + 1) * launch.TickEvery).String()
	prog := vprog(t, "earlyack")
	const s, small, work = 256 << 10, 8, 1e-3
	l1, l2 := meshL, 15e-6+2*0.6e-6 // rank 0 to 1: 1 hop; rank 2 to 0: 2 hops
	recvEnd := small/meshBMem + small/meshBNet + l2 + small/meshBMem
	T := recvEnd + work // rank 0's Wait starts
	data := func(from float64) float64 { return from + 2*s/meshBMem + s/meshBNet + l1 }
	exact := []float64{T + s/meshBMem, data(T)}
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b }
	for _, c := range []struct {
		np  string
		env []string
	}{{"1", nil}, {"3", nil}, {"3", tcp}} {
		rep, _ := vrun(t, c.env, "-np", c.np, "-virtual", "3", "-cpu-scale", "0", "-machine", "testdata/vmesh.json", prog, "-sleep", sleep)
		got := []float64{rep.PerRank[0].End, rep.PerRank[1].End}
		if !same(got[0], exact[0]) || !same(got[1], exact[1]) {
			t.Errorf("-np %s %v: ranks 0 and 1 end at %.12g and %.12g s; exact %.12g and %.12g (early-ACK speculation gives %.12g for rank 1)",
				c.np, c.env, got[0], got[1], exact[0], exact[1], data(2*l1))
		}
		if rep.SpeculativeStalls != 0 || rep.Stalls != 0 {
			t.Errorf("-np %s %v: %d stalls resolved exactly, %d speculatively; want none (the job never stalls)", c.np, c.env, rep.Stalls, rep.SpeculativeStalls)
		}
	}
}

// TestVirtualDeadlockAcrossProcesses: a virtual job whose ranks all wait for
// messages nobody sends fails with a line per rank naming its call, whether
// its ranks share a process (the in-process watcher) or not (gompirun's
// detection).
func TestVirtualDeadlockAcrossProcesses(t *testing.T) {
	want := "gompirun: deadlock: every unfinished rank is blocked and nothing is in flight:\n"
	for i := 0; i < 4; i++ {
		want += fmt.Sprintf("  rank %d in Recv from any source tag 99\n", i)
	}
	for _, np := range []string{"1", "2"} {
		r := gorun(t, nil, "-np", np, "-virtual", "4", "-cpu-scale", "0", "-timeout", "20s", jobProg, "-mode", "hang")
		// No rank sent anything or finished: no partial report
		// (partial_test.go has jobs that did).
		if r.code != 1 || r.stderr != want {
			t.Errorf("-np %s: exit %d, stderr %q; want exit 1 and %q", np, r.code, r.stderr, want)
		}
	}
}

// TestVirtualStallAcrossProcesses: with -chain, testdata/earlyack stalls
// for real (every rank waits; rank 0 holds rank 1's early ACK). The stall
// is resolved exactly as in one process, the ACK dealt with at its arrival
// 2 l, so rank 1 ends at that plus the rendezvous DATA's one-way time (and
// the start of its 8-byte send to rank 2), with
// the ranks in one process and in three, over shared memory and TCP. With
// -poll rank 1 polls with Test; a poll in virtual time waits for the job
// to settle (mpi's virtual_sensitive.go), so the stall is still resolved
// exactly. Rank 1 answers rank 0's REQ at its first poll at or after the
// REQ's arrival, sees its data at the first poll at or after the DATA's,
// and that poll costs its time too, so it ends within three polls' cost
// (0.5 us each on this machine) of the blocking case.
func TestVirtualStallAcrossProcesses(t *testing.T) {
	prog := vprog(t, "earlyack")
	const s, small = 256 << 10, 8
	want := 2*meshL + 2*s/meshBMem + s/meshBNet + meshL + small/meshBMem // then it sends 8 bytes to rank 2
	var ref []float64
	for _, c := range []struct {
		np  string
		env []string
	}{{"1", nil}, {"3", nil}, {"3", tcp}} {
		rep, _ := vrun(t, c.env, "-np", c.np, "-virtual", "3", "-cpu-scale", "0", "-machine", "testdata/vmesh.json", prog, "-chain")
		var ends []float64
		for _, r := range rep.PerRank {
			ends = append(ends, r.End)
		}
		if ref == nil {
			ref = ends
		}
		if fmt.Sprint(ends) != fmt.Sprint(ref) || math.Abs(ends[1]-want) > 1e-9*want {
			t.Errorf("-np %s %v: ranks end at %v; -np 1 gave %v, rank 1 must end at %.12g", c.np, c.env, ends, ref, want)
		}
		if rep.Stalls != 1 || rep.SpeculativeStalls != 0 {
			t.Errorf("-np %s %v: %d stalls resolved exactly, %d speculatively; want 1 and 0", c.np, c.env, rep.Stalls, rep.SpeculativeStalls)
		}
	}
	rep, r := vrun(t, nil, "-np", "3", "-virtual", "3", "-cpu-scale", "0", "-machine", "testdata/vmesh.json", prog, "-chain", "-poll")
	if rep.Stalls != 1 || rep.SpeculativeStalls != 0 || rep.Temporal == 0 || rep.TemporalExact != rep.Temporal {
		t.Errorf("-poll: %d stalls resolved exactly, %d speculatively, %d of %d polls answered in virtual time; want 1, 0 and all (stderr:\n%s)",
			rep.Stalls, rep.SpeculativeStalls, rep.TemporalExact, rep.Temporal, r.stderr)
	}
	if e := rep.PerRank[1].End; e < want || e > want+3*0.5e-6 {
		t.Errorf("-poll: rank 1 ends at %.12g s, want within three polls (1.5 us) after %.12g s", e, want)
	}
}

// TestVirtualStallsWhileSpinning: testdata/stalls stalls once a round
// but the first, with two processes whose ranks have a core each (on a
// host of two cores or more), which then spin while they wait and count
// as asleep past their first checks (transport.Spin.Counted); gompirun
// must see every stall and resolve it exactly, as one process does, and
// the prediction must be the same. With a spin that did not count, each
// stall would wait out the spin (100 ms), and the job would run past
// -timeout (30 s against about a second).
func TestVirtualStallsWhileSpinning(t *testing.T) {
	prog := vprog(t, "stalls")
	const rounds = 300
	var ref float64
	for _, np := range []string{"1", "2"} {
		rep, r := vrun(t, nil, "-np", np, "-virtual", "2", "-cpu-scale", "0", "-timeout", "20s", prog, "-n", strconv.Itoa(rounds))
		if rep.Stalls != rounds-1 || rep.SpeculativeStalls != 0 {
			t.Errorf("-np %s: %d stalls resolved exactly, %d speculatively; want %d and 0 (stderr:\n%s)",
				np, rep.Stalls, rep.SpeculativeStalls, rounds-1, r.stderr)
		}
		if ref == 0 {
			ref = rep.Predicted
		} else if rep.Predicted != ref {
			t.Errorf("-np %s predicts %.17g s, -np 1 %.17g s", np, rep.Predicted, ref)
		}
	}
}

// TestPrintMachine: -print-machine prints a preset or a machine file as a
// machine file with every default spelt out (the eager limits among them),
// which parses back to the same machine; a bad name or file is one line
// and exit 2.
func TestPrintMachine(t *testing.T) {
	for _, spec := range append(vtime.Presets(), "testdata/vmesh.json") {
		r := gorun(t, nil, "-print-machine", spec)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("-print-machine %s: exit %d, stderr %q", spec, r.code, r.stderr)
		}
		printed, err := vtime.ParseMachine([]byte(r.stdout))
		if err != nil {
			t.Fatalf("-print-machine %s: output does not parse: %v\n%s", spec, err, r.stdout)
		}
		want, err := vtime.LoadMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		if string(printed.JSON()) != string(want.JSON()) || r.stdout != string(want.JSON())+"\n" {
			t.Errorf("-print-machine %s printed\n%s\nwant\n%s", spec, r.stdout, want.JSON())
		}
		for _, field := range []string{`"eager_limit": 65536`, `"net_eager_limit": 65536`, `"nic_queue": false`, `"mapping": "block"`} {
			if !strings.Contains(r.stdout, field) {
				t.Errorf("-print-machine %s does not spell out %s:\n%s", spec, field, r.stdout)
			}
		}
	}
	for _, args := range [][]string{
		{"-print-machine", "no-such-machine"},
		{"-print-machine", "testdata/badmachine.json"},
		{"-print-machine", "tianhe1a", "-np", "2"},
		{"-print-machine", "tianhe1a", "./testdata/job"},
	} {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "gompirun: ") || r.stdout != "" {
			t.Errorf("gompirun %v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestVirtualTaskFarmAcrossProcesses: a task farm's temporally sensitive
// calls are answered in virtual time whatever the processes and the
// transport: the order of results and the predicted time are the same from
// one process, two over shared memory or TCP, and four, with workers that
// burn host time in a pattern unrelated to their tasks (-jitter), whether
// the master receives from AnySource or completes a receive per worker
// with Waitany, Waitsome or a Testany loop; and the order is the same for
// all four.
func TestVirtualTaskFarmAcrossProcesses(t *testing.T) {
	prog := vprog(t, "taskfarm")
	const tasks = 40
	var firstOrder string
	for _, mode := range []string{"anysource", "waitany", "waitsome", "testany"} {
		var wantOrder string
		var wantTime float64
		for i, tc := range []struct {
			name string
			env  []string
			np   string
		}{
			{"one process", nil, "1"},
			{"two over shm", nil, "2"},
			{"two over tcp", tcp, "2"},
			{"four", nil, "4"},
		} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				rep, r := vrun(t, tc.env, "-np", tc.np, "-virtual", "8", "-cpu-scale", "0", "-machine", "tianhe1a",
					prog, "-tasks", strconv.Itoa(tasks), "-jitter", "-mode", mode)
				order, _, _ := strings.Cut(r.stdout, "\n")
				if !strings.HasPrefix(order, "results in order: ") || len(strings.Fields(order)) != tasks+3 {
					t.Fatalf("no order of %d results in the output:\n%s", tasks, r.stdout)
				}
				if mode != "testany" && rep.Temporal != tasks || rep.Temporal < tasks || rep.TemporalExact != rep.Temporal {
					t.Errorf("%d sensitive calls, %d answered in virtual time; want %d (more for Testany), all", rep.Temporal, rep.TemporalExact, tasks)
				}
				if firstOrder == "" {
					firstOrder = order
				} else if order != firstOrder {
					t.Errorf("%s\nAnySource gave\n%s", order, firstOrder)
				}
				if i == 0 {
					wantOrder, wantTime = order, rep.Predicted
					return
				}
				if order != wantOrder || rep.Predicted != wantTime {
					t.Errorf("%s\npredicted %v s; one process gave\n%s\npredicted %v s", order, rep.Predicted, wantOrder, wantTime)
				}
			})
		}
	}
}

// TestVirtualSettledHistoryAcrossProcesses: the times at which gompirun
// finds the job settled reach every process (launch.Order.Settled), so the
// ranks of a long task farm keep a few waits for Algorithm 3, not one per
// task, and no message misses them.
func TestVirtualSettledHistoryAcrossProcesses(t *testing.T) {
	prog := vprog(t, "taskfarm")
	rep, _ := vrun(t, nil, "-np", "2", "-virtual", "4", "-cpu-scale", "0", prog, "-tasks", "1000", "-work", "10us")
	if rep.HistoryKept > 8 || rep.HistoryMisses != 0 {
		t.Errorf("a rank keeps %d waits after 1000 tasks (want a few), %d history misses", rep.HistoryKept, rep.HistoryMisses)
	}
}

// TestVirtualComputingRankAcrossProcesses: over processes too, a rank that
// computes does not hold a decision it cannot change: rank 0's AnySource
// receive takes rank 1's result once rank 2's clock (measured CPU time)
// has passed it, while rank 2 still computes, and the results come in the
// target's order.
func TestVirtualComputingRankAcrossProcesses(t *testing.T) {
	prog := vprog(t, "polls")
	rep, r := vrun(t, nil, "-np", "3", "-virtual", "3", "-cpu-scale", "1", "-machine", "tianhe1a", prog, "-mode", "compute")
	var first, slow int64
	var sources []string
	for _, line := range strings.Split(r.stdout, "\n") {
		switch f := strings.Fields(line); {
		case strings.HasPrefix(line, "first at "):
			first, _ = strconv.ParseInt(f[2], 10, 64)
		case strings.HasPrefix(line, "slow done at "):
			slow, _ = strconv.ParseInt(f[3], 10, 64)
		case strings.HasPrefix(line, "source "):
			sources = append(sources, f[1])
		}
	}
	if strings.Join(sources, " ") != "1 2" || first == 0 || slow == 0 {
		t.Fatalf("unexpected output:\n%s", r.stdout)
	}
	if first >= slow {
		t.Errorf("rank 0 got its first result %d ns after rank 2 finished computing; want before", first-slow)
	}
	if rep.TemporalExact != rep.Temporal {
		t.Errorf("%d sensitive calls, %d answered in virtual time", rep.Temporal, rep.TemporalExact)
	}
}

// TestVirtualPollsAcrossProcesses: Iprobe loops answer in virtual time over
// processes as in one: ranks that reach rank 0 in the reverse order on the
// host (testdata/polls sleeps the highest rank least) are found in their
// target order, each at the same Wtime, and a loop polling until Wtime
// passes a deadline makes the same number of polls, whatever the
// processes and the transport.
func TestVirtualPollsAcrossProcesses(t *testing.T) {
	prog := vprog(t, "polls")
	for _, mode := range []string{"iprobe", "wtime"} {
		var want string
		for i, tc := range []struct {
			name string
			env  []string
			np   string
		}{{"one process", nil, "1"}, {"two over shm", nil, "2"}, {"two over tcp", tcp, "2"}, {"four", nil, "4"}} {
			_, r := vrun(t, tc.env, "-np", tc.np, "-virtual", "4", "-cpu-scale", "0", "-machine", "tianhe1a", prog, "-mode", mode)
			if i == 0 {
				want = r.stdout
				if mode == "iprobe" && !regexp.MustCompile(`(?s)^source 1 .*\nsource 2 .*\nsource 3 [^\n]*\n$`).MatchString(want) {
					t.Fatalf("%s: sources not in their target order:\n%s", mode, want)
				}
				if mode == "wtime" && !strings.HasPrefix(want, "1000 polls, Wtime 0.0005") {
					t.Fatalf("%s: want 1000 polls of 0.5 us before 500 us:\n%s", mode, want)
				}
				continue
			}
			if r.stdout != want {
				t.Errorf("%s, %s:\n%sone process gave\n%s", mode, tc.name, r.stdout, want)
			}
		}
	}
}
