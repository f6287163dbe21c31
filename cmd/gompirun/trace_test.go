package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

type chromeTrace struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Cat  string         `json:"cat"`
		Ph   string         `json:"ph"`
		Tid  int            `json:"tid"`
		Ts   float64        `json:"ts"`
		Dur  float64        `json:"dur"`
		Args map[string]any `json:"args"`
		ID   uint64         `json:"id"`
	} `json:"traceEvents"`
	OtherData struct {
		Clock     string `json:"clock"`
		Dropped   int64  `json:"dropped_events"`
		Truncated bool   `json:"truncated"`
	} `json:"otherData"`
	messages int // arrows (readTrace)
}

type span struct {
	name, cat  string
	start, end float64
}

// readTrace parses a trace file and checks its structure: on every
// track, the calls and computation spans follow each other without
// overlapping, every waiting span lies inside a call, and every message
// arrow that starts also ends, no earlier. It returns each track's
// top-level spans in order.
func readTrace(t *testing.T, file string) (chromeTrace, map[int][]span) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr chromeTrace
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	top, waits := map[int][]span{}, map[int][]span{}
	type end struct {
		tid int
		ts  float64
	}
	sends, recvs := map[uint64]end{}, map[uint64]end{}
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			continue
		case "s", "f":
			m := sends
			if e.Ph == "f" {
				m = recvs
			}
			if _, dup := m[e.ID]; dup {
				t.Fatalf("message %x has two %q ends", e.ID, e.Ph)
			}
			m[e.ID] = end{e.Tid, e.Ts}
			continue
		}
		if e.Ph != "X" || e.Dur < 0 {
			t.Fatalf("event %+v: want a complete event of non-negative duration", e)
		}
		s := span{e.Name, e.Cat, e.Ts, e.Ts + e.Dur}
		if e.Cat == "wait" {
			waits[e.Tid] = append(waits[e.Tid], s)
		} else {
			top[e.Tid] = append(top[e.Tid], s)
		}
	}
	const eps = 1e-6 // microseconds
	if !tr.OtherData.Truncated && len(sends) != len(recvs) {
		t.Fatalf("%d message arrows start, %d end", len(sends), len(recvs))
	}
	for id, s := range sends {
		if r, ok := recvs[id]; ok && r.ts < s.ts-eps {
			t.Fatalf("message %x: sent at %v on rank %d, received at %v on rank %d", id, s.ts, s.tid, r.ts, r.tid)
		} else if !ok && !tr.OtherData.Truncated {
			t.Fatalf("message %x sent at %v on rank %d never arrives", id, s.ts, s.tid)
		}
	}
	tr.messages = len(sends)
	for tid, ss := range top {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		for i := 1; i < len(ss); i++ {
			if ss[i].start < ss[i-1].end-eps {
				t.Fatalf("rank %d: %+v overlaps %+v", tid, ss[i], ss[i-1])
			}
		}
		for _, w := range waits[tid] {
			i := sort.Search(len(ss), func(i int) bool { return ss[i].end >= w.end-eps })
			if i == len(ss) || ss[i].cat != "mpi" || w.start < ss[i].start-eps {
				t.Fatalf("rank %d: waiting %+v is not inside a call", tid, w)
			}
		}
	}
	return tr, top
}

// TestVirtualTrace: a predicted timeline has a track per rank whose calls
// are the program's (Sendrecv and Allreduce: not the sends inside
// them), whose computation adds up to the report's and which ends where
// the report says the rank ended; -trace-ranks keeps the ranks named.
func TestVirtualTrace(t *testing.T) {
	prog := vprog(t, "skeleton")
	dir := t.TempDir()
	file, rfile := filepath.Join(dir, "t.json"), filepath.Join(dir, "r.json")
	r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-trace", file, "-report", rfile, prog, "-iters", "3")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	tr, top := readTrace(t, file)
	if tr.OtherData.Clock != "virtual" || tr.OtherData.Truncated {
		t.Errorf("otherData %+v", tr.OtherData)
	}
	for _, e := range tr.TraceEvents {
		if e.Name == "Allreduce" && (e.Args["algorithm"] == nil || e.Args["bytes"] != 8.0) {
			t.Errorf("Allreduce span args %v: want its algorithm and 8 bytes", e.Args)
		}
	}
	if want := 4 * 3 * 2 * 3; tr.messages != want { // ranks x iterations x Sendrecvs x sizes
		t.Errorf("%d message arrows, want %d (the Sendrecvs' messages, not the Allreduces')", tr.messages, want)
	}
	data, _ := os.ReadFile(rfile)
	var rep struct {
		PerRank []struct {
			Rank        int     `json:"rank"`
			End         float64 `json:"end"`
			Computation float64 `json:"computation"`
		} `json:"per_rank"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.PerRank) != 4 || len(top) != 4 {
		t.Fatalf("report %v, %d ranks; %d tracks", err, len(rep.PerRank), len(top))
	}
	for _, pr := range rep.PerRank {
		ss := top[pr.Rank]
		comp, names := 0.0, map[string]bool{}
		for _, s := range ss {
			if s.cat == "compute" {
				comp += s.end - s.start
			} else {
				names[s.name] = true
			}
		}
		if math.Abs(comp/1e6-pr.Computation) > 1e-9 {
			t.Errorf("rank %d: computation spans add up to %g s, the report says %g s", pr.Rank, comp/1e6, pr.Computation)
		}
		if end := ss[len(ss)-1].end / 1e6; math.Abs(end-pr.End) > 1e-9 {
			t.Errorf("rank %d: the timeline ends at %g s, the report at %g s", pr.Rank, end, pr.End)
		}
		for _, n := range []string{"Sendrecv", "Allreduce"} {
			if !names[n] {
				t.Errorf("rank %d: no %s span (calls %v)", pr.Rank, n, names)
			}
		}
	}

	// Nonblocking calls and polls are spans too: the computation still
	// adds up (a task farm whose master completes receives by Testany).
	farm := vprog(t, "taskfarm")
	r = gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-trace", file, "-report", rfile, farm, "-tasks", "12", "-mode", "testany")
	if r.code != 0 {
		t.Fatalf("farm: exit %d:\n%s", r.code, r.stderr)
	}
	_, top = readTrace(t, file)
	data, _ = os.ReadFile(rfile)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	for _, pr := range rep.PerRank {
		comp, names := 0.0, map[string]bool{}
		for _, s := range top[pr.Rank] {
			if s.cat == "compute" {
				comp += s.end - s.start
			}
			names[s.name] = true
		}
		if math.Abs(comp/1e6-pr.Computation) > 1e-9 {
			t.Errorf("farm rank %d: computation spans add up to %g s, the report says %g s", pr.Rank, comp/1e6, pr.Computation)
		}
		if pr.Rank == 0 && (!names["Irecv"] || !names["Testany"]) {
			t.Errorf("farm master: calls %v, want Irecv and Testany among them", names)
		}
	}

	r = gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-trace", file, "-trace-ranks", "1-2", prog, "-iters", "3")
	if r.code != 0 {
		t.Fatalf("-trace-ranks: exit %d:\n%s", r.code, r.stderr)
	}
	if _, top = readTrace(t, file); len(top) != 2 || top[1] == nil || top[2] == nil {
		t.Errorf("-trace-ranks 1-2: tracks of ranks %v", keys(top))
	}
}

func keys(m map[int][]span) []int {
	var k []int
	for r := range m {
		k = append(k, r)
	}
	sort.Ints(k)
	return k
}

// TestTraceRealAndLimits: a real run writes the same format on host time;
// past -trace-max the trace is marked truncated and gompirun says so; bad
// trace options are usage errors.
func TestTraceRealAndLimits(t *testing.T) {
	prog := vprog(t, "skeleton")
	file := filepath.Join(t.TempDir(), "t.json")
	r := gorun(t, nil, "-timeout", "25s", "-np", "2", "-ranks", "4", "-trace", file, prog, "-iters", "3")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if tr, top := readTrace(t, file); tr.OtherData.Clock != "host" || len(top) != 4 {
		t.Errorf("real run: clock %q, %d tracks", tr.OtherData.Clock, len(top))
	}
	r = gorun(t, nil, "-timeout", "25s", "-np", "2", "-virtual", "4", "-cpu-scale", "0", "-trace", file, "-trace-max", "8", prog, "-iters", "3")
	if r.code != 0 || !strings.Contains(r.stderr, "is truncated") {
		t.Fatalf("-trace-max 8: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if tr, _ := readTrace(t, file); !tr.OtherData.Truncated || tr.OtherData.Dropped == 0 {
		t.Errorf("-trace-max 8: otherData %+v", tr.OtherData)
	}
	for _, args := range [][]string{
		{"-np", "2", "-trace-ranks", "0", prog},
		{"-np", "2", "-virtual", "4", "-trace", file, "-trace-ranks", "0-9", prog},
		{"-np", "2", "-virtual", "4", "-trace", file, "-trace-ranks", "x", prog},
		{"-np", "2", "-virtual", "4", "-trace", file, "-trace-max", "0", prog},
		{"-np", "2", "-virtual", "2,4", "-trace", file, prog},
	} {
		r := gorun(t, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "-trace") {
			t.Errorf("gompirun %v: exit %d, stderr %q; want exit 2 and one line about -trace", args, r.code, r.stderr)
		}
	}
}

// TestChromeEventJSON: the hand-written JSON of appendChromeEvent is byte
// for byte what encoding/json writes for the event as a map (the form the
// trace was written in before), for every kind of event, argument set and
// range of times, and a time that is not finite is an error.
func TestChromeEventJSON(t *testing.T) {
	asMap := func(e mpi.TraceEvent) map[string]any {
		name, cat := e.Name, "mpi"
		switch e.Kind {
		case "send", "recv":
			ev := map[string]any{"name": "message", "cat": "message", "ph": map[string]string{"send": "s", "recv": "f"}[e.Kind],
				"id": e.ID, "pid": 0, "tid": e.Rank, "ts": e.Start * 1e6}
			if e.Kind == "recv" {
				ev["bp"] = "e"
			}
			return ev
		case "compute":
			name, cat = "computation", "compute"
		case "wait":
			name, cat = "waiting", "wait"
		}
		ev := map[string]any{"name": name, "cat": cat, "ph": "X", "pid": 0, "tid": e.Rank, "ts": e.Start * 1e6, "dur": (e.End - e.Start) * 1e6}
		args := map[string]any{}
		if e.HasArgs {
			la, lb := argNames(e.Name)
			args[la] = e.A
			if lb != "" {
				args[lb] = e.B
			}
		}
		if e.Algo != "" {
			args["algorithm"], args["bytes"] = e.Algo, e.Bytes
		}
		if len(args) > 0 {
			ev["args"] = args
		}
		return ev
	}
	rng := rand.New(rand.NewPCG(1, 2))
	times := []float64{0, 1e-12, 3.5e-7, 1e-6, 0.1234567890123, 1, 42.5, 1e15, 3e16}
	var events []mpi.TraceEvent
	for _, kind := range []string{"call", "compute", "wait", "send", "recv"} {
		for _, name := range []string{"Send", "Recv", "Sendrecv", "Bcast", "Allreduce", "Waitall", "Isend", "Iprobe"} {
			for _, start := range times {
				e := mpi.TraceEvent{Rank: rng.IntN(100000), Kind: kind, Name: name, Start: start, End: start * (1 + rng.Float64()),
					ID: rng.Uint64(), HasArgs: rng.IntN(2) == 0, A: rng.Int32() - 1<<30, B: -rng.Int32()}
				if rng.IntN(2) == 0 {
					e.Algo, e.Bytes = "recursive-doubling", rng.IntN(1<<30)
				}
				events = append(events, e)
			}
		}
	}
	for _, e := range events {
		want, err := json.Marshal(asMap(e))
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendChromeEvent([]byte("x"), e)
		if err != nil || string(got[1:]) != string(want) {
			t.Fatalf("%+v:\n got %s (%v)\nwant %s", e, got[1:], err, want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := appendChromeEvent(nil, mpi.TraceEvent{Kind: "compute", Start: 0, End: bad}); err == nil {
			t.Errorf("end %v: no error", bad)
		}
	}
}
