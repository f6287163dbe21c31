package mpi

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/vtime"
)

// withMessageCollectives makes a virtual world run every collective by
// its messages, never at the bulk gate.
func withMessageCollectives() Option { return func(c *config) { c.messageColls = true } }

// bulkSkeleton is the communication skeleton of scripts/scale.sh with
// uneven computation: ranks reach each collective at different virtual
// times, and point-to-point traffic comes between them.
func bulkSkeleton(iters int) func(c *Comm) error {
	return func(c *Comm) error {
		n, me := c.Size(), c.Rank()
		out, in := make([]float64, 64), make([]float64, 64)
		x, y := []float64{float64(me)}, make([]float64, 1)
		for it := 0; it < iters; it++ {
			c.Elapse(time.Duration((me*7+it*13)%11) * time.Microsecond)
			if err := c.Barrier(); err != nil {
				return err
			}
			if _, err := Sendrecv(c, out, (me+1)%n, 0, in, (me-1+n)%n, 0); err != nil {
				return err
			}
			c.Elapse(time.Duration((me*5+it)%3) * time.Microsecond)
			if err := Allreduce(c, x, y, Sum); err != nil {
				return err
			}
			if err := c.Barrier(); err != nil {
				return err
			}
		}
		return nil
	}
}

// runVirtualRecords runs fn virtually (cpu-scale 0) on machine m and
// returns every rank's record.
func runVirtualRecords(t *testing.T, m *vtime.Machine, n int, fn func(c *Comm) error, opts ...Option) []RankRecord {
	t.Helper()
	v, err := NewVirtual(m, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := runVirtualWithin(t, v, fn, opts...); err != nil {
		t.Fatal(err)
	}
	return v.Results()
}

// runVirtualWithin runs fn on v and returns its error, failing the test
// if the run takes over a minute.
func runVirtualWithin(t *testing.T, v *Virtual, fn func(c *Comm) error, opts ...Option) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- v.Run(fn, opts...) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the run did not end within a minute")
		return nil
	}
}

// TestBulkBarrierMatchesMessages: a Barrier computed at the gate leaves
// every rank's record (predicted time, its parts, waits, the history
// Algorithm 3 keeps, message counts) exactly as the message path does, on
// every built-in machine.
func TestBulkBarrierMatchesMessages(t *testing.T) {
	computed := countBulk(t)
	for _, preset := range vtime.Presets() {
		m, err := vtime.Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2, 3, 5, 8, 33, 64} {
			t.Run(fmt.Sprintf("%s/%d", preset, n), func(t *testing.T) {
				*computed = 0
				bulk := runVirtualRecords(t, m, n, bulkSkeleton(3))
				if *computed == 0 {
					t.Fatal("no Barrier was computed at the gate")
				}
				msgs := runVirtualRecords(t, m, n, bulkSkeleton(3), withMessageCollectives())
				sameRecords(t, "skeleton", bulk, msgs)
			})
		}
	}
}

// sameRecords fails unless every rank's record at the gate is the message
// path's, but for the history of waits it keeps, which the gate trims to
// what messages can still reach (bulkGate.forget): no longer than the
// message path's.
func sameRecords(t *testing.T, what string, bulk, msgs []RankRecord) {
	t.Helper()
	if len(bulk) != len(msgs) {
		t.Fatalf("%s: %d records at the gate, %d by messages", what, len(bulk), len(msgs))
	}
	for i := range bulk {
		a, b := bulk[i], msgs[i]
		if a.HistoryKept > b.HistoryKept {
			t.Fatalf("%s: rank %d keeps %d waits at the gate, %d by messages", what, i, a.HistoryKept, b.HistoryKept)
		}
		a.HistoryKept = b.HistoryKept
		if b.Gated != 0 || a.Gated != bulk[0].Gated {
			t.Fatalf("%s: rank %d counts %d collectives at the gate (rank 0 %d), %d by messages", what, i, a.Gated, bulk[0].Gated, b.Gated)
		}
		a.Gated = 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: rank %d:\n at the gate %+v\n by messages %+v", what, i, a, b)
		}
	}
}

// countBulk counts the collectives the gate computes while the test runs.
func countBulk(t *testing.T) *int {
	var n int
	testHookBulkComputed = func(uint64) { n++ }
	t.Cleanup(func() { testHookBulkComputed = nil })
	return &n
}

// TestBulkBarrierFallsBack: a rank that enters the Barrier with something
// the message path's waits would act on (here a nonblocking Barrier in
// progress, which every wait progresses) makes the whole Barrier run by
// messages, with the same result as without the gate; and a message that
// reaches a rank while it waits at the gate, or after, is dealt with as
// the message path deals with one that reaches the host late.
func TestBulkBarrierFallsBack(t *testing.T) {
	m := tianhe1a(t)
	prog := func(c *Comm) error {
		buf := make([]int, 4)
		q, err := c.Ibarrier()
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			c.Elapse(time.Millisecond) // the message arrives long after the Barrier began
			if err := Send(c, buf, 1, 0); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
		if c.Rank() == 1 {
			if _, err := Recv(c, buf, 0, 0); err != nil {
				return err
			}
		}
		if c.Rank() == 2 {
			c.Elapse(2 * time.Millisecond)
			if err := Send(c, buf, 3, 0); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 3 {
			if _, err := Recv(c, buf, 2, 0); err != nil {
				return err
			}
		}
		return nil
	}
	var seqs []uint64
	testHookBulkComputed = func(seq uint64) { seqs = append(seqs, seq) }
	t.Cleanup(func() { testHookBulkComputed = nil })
	for run := range 20 {
		seqs = seqs[:0]
		bulk := runVirtualRecords(t, m, 4, prog)
		if len(seqs) > 0 && seqs[0] == 1 {
			t.Fatalf("run %d: the Barrier entered with a nonblocking Barrier in progress was computed at the gate", run)
		}
		msgs := runVirtualRecords(t, m, 4, prog, withMessageCollectives())
		sameRecords(t, fmt.Sprint("run ", run), bulk, msgs)
	}
}

// TestBulkBarrierDeadlock: a rank that never comes to the Barrier leaves
// the others waiting at the gate, and the deadlock is reported with the
// call they wait in.
func TestBulkBarrierDeadlock(t *testing.T) {
	err := runVirtualWithin(t, tianhe1aVirtual(t, 5, 0), func(c *Comm) error {
		if c.Rank() == 3 {
			_, err := Recv(c, make([]byte, 1), 4, 0) // never sent
			return err
		}
		return c.Barrier()
	})
	var de *DeadlockError
	if !errors.As(err, &de) || len(de.Blocked) != 5 {
		t.Fatalf("got %v", err)
	}
	for i, b := range de.Blocked {
		want := "in Barrier"
		if i == 3 {
			want = "in Recv"
		}
		if !strings.Contains(b, want) {
			t.Fatalf("blocked[%d] = %q, want it to say %q", i, b, want)
		}
	}
}

// TestBulkBarrierRankFails: a rank that fails while the others wait at
// the gate ends the job with its error.
func TestBulkBarrierRankFails(t *testing.T) {
	err := runVirtualWithin(t, tianhe1aVirtual(t, 6, 0), func(c *Comm) error {
		if c.Rank() == 2 {
			time.Sleep(50 * time.Millisecond) // the others are at the gate by now
			return errors.New("rank 2 gives up")
		}
		return c.Barrier()
	})
	if err == nil || !strings.Contains(err.Error(), "rank 2 gives up") {
		t.Fatalf("got %v", err)
	}
}

// allreduceValues runs Allreduces of count float64 (Sum) and int32 (Max)
// on every rank with values whose sum depends on the order of addition,
// and returns each rank's results, bit for bit.
func allreduceValues(count int, got [][]uint64) func(c *Comm) error {
	return func(c *Comm) error {
		me := c.Rank()
		x, y := make([]float64, count), make([]float64, count)
		for i := range x {
			x[i] = math.Ldexp(float64((me*37+i*11)%17)+0.1, (me*7+i)%40-20)
		}
		if err := Allreduce(c, x, y, Sum); err != nil {
			return err
		}
		k := make([]int32, 3)
		for i := range k {
			k[i] = int32((me*13 + i*5) % 23)
		}
		if err := AllreduceInPlace(c, k, Max); err != nil {
			return err
		}
		for _, v := range y {
			got[me] = append(got[me], math.Float64bits(v))
		}
		for _, v := range k {
			got[me] = append(got[me], uint64(v))
		}
		return c.Barrier()
	}
}

// TestBulkAllreduceMatchesMessages: an Allreduce computed at the gate
// gives every rank the same bytes and the same record as the message
// path, folding ranks above a power of two or not; one whose messages go
// by rendezvous on the target runs by messages.
func TestBulkAllreduceMatchesMessages(t *testing.T) {
	computed := countBulk(t)
	for _, tc := range []struct {
		n, count, eager int
		gate            bool // computed at the gate
	}{
		{2, 1, -1, true}, {5, 1, -1, true}, {8, 7, -1, true}, {13, 7, -1, true},
		{64, 250, -1, true}, {24, 100, 256, false},
	} {
		t.Run(fmt.Sprintf("n%d-count%d-eager%d", tc.n, tc.count, tc.eager), func(t *testing.T) {
			m, err := vtime.Preset("")
			if err != nil {
				t.Fatal(err)
			}
			if tc.eager >= 0 {
				m.EagerLimit, m.NetEagerLimit = &tc.eager, &tc.eager
			}
			*computed = 0
			bulkGot, msgGot := make([][]uint64, tc.n), make([][]uint64, tc.n)
			bulk := runVirtualRecords(t, m, tc.n, allreduceValues(tc.count, bulkGot))
			// The final Barrier is computed whenever the gate is used.
			if want := map[bool]int{true: 3, false: 2}[tc.gate]; *computed != want {
				t.Fatalf("%d collectives computed at the gate, want %d", *computed, want)
			}
			msgs := runVirtualRecords(t, m, tc.n, allreduceValues(tc.count, msgGot), withMessageCollectives())
			if !reflect.DeepEqual(bulkGot, msgGot) {
				t.Fatalf("results differ:\n at the gate %v\n by messages %v", bulkGot, msgGot)
			}
			sameRecords(t, "allreduce", bulk, msgs)
		})
	}
}

// TestBulkParallelMatchesMessages: computed by several workers, each
// with a share of the ranks, the gate still leaves every record and every
// result as the message path does.
func TestBulkParallelMatchesMessages(t *testing.T) {
	defer func(share, procs int) {
		minBulkShare = share
		runtime.GOMAXPROCS(procs)
	}(minBulkShare, runtime.GOMAXPROCS(4))
	minBulkShare = 16
	computed := countBulk(t)
	m := tianhe1a(t)
	for _, n := range []int{64, 100, 1000} {
		prog := func(got [][]uint64) func(c *Comm) error {
			return func(c *Comm) error {
				if err := bulkSkeleton(2)(c); err != nil {
					return err
				}
				return allreduceValues(5, got)(c)
			}
		}
		*computed = 0
		bulkGot, msgGot := make([][]uint64, n), make([][]uint64, n)
		bulk := runVirtualRecords(t, m, n, prog(bulkGot))
		if *computed == 0 {
			t.Fatalf("n=%d: nothing computed at the gate", n)
		}
		msgs := runVirtualRecords(t, m, n, prog(msgGot), withMessageCollectives())
		if !reflect.DeepEqual(bulkGot, msgGot) {
			t.Fatalf("n=%d: results differ", n)
		}
		sameRecords(t, fmt.Sprint("n=", n), bulk, msgs)
	}
}

// TestBulkBarrierWhileOthersStall: ranks waiting at the gate count as
// parked with nothing pending, so a stall of Algorithm 2 between two
// ranks that have not come yet is still detected and resolved, and the
// records are the message path's.
func TestBulkBarrierWhileOthersStall(t *testing.T) {
	m := tianhe1a(t)
	const s = 1 << 20
	prog := func(c *Comm) error {
		if err := stallPair(c, s); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		return c.Barrier()
	}
	bulk := runVirtualRecords(t, m, 13, prog)
	msgs := runVirtualRecords(t, m, 13, prog, withMessageCollectives())
	sameRecords(t, "stall", bulk, msgs)
	if bulk[0].Stalls == 0 && bulk[12].Stalls == 0 {
		t.Fatal("no stall was resolved")
	}
}

// TestBulkForgetsWaits: after each collective at the gate a rank keeps
// only the waits a message can still reach, so a long run's history stays
// short (the message path's grows with every wait, up to historyCap), and
// the predictions are the message path's.
func TestBulkForgetsWaits(t *testing.T) {
	m := tianhe1a(t)
	const n, iters = 8, 30
	bulk := runVirtualRecords(t, m, n, bulkSkeleton(iters))
	msgs := runVirtualRecords(t, m, n, bulkSkeleton(iters), withMessageCollectives())
	sameRecords(t, "skeleton", bulk, msgs)
	for i := range bulk {
		if bulk[i].HistoryKept > 4 || msgs[i].HistoryKept < 100 {
			t.Fatalf("rank %d keeps %d waits at the gate and %d by messages, want at most 4 and at least 100",
				i, bulk[i].HistoryKept, msgs[i].HistoryKept)
		}
	}
}

// TestBulkForgetsWaitsInRounds: the rounds of a collective at the gate
// trim the ranks' histories as they go, so that no rank's history grows
// with the number of rounds (an array per rank that doubles, at a million
// ranks); by the end of every round of two Allreduces on 4100 ranks (12
// rounds each, each adding a wait that does not touch the one before,
// and 4 pairs folded) every rank keeps at most 8 waits. What makes the
// trimming exact: the bound each round hands the next is at most the
// clock of every rank that takes part in the rounds (the folded ranks
// send nothing before the result reaches them), so no message still to
// come arrives before it; and it is the earliest of those clocks, the
// latest such bound. The ranks arrive skewed, rank i after i ns. The
// records are the same as by messages. It fails without the rounds'
// trimming (14 waits), with a bound above a clock, and with the earliest
// arrival of the round as the bound (below the earliest clock).
func TestBulkForgetsWaitsInRounds(t *testing.T) {
	const n = 4100
	rem := n - pof2Below(n)
	program := func(c *Comm) error {
		c.Elapse(time.Duration(c.Rank()) * time.Nanosecond)
		x, y := []float64{1}, make([]float64, 1)
		for range 2 {
			if err := Allreduce(c, x, y, Sum); err != nil {
				return err
			}
		}
		return nil
	}
	longest, rounds := 0, 0
	testHookBulkRound = func(ranks []*rank, bound float64) {
		rounds++
		earliest := math.Inf(1)
		for i, r := range ranks {
			longest = max(longest, r.clock.(*virtualClock).m.HistoryLen())
			if i < 2*rem && i%2 == 0 {
				continue // folded: takes no part in the rounds
			}
			now, _ := r.clock.Now()
			if bound > now {
				t.Fatalf("round %d hands on the bound %g, past rank %d's clock %g", rounds, bound, i, now)
			}
			earliest = min(earliest, now)
		}
		if bound != earliest {
			t.Fatalf("round %d hands on the bound %g, not the earliest clock %g", rounds, bound, earliest)
		}
	}
	t.Cleanup(func() { testHookBulkRound = nil })
	v := tianhe1aVirtual(t, n, 0)
	if err := runVirtualWithin(t, v, program); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds, at most %d waits kept at the end of one", rounds, longest)
	if rounds != 24 || longest > 8 {
		t.Fatalf("%d rounds at the gate, a rank kept up to %d waits at the end of one; want 24 rounds and at most 8 waits", rounds, longest)
	}
	msgs := runVirtualRecords(t, tianhe1a(t), n, program, withMessageCollectives())
	sameRecords(t, "two Allreduces", v.Results(), msgs)
}

// TestBulkCongruentCommunicators: a communicator that holds every world
// rank in the world's order (a Dup of COMM_WORLD, a Split with one color
// keyed by rank) stores its group as the identity, as the world's, and
// its Barriers and Allreduces are computed at the gate, records equal to
// the message path's; one in another order (keyed by minus the rank)
// keeps its table and runs by messages.
func TestBulkCongruentCommunicators(t *testing.T) {
	const n = 24
	m := tianhe1a(t)
	for _, tc := range []struct {
		name string
		make func(c *Comm) (*Comm, error)
		gate bool
	}{
		{"dup", func(c *Comm) (*Comm, error) { return c.Dup() }, true},
		{"split by rank", func(c *Comm) (*Comm, error) { return c.Split(0, c.Rank()) }, true},
		{"split reversed", func(c *Comm) (*Comm, error) { return c.Split(0, -c.Rank()) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			computed := countBulk(t)
			program := func(c *Comm) error {
				sub, err := tc.make(c)
				if err != nil {
					return err
				}
				if identity := sub.group.ranks == nil; identity != tc.gate {
					return fmt.Errorf("rank %d: group stored as the identity: %v, want %v", c.Rank(), identity, tc.gate)
				}
				return bulkSkeleton(3)(sub)
			}
			bulk := runVirtualRecords(t, m, n, program)
			if got := *computed > 0; got != tc.gate {
				t.Fatalf("%d collectives computed at the gate, want some: %v", *computed, tc.gate)
			}
			msgs := runVirtualRecords(t, m, n, program, withMessageCollectives())
			sameRecords(t, tc.name, bulk, msgs)
		})
	}
}

// TestBulkChargesNoComputation: measured computation (cpu-scale > 0) is
// what the program does between its calls. A collective at the gate
// charges none of the host's work inside it, so a rank that makes k
// Barriers and Allreduces computes k+1 bursts; by its messages, outside
// the gate's bracket, the steps' gaps were charged too.
func TestBulkChargesNoComputation(t *testing.T) {
	const n, burst = 8, 1e-4
	run := func(opts ...Option) []RankRecord {
		v, err := NewVirtual(tianhe1a(t), n, 1)
		if err != nil {
			t.Fatal(err)
		}
		v.newMeter = func(int) vtime.Meter { return &scriptedMeter{burst: burst, bursts: new(int)} }
		if err := runVirtualWithin(t, v, func(c *Comm) error {
			x, y := []float64{1}, make([]float64, 1)
			for range 3 {
				if err := c.Barrier(); err != nil {
					return err
				}
				if err := Allreduce(c, x, y, Sum); err != nil {
					return err
				}
			}
			return nil
		}, opts...); err != nil {
			t.Fatal(err)
		}
		return v.Results()
	}
	for i, r := range run() {
		if want := 7 * burst; math.Abs(r.Computation-want) > 1e-12 {
			t.Fatalf("rank %d computed %g s at the gate, want %g (7 bursts)", i, r.Computation, want)
		}
	}
	if r := run(withMessageCollectives())[0]; r.Computation <= 7*burst {
		t.Fatalf("by messages rank 0 computed %g s: the steps' gaps should count", r.Computation)
	}
}
