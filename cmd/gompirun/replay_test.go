package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// replayReport runs gompirun -replay with args and reads its -report.
func replayReport[T any](t *testing.T, args ...string) (T, result) {
	t.Helper()
	var rep T
	file := filepath.Join(t.TempDir(), "replay.json")
	r := gorun(t, nil, append([]string{"-report", file}, args...)...)
	if r.code != 0 {
		t.Fatalf("gompirun %v: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep, r
}

// TestRecordReplay: a record of a two-process virtual run replays, in
// gompirun's process, to the prediction the run made, bit for bit at
// cpu-scale 0, per rank; -machine A,B prints the comparison table and its
// reports, the same on every replay.
func TestRecordReplay(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := filepath.Join(t.TempDir(), "rec")
	exec, _ := vrun(t, nil, "-np", "2", "-virtual", "8", "-cpu-scale", "0", "-record", dir, prog, "-iters", "4")
	rep, r := replayReport[mpi.Report](t, "-replay", dir)
	if rep.Predicted != exec.Predicted || rep.Ranks != 8 || rep.Machine != exec.Machine {
		t.Fatalf("replay predicts %v s on %s, the run %v s on %s", rep.Predicted, rep.Machine, exec.Predicted, exec.Machine)
	}
	for i, pr := range rep.PerRank {
		if e := exec.PerRank[i]; pr.End != e.End || pr.Computation != e.Computation || pr.Waiting != e.Waiting || pr.Sent != e.Sent {
			t.Fatalf("rank %d: replay %+v, run %+v", i, pr, e)
		}
	}
	if !strings.Contains(r.stderr, "gompi prediction: 8 ranks on machine tianhe1a") || strings.Contains(r.stderr, "depended on timing") {
		t.Fatalf("report:\n%s", r.stderr)
	}
	reps, r := replayReport[[]mpi.Report](t, "-replay", dir, "-machine", "xsim-ethernet,tianhe1a,xsim-mesh2d")
	if len(reps) != 3 || reps[1].Predicted != exec.Predicted || reps[0].Predicted == exec.Predicted {
		t.Fatalf("what-if reports: %d, tianhe1a %v s (run %v s)", len(reps), reps[1].Predicted, exec.Predicted)
	}
	_, table, ok := strings.Cut(r.stderr, "gompi what-if: 8 ranks, cpu-scale 0\n")
	if rows := strings.Split(strings.TrimSpace(table), "\n"); !ok || len(rows) < 4 || !strings.HasPrefix(strings.TrimSpace(rows[2]), "tianhe1a ") {
		t.Fatalf("no comparison table:\n%s", r.stderr)
	}
	again, _ := replayReport[[]mpi.Report](t, "-replay", dir, "-machine", "xsim-ethernet,tianhe1a,xsim-mesh2d")
	for i := range reps {
		if again[i].Predicted != reps[i].Predicted {
			t.Fatalf("%s: %v s, then %v s", reps[i].Machine, reps[i].Predicted, again[i].Predicted)
		}
	}
}

// TestReplayTaskfarm: the task farm's matching depends on timing (AnySource
// receives); its replay follows the recorded matching, predicts what the
// run did, and says so.
func TestReplayTaskfarm(t *testing.T) {
	prog := vprog(t, "taskfarm")
	dir := filepath.Join(t.TempDir(), "rec")
	exec, _ := vrun(t, nil, "-np", "2", "-virtual", "6", "-cpu-scale", "0", "-record", dir, prog)
	rep, r := replayReport[mpi.Report](t, "-replay", dir)
	if rep.Predicted != exec.Predicted {
		t.Fatalf("replay %v s, run %v s", rep.Predicted, exec.Predicted)
	}
	if !strings.Contains(r.stderr, "depended on timing") || !strings.Contains(r.stderr, "recorded matching") {
		t.Fatalf("the report does not say the matching was replayed:\n%s", r.stderr)
	}
}

// Bad -record and -replay uses are one-line usage errors; a damaged record
// is an error naming the file and the offset.
func TestReplayErrors(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := filepath.Join(t.TempDir(), "rec")
	for _, args := range [][]string{
		{"-np", "2", "-record", dir, prog},
		{"-np", "2", "-virtual", "2,4", "-record", dir, prog},
		{"-replay", dir, prog},
		{"-replay", dir, "-np", "2"},
		{"-replay", dir, "-machine", "nosuch"},
		{"-replay", ""},
	} {
		if r := gorun(t, nil, args...); r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line usage error", args, r.code, r.stderr)
		}
	}
	if r := gorun(t, nil, "-replay", dir); r.code != 2 || !strings.Contains(r.stderr, "not a gompi record") {
		t.Errorf("no record: exit %d, stderr %q", r.code, r.stderr)
	}
	vrun(t, nil, "-np", "1", "-virtual", "3", "-cpu-scale", "0", "-record", dir, prog, "-iters", "2")
	file := filepath.Join(dir, "rank-00002.rec")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, b[:len(b)-6], 0o644)
	if r := gorun(t, nil, "-replay", dir); r.code != 1 || !strings.Contains(r.stderr, file+": offset ") {
		t.Errorf("truncated: exit %d, stderr %q", r.code, r.stderr)
	}
}
