package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gompi/gompi/mpi"
)

var (
	raceProgsMu sync.Mutex
	raceProgs   = map[string]string{} // name -> binary built with -race
)

// gateProg is vprog's program name, built with the race detector when
// the tests run under it: the gate across processes is concurrent code
// that runs only in launched processes (the whole suite's programs
// under -race would take it past its time).
func gateProg(t *testing.T, name string) string {
	t.Helper()
	bin := vprog(t, name)
	if !raceBuild {
		return bin
	}
	raceProgsMu.Lock()
	defer raceProgsMu.Unlock()
	if b, ok := raceProgs[name]; ok {
		return b
	}
	pkg := map[string]string{"barrier": "../../samples/barrier", "skeleton": "../../samples/skeleton",
		"commskel": "../../samples/commskel", "gatefall": "./testdata/gatefallback"}[name]
	race := filepath.Join(filepath.Dir(bin), "race-"+name)
	if out, err := exec.Command("go", "build", "-race", "-o", race, pkg).CombinedOutput(); err != nil {
		t.Fatalf("building %s with -race: %v\n%s", pkg, err, out)
	}
	raceProgs[name] = race
	return race
}

// TestVirtualGateAcrossProcesses: with the ranks in 2 and 3 processes,
// over shared memory and TCP, Barrier and Allreduce computed at the gate
// across processes (GOMPI_GATE_RANKS low enough) give the prediction and
// every rank's record of the same job run by messages (the threshold above
// the job), bit for bit, and each rank counts the collectives the gate
// computed: samples/barrier (a Barrier and an Allreduce, on 37 ranks, so
// that the Allreduce folds pairs across processes), samples/skeleton with
// -pipeline (halos and Algorithm 2 stalls between its Allreduces), and
// testdata/gatefallback, whose first Barrier no process may compute (the
// last rank enters it with a message on the way, so its process is not
// ready and the others must fall back with it) and whose second it may.
func TestVirtualGateAcrossProcesses(t *testing.T) {
	for _, tc := range []struct {
		prog  string
		ranks string
		args  []string
		gated int64 // collectives a rank takes part in that the gate computes
	}{
		{"barrier", "37", nil, 2},
		{"skeleton", "8", []string{"-iters", "4", "-big", "262144", "-pipeline"}, 4},
		{"gatefall", "12", nil, 1},
	} {
		prog := gateProg(t, tc.prog)
		for _, np := range []string{"2", "3"} {
			for _, transport := range []string{"shm", "tcp"} {
				t.Run(fmt.Sprintf("%s/np%s/%s", tc.prog, np, transport), func(t *testing.T) {
					run := func(gateRanks string) mpi.Report {
						env := []string{"GOMPI_TRANSPORT=" + transport, "GOMPI_GATE_RANKS=" + gateRanks}
						args := append([]string{"-np", np, "-virtual", tc.ranks, "-cpu-scale", "0", prog}, tc.args...)
						rep, _ := vrun(t, env, args...)
						return rep
					}
					gate, msgs := run("2"), run("1000000")
					if gate.Predicted != msgs.Predicted {
						t.Errorf("predicted %.17g at the gate, %.17g by messages", gate.Predicted, msgs.Predicted)
					}
					if len(gate.PerRank) != len(msgs.PerRank) || len(gate.PerRank) == 0 {
						t.Fatalf("%d records at the gate, %d by messages", len(gate.PerRank), len(msgs.PerRank))
					}
					for i := range gate.PerRank {
						a, b := gate.PerRank[i], msgs.PerRank[i]
						if a.Gated != tc.gated || b.Gated != 0 {
							t.Errorf("rank %d: %d collectives computed at the gate, want %d; %d by messages", i, a.Gated, tc.gated, b.Gated)
						}
						// How many waits a rank keeps depends on when the
						// job's settled time reached it (host timing).
						a.Gated, a.HistoryKept, b.HistoryKept = 0, 0, 0
						if !reflect.DeepEqual(a, b) {
							t.Errorf("rank %d:\n at the gate  %+v\n by messages %+v", i, a, b)
						}
					}
				})
			}
		}
	}
}

// TestVirtualGateTrimsAcrossProcesses: across processes each agreement
// carries the earliest clock of each process's ranks when the gate last
// computed, and every process trims its ranks' histories of waits before
// the least of them (coll_bulk_procs.go): samples/commskel at 64 ranks, 10
// iterations of 2 Sendrecvs, an Allreduce and a Barrier, keeps a few
// waits a rank (without the trimming, 80: the ranks' settled time seldom
// reaches them in so short a run) and predicts what it does by messages.
func TestVirtualGateTrimsAcrossProcesses(t *testing.T) {
	prog := gateProg(t, "commskel")
	for _, np := range []string{"2", "3"} {
		run := func(gateRanks string) mpi.Report {
			rep, _ := vrun(t, []string{"GOMPI_GATE_RANKS=" + gateRanks}, "-np", np, "-virtual", "64", "-cpu-scale", "0", prog, "-iters", "10")
			return rep
		}
		gate, msgs := run("0"), run("1000000")
		if gate.Predicted != msgs.Predicted || gate.Gated != 64*20 {
			t.Errorf("-np %s: predicted %.17g at the gate (%d collectives computed), %.17g by messages", np, gate.Predicted, gate.Gated, msgs.Predicted)
		}
		if gate.HistoryKept > 8 {
			t.Errorf("-np %s: a rank keeps up to %d waits at the gate (%d by messages)", np, gate.HistoryKept, msgs.HistoryKept)
		}
	}
}

// TestVirtualGateDeadlock: ranks waiting at the gate across processes for
// a rank that never comes (testdata/gatefallback -stuck: it waits for a
// message nobody sends) are a deadlock gompirun reports, naming each
// rank's call, with 2 and 3 processes: a leader waiting for another
// process's agreement counts as asleep in its collective.
func TestVirtualGateDeadlock(t *testing.T) {
	prog := gateProg(t, "gatefall")
	for _, np := range []string{"2", "3"} {
		r := gorun(t, []string{"GOMPI_GATE_RANKS=0"}, "-np", np, "-virtual", "6", "-cpu-scale", "0", "-timeout", "20s", prog, "-stuck")
		want := "gompirun: deadlock: every unfinished rank is blocked and nothing is in flight:\n"
		for i := 0; i < 5; i++ {
			want += fmt.Sprintf("  rank %d in Barrier\n", i)
		}
		want += "  rank 5 in Recv from any source tag 99\n"
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("-np %s: exit %d, stderr %q; want exit 1 and %q", np, r.code, r.stderr, want)
		}
	}
}
