package mpi

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/record"
	"github.com/gompi/gompi/vtime"
)

// replayProgram exercises every family a record holds: point-to-point
// (blocking, nonblocking, Sendrecv), collectives with and without
// reductions, v-variants, new communicators and Free, and Elapse.
func replayProgram(c *Comm) error {
	n, me := c.Size(), c.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	big := make([]float64, 5000) // above the eager limit: rendezvous
	small := make([]int32, 3)
	c.Elapse(time.Duration(me+1) * time.Microsecond)
	if peer := me ^ 1; peer < n {
		if me%2 == 0 {
			if err := Send(c, big, peer, 1); err != nil {
				return err
			}
			if _, err := Recv(c, small, peer, 2); err != nil {
				return err
			}
		} else {
			if _, err := Recv(c, big, peer, 1); err != nil {
				return err
			}
			if err := Ssend(c, small, peer, 2); err != nil {
				return err
			}
		}
	}
	if _, err := Sendrecv(c, small, right, 3, small, left, 3); err != nil {
		return err
	}
	rq, err := Irecv(c, big[:100*(left%3+1)], left, 4)
	if err != nil {
		return err
	}
	sq, err := Isend(c, big[:100*(me%3+1)], right, 4)
	if err != nil {
		return err
	}
	if _, err := Waitall([]*Request{rq, nil, sq}); err != nil {
		return err
	}
	sub, err := c.Split(me%2, -me)
	if err != nil {
		return err
	}
	dup, err := c.Dup()
	if err != nil {
		return err
	}
	c.Elapse(time.Duration(3*me+2) * time.Microsecond)
	if err := Bcast(c, big[:700], n-1); err != nil {
		return err
	}
	if err := Allreduce(dup, big[:300], big[300:600], Sum); err != nil {
		return err
	}
	if err := ReduceInPlace(sub, small, Max, 0); err != nil {
		return err
	}
	if err := Allreduce(c, small, small, NewOp(func(in, inout []int32) {}, false)); err != nil {
		return err
	}
	all := make([]int64, 2*n)
	if err := Allgather(c, all[:2], all); err != nil {
		return err
	}
	if err := Alltoall(dup, all, make([]int64, 2*n)); err != nil {
		return err
	}
	counts, displs := make([]int, n), make([]int, n)
	for i := range counts {
		counts[i], displs[i] = i%3, 3*i
	}
	if err := Gatherv(c, make([]uint16, me%3), make([]uint16, 3*n), counts, displs, 0); err != nil {
		return err
	}
	if err := Scan(c, big[:10], big[10:20], Prod); err != nil {
		return err
	}
	if err := ReduceScatterBlock(c, make([]float32, 4*n), make([]float32, 4), Min); err != nil {
		return err
	}
	loc := []ValIdx[float64]{{Val: float64(me), Idx: me}}
	if err := AllreduceLocInPlace(c, loc, MaxLoc); err != nil {
		return err
	}
	if err := replayMore(c, dup); err != nil {
		return err
	}
	if err := sub.Barrier(); err != nil {
		return err
	}
	if err := dup.Free(); err != nil {
		return err
	}
	c.Elapse(time.Duration(me%4) * time.Millisecond)
	return c.Barrier()
}

// replayMore is the rest of the families: every v-variant, in-place
// forms, ReduceScatter, Exscan and Create.
func replayMore(c, dup *Comm) error {
	n, me := c.Size(), c.Rank()
	counts, displs := make([]int, n), make([]int, n)
	for i := range counts {
		counts[i], displs[i] = (i+me)%3+1, 4*i
	}
	// Alltoallv: what me sends to i is what i receives from me.
	recvCounts := make([]int, n)
	for i := range recvCounts {
		recvCounts[i] = (me+i)%3 + 1
	}
	if err := Alltoallv(dup, make([]int32, 4*n), counts, displs, make([]int32, 4*n), recvCounts, displs); err != nil {
		return err
	}
	same := make([]int, n)
	for i := range same {
		same[i] = i%2 + 1
	}
	if err := Allgatherv(c, make([]float32, me%2+1), make([]float32, 4*n), same, displs); err != nil {
		return err
	}
	if err := Scatterv(c, make([]int8, 4*n), same, displs, make([]int8, me%2+1), n/2); err != nil {
		return err
	}
	if err := ReduceScatter(c, make([]float64, 3*n), make([]float64, 3), fill(n, 3), Sum); err != nil {
		return err
	}
	if err := ExscanInPlace(c, make([]int16, 5), BXor); err != nil {
		return err
	}
	block := make([]uint8, 2*n) // root's whole buffer, the others' block
	if me != 0 {
		block = block[:2]
	}
	if err := GatherInPlace(c, block, 0); err != nil {
		return err
	}
	if err := Scatter(c, make([]complex128, 2*n), make([]complex128, 2), n-1); err != nil {
		return err
	}
	g, err := c.Group().Incl([]int{n - 1, 0})
	if err != nil && n > 1 {
		return err
	}
	if n > 1 {
		nc, err := c.Create(g)
		if err != nil {
			return err
		}
		if nc != nil {
			if err := AllreduceInPlace(nc, make([]uint64, 3), Max); err != nil {
				return err
			}
		}
	}
	return nil
}

// pollProgram polls with the Test family: its number of calls depends on
// timing, the same on every run on one machine.
func pollProgram(c *Comm) error {
	if err := replayProgram(c); err != nil {
		return err
	}
	n, me := c.Size(), c.Rank()
	right, left := (me+1)%n, (me+n-1)%n
	rq, err := Irecv(c, make([]byte, 128), left, 8)
	if err != nil {
		return err
	}
	sq, err := Issend(c, make([]byte, 40+me), right, 8)
	if err != nil {
		return err
	}
	for {
		if _, ok, _, err := Testany([]*Request{rq, sq}); err != nil || ok {
			if err != nil {
				return err
			}
			break
		}
	}
	for {
		idx, _, err := Testsome([]*Request{rq, sq})
		if err != nil {
			return err
		}
		if ok, _, err := Testall([]*Request{rq, sq}); err != nil || ok {
			return err
		}
		_ = idx
	}
}

func fill(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// recordRun predicts fn on n ranks of preset at cpuScale, recording it
// into a new directory.
func recordRun(t *testing.T, preset string, n int, cpuScale float64, fn func(*Comm) error) (*Virtual, string) {
	t.Helper()
	m, err := vtime.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVirtual(m, n, cpuScale)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := v.Record(dir); err != nil {
		t.Fatal(err)
	}
	if err := v.Run(fn); err != nil {
		t.Fatal(err)
	}
	return v, dir
}

// sameResults compares two predictions rank by rank, within rel (0: bit
// for bit).
func sameResults(t *testing.T, what string, a, b *Virtual, rel float64) {
	t.Helper()
	ra, rb := a.Results(), b.Results()
	if len(ra) != len(rb) {
		t.Fatalf("%s: %d ranks, replay %d", what, len(ra), len(rb))
	}
	close := func(x, y float64) bool {
		if rel == 0 {
			return x == y
		}
		return math.Abs(x-y) <= rel*math.Max(math.Abs(x), math.Abs(y))
	}
	for i := range ra {
		x, y := ra[i], rb[i]
		if !close(x.End, y.End) || !close(x.Computation, y.Computation) || !close(x.Communication, y.Communication) ||
			!close(x.Waiting, y.Waiting) || x.Waits != y.Waits || x.Sent != y.Sent || x.SentBytes != y.SentBytes {
			t.Fatalf("%s: rank %d: execution %+v\nreplay %+v", what, i, x, y)
		}
	}
}

// TestReplayEqualsExecution: replaying a record on the recording's
// machine at cpu-scale 0 predicts what the execution-driven run predicted,
// bit for bit, on every rank.
func TestReplayEqualsExecution(t *testing.T) {
	testReplayEqualsExecution(t, replayProgram)
}

// TestReplayPollLoops is TestReplayEqualsExecution with Test-family
// polling loops, whose number of calls depends on timing. It used to fail
// rarely (the execution and the replay differing by a wait and a copy
// time, or a replay's rank running to its end while its peer waited for
// its rendezvous DATA), from two host-timing dependences in the answers
// to polls: a poll reading the settled flag an earlier poll left set
// (testVirtual), and the stall scan reading a rank woken meanwhile as one
// with nothing pending (resolveStall), which gave two polling ranks
// windows to +Inf at once.
// Under the race detector the sizes stop at 8 (the failures were at 2
// and 4): the whole list takes minutes there.
func TestReplayPollLoops(t *testing.T) {
	sizes := replaySizes
	if raceSlowdown > 1 {
		sizes = []int{1, 2, 3, 4, 5, 8}
	}
	testReplayEqualsExecution(t, pollProgram, sizes...)
}

// replaySizes are the rank counts of testReplayEqualsExecution.
var replaySizes = []int{1, 2, 3, 4, 5, 7, 8, 11, 16, 17, 64}

func testReplayEqualsExecution(t *testing.T, prog func(*Comm) error, sizes ...int) {
	if len(sizes) == 0 {
		sizes = replaySizes
	}
	for _, n := range sizes {
		exec, dir := recordRun(t, "xsim-ethernet", n, 0, prog)
		if exec.Report().Predicted <= 0 {
			t.Fatalf("n=%d: nothing predicted", n)
		}
		rec, err := OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Ranks() != n || rec.CPUScale() != 0 {
			t.Fatalf("n=%d: recording of %d ranks at cpu scale %g", n, rec.Ranks(), rec.CPUScale())
		}
		for k := 0; k < 2; k++ { // and repeatable
			rep, err := rec.Replay(nil, 0)
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			sameResults(t, fmt.Sprint("n=", n), exec, rep, 0)
		}
	}
}

// TestReplayMeasuredComputation: with measured computation the replay
// charges the recorded bursts (times the CPU scale and the recorded
// contention factor): equal to the execution-driven prediction within
// 1e-9, and scaled by a replay at another CPU scale.
func TestReplayMeasuredComputation(t *testing.T) {
	work := func(c *Comm) error {
		x := 0.0
		for i := 0; i < 20000*(c.Rank()+1); i++ {
			x += math.Sqrt(float64(i))
		}
		if x < 0 {
			return fmt.Errorf("unreachable")
		}
		return replayProgram(c)
	}
	for _, n := range []int{1, 3, 8} {
		exec, dir := recordRun(t, "xsim-ethernet-multicore", n, 1, work)
		rec, err := OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rec.Replay(nil, rec.CPUScale())
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprint("n=", n), exec, rep, 1e-9)
		double, err := rec.Replay(nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range double.Results() {
			if want := 2 * rep.Results()[i].Computation; r.Computation < want*(1-1e-9)-2e-3 || r.Computation > want*(1+1e-9) {
				// Elapse is not scaled: the replay at scale 2 adds the
				// measured part once more.
				elapsed := 2*rep.Results()[i].Computation - r.Computation
				if elapsed < 0 || elapsed > 1e-2 {
					t.Fatalf("n=%d rank %d: computation %v at scale 2, %v at 1", n, i, r.Computation, rep.Results()[i].Computation)
				}
			}
		}
	}
}

// TestReplayScriptedBursts: bursts from a scripted meter replay bit for
// bit, contention factor included.
func TestReplayScriptedBursts(t *testing.T) {
	m, err := vtime.Preset("xsim-ethernet-multicore")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 5, 16} {
		v, err := NewVirtual(m, n, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		v.SetHostConcurrency(2)
		v.newMeter = func(id int) vtime.Meter { return &scriptedMeter{burst: 1e-4 * float64(id+1), bursts: new(int)} }
		dir := t.TempDir()
		if err := v.Record(dir); err != nil {
			t.Fatal(err)
		}
		if err := v.Run(replayProgram); err != nil {
			t.Fatal(err)
		}
		rec, err := OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rec.Replay(nil, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprint("n=", n), v, rep, 0)
		if v.Results()[0].Computation == 0 {
			t.Fatal("no computation measured")
		}
	}
}

// TestReplayOtherMachine: a record replays on every preset, repeatably,
// and the prediction is the machine's own (here: it differs from the
// recording's where the network does).
func TestReplayOtherMachine(t *testing.T) {
	exec, dir := recordRun(t, "xsim-ethernet", 16, 0, replayProgram)
	rec, err := OpenRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range vtime.Presets() {
		m, err := vtime.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := rec.Replay(m, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := rec.Replay(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, name, a, b, 0)
		if name == "tianhe1a" && a.Report().Predicted == exec.Report().Predicted {
			t.Errorf("tianhe1a predicts what xsim-ethernet does: %v", a.Report().Predicted)
		}
		// The machine's own prediction of the program equals the replay.
		direct := runVirtual(t, name, 16, replayProgram)
		sameResults(t, name+" direct", direct, a, 0)
	}
}

// farmProgram is a task farm: its matching depends on timing (AnySource
// receives and probes, Waitany, Iprobe and Test loops).
func farmProgram(c *Comm) error {
	n, me := c.Size(), c.Rank()
	const tasks = 3
	if me == 0 {
		buf := make([]int64, 4)
		for i := 0; i < tasks*(n-1); i++ {
			st, err := Recv(c, buf, AnySource, AnyTag)
			if err != nil {
				return err
			}
			if err := Send(c, buf[:1], st.Source, 9); err != nil {
				return err
			}
		}
		reqs := make([]*Request, n-1)
		for i := range reqs {
			var err error
			if reqs[i], err = Irecv(c, make([]byte, 8), AnySource, 5); err != nil {
				return err
			}
		}
		for range reqs {
			if _, _, err := Waitany(reqs); err != nil {
				return err
			}
		}
		for i := 1; i < n; i++ {
			for {
				ok, _, err := c.Iprobe(AnySource, 6)
				if err != nil {
					return err
				}
				if ok {
					break
				}
				c.Elapse(time.Microsecond)
			}
			st, err := c.Probe(AnySource, 6)
			if err != nil {
				return err
			}
			if _, err := Recv(c, buf[:2], st.Source, 6); err != nil {
				return err
			}
		}
		return c.Barrier()
	}
	buf := make([]int64, 4)
	for i := 0; i < tasks; i++ {
		c.Elapse(time.Duration((me*7+i*13)%11+1) * time.Microsecond)
		if err := Send(c, buf[:1+(me+i)%4], 0, i); err != nil {
			return err
		}
		if _, err := Recv(c, buf[:1], 0, 9); err != nil {
			return err
		}
	}
	c.Elapse(time.Duration(n-me) * time.Microsecond)
	if err := Send(c, buf[:1], 0, 5); err != nil {
		return err
	}
	q, err := Isend(c, buf[:2], 0, 6)
	if err != nil {
		return err
	}
	for {
		ok, _, err := q.Test()
		if err != nil {
			return err
		}
		if ok {
			break
		}
		c.Elapse(time.Microsecond)
	}
	return c.Barrier()
}

// TestReplayTimingDependent: a program whose matching depends on timing
// replays its recorded matching: on the recording's machine the
// prediction is the execution-driven one, and the record says how many
// calls were timing-dependent.
func TestReplayTimingDependent(t *testing.T) {
	for _, n := range []int{2, 3, 5, 9, 17} {
		exec, dir := recordRun(t, "xsim-ethernet", n, 0, farmProgram)
		rec, err := OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rec.Replay(nil, 0)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		sameResults(t, fmt.Sprint("n=", n), exec, rep, 0)
		if rec.TimingDependent() < int64(3*(n-1)) {
			t.Fatalf("n=%d: %d timing-dependent calls", n, rec.TimingDependent())
		}
		m, _ := vtime.Preset("tianhe1a")
		a, err := rec.Replay(m, 0)
		if err != nil {
			t.Fatalf("n=%d on tianhe1a: %v", n, err)
		}
		b, err := rec.Replay(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprint("n=", n, " tianhe1a"), a, b, 0)
	}
}

// A program that makes a call a record cannot hold yet (a nonblocking
// collective, a matched probe, a topology ...) is recorded up to there,
// and its replay fails with an error naming the call instead of
// predicting something else.
func TestReplayRefusesUnrecordableCalls(t *testing.T) {
	for name, fn := range map[string]func(c *Comm) error{
		"a nonblocking collective": func(c *Comm) error {
			q, err := c.Ibarrier()
			if err != nil {
				return err
			}
			_, err = q.Wait()
			return err
		},
		"a matched probe": func(c *Comm) error {
			if c.Rank() == 0 {
				return Send(c, []byte{1}, 1, 5)
			}
			if c.Rank() == 1 {
				m, _, err := c.Mprobe(0, 5)
				if err != nil {
					return err
				}
				_, err = Mrecv(m, make([]byte, 1))
				return err
			}
			return nil
		},
		"a process topology": func(c *Comm) error {
			_, err := c.CartCreate([]int{c.Size()}, []bool{true}, false)
			return err
		},
	} {
		_, dir := recordRun(t, "tianhe1a", 4, 0, fn)
		rec, err := OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := vtime.Preset("tianhe1a")
		_, err = rec.Replay(m, 0)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "cannot replay yet") {
			t.Errorf("%s: replay error %v", name, err)
		}
	}
}

// TestReplayRepresentativeRanks: ranks that compute alike keep one
// computation vector per group (record.Compact, Phantom's representative
// ranks); where the members' bursts equal their leader's, the compacted
// record replays exactly as the whole one, and is smaller.
func TestReplayRepresentativeRanks(t *testing.T) {
	m, err := vtime.Preset("xsim-ethernet")
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	v, err := NewVirtual(m, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	v.SetHostConcurrency(1)
	// Two kinds of rank: even ones compute twice as long per burst.
	v.newMeter = func(id int) vtime.Meter { return &scriptedMeter{burst: 1e-4 * float64(1+id%2), bursts: new(int)} }
	dir := t.TempDir()
	if err := v.Record(dir); err != nil {
		t.Fatal(err)
	}
	if err := v.Run(replayProgram); err != nil {
		t.Fatal(err)
	}
	whole := replayOf(t, dir)
	before := dirSize(t, dir)
	sum, err := record.Compact(dir, 0, record.DefaultStretches)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Groups >= n || sum.Groups < 2 || sum.Moved == 0 {
		t.Fatalf("%d ranks in %d groups, %d bursts moved: want a few groups", n, sum.Groups, sum.Moved)
	}
	for r, l := range sum.Leaders {
		if l%2 != r%2 {
			t.Errorf("rank %d grouped with rank %d, which computes otherwise", r, l)
		}
	}
	compacted := replayOf(t, dir)
	sameResults(t, "compacted", whole, compacted, 0)
	if after := dirSize(t, dir); after >= before {
		t.Errorf("record of %d bytes compacted to %d", before, after)
	}
	if _, err := record.Compact(dir, 0, record.DefaultStretches); err == nil {
		t.Error("a record compacted twice")
	}
}

func replayOf(t *testing.T, dir string) *Virtual {
	t.Helper()
	rec, err := OpenRecording(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := rec.Replay(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".rec") {
			n += fi.Size()
		}
	}
	return n
}

// shapedMeter measures bursts of a repeating shape (1 to 1.6 times 1e-4
// s), times scale.
type shapedMeter struct {
	scale float64
	n     int
	on    bool
}

func (m *shapedMeter) Begin() { m.on = true }
func (m *shapedMeter) End() float64 {
	if !m.on {
		return 0
	}
	m.on = false
	m.n++
	return 1e-4 * m.scale * (1 + 0.1*float64(m.n%7))
}
func (m *shapedMeter) Peek() float64    { return 0 }
func (m *shapedMeter) Abandon()         { m.on = false }
func (m *shapedMeter) Running() float64 { return 0 }

// TestReplayMemberKeepsOwnComputation: a member whose bursts are its
// leader's times 1.03 (within the tolerance, 0.05) replays, once compacted,
// with its own computation in each of the 64 stretches and in total (to
// 1e-9 relative), not its leader's: the slowest rank of a collective
// stays the slowest, and the prediction is the full record's.
func TestReplayMemberKeepsOwnComputation(t *testing.T) {
	m, err := vtime.Preset("xsim-ethernet")
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	v, err := NewVirtual(m, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	v.SetHostConcurrency(1)
	v.newMeter = func(id int) vtime.Meter { return &shapedMeter{scale: 1 + 0.03*float64(id%2)} }
	dir := t.TempDir()
	if err := v.Record(dir); err != nil {
		t.Fatal(err)
	}
	if err := v.Run(func(c *Comm) error {
		// The same calls on every rank: a ring exchange and an
		// Allreduce, 100 times.
		n, me := c.Size(), c.Rank()
		buf := make([]float64, 64)
		for i := 0; i < 100; i++ {
			if _, err := Sendrecv(c, buf[:8], (me+1)%n, 1, buf[8:16], (me+n-1)%n, 1); err != nil {
				return err
			}
			if err := Allreduce(c, buf[:16], buf[16:32], Sum); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	own := make([][]float64, n)
	for r := range own {
		s, err := record.ReadFile(filepath.Join(dir, record.RankFile(r)))
		if err != nil {
			t.Fatal(err)
		}
		own[r] = s.Bursts()
	}
	if len(own[0]) < 2*64 {
		t.Fatalf("%d bursts a rank: want several a stretch", len(own[0]))
	}
	whole := replayOf(t, dir)
	sum, err := record.Compact(dir, 0.05, record.DefaultStretches)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Groups != 1 {
		t.Fatalf("%d groups (leaders %v): want every rank with rank 0", sum.Groups, sum.Leaders)
	}
	compacted := replayOf(t, dir)
	// What each member's BurstRefs stand for in the replay.
	rec := mustOpen(t, dir)
	streams, err := rec.load()
	if err != nil {
		t.Fatal(err)
	}
	got, err := rec.memberBursts(streams)
	if err != nil {
		t.Fatal(err)
	}
	stretches := func(b []float64) []float64 {
		s := make([]float64, 64)
		for i, x := range b {
			s[i*64/len(b)] += x
		}
		return s
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) }
	for r := 1; r < n; r++ {
		g, w := stretches(got[r]), stretches(own[r])
		for k := range w {
			if !near(g[k], w[k]) {
				t.Fatalf("rank %d, stretch %d: replays %v s of computation, recorded %v s", r, k, g[k], w[k])
			}
		}
		a, b := whole.Results()[r].Computation, compacted.Results()[r].Computation
		if !near(a, b) {
			t.Fatalf("rank %d: computation %v s compacted, %v s in the full record", r, b, a)
		}
	}
	if c := compacted.Results(); near(c[0].Computation, c[1].Computation) {
		t.Fatalf("rank 1 computes as its leader (%v s): its own 3%% more is lost", c[1].Computation)
	}
	sameResults(t, "compacted, members 3% off their leader", whole, compacted, 1e-9)
}
