package mpi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// checkAllOn runs every collective on c against the brute force. full adds
// every predefined operation on int64 and float64; otherwise a
// representative few (a commutative builtin, a non-commutative user
// operation, a float one) keep the forced-algorithm sweeps short.
func checkAllOn(c *Comm, seed, k int, full bool) error {
	if err := checkMoves[int64](c, seed, k); err != nil {
		return err
	}
	gi := func(prod bool) func(s, r, k int) []int64 {
		return func(s, r, k int) []int64 { return gen[int64](s, r, k, prod) }
	}
	gf := func(prod bool) func(s, r, k int) []float64 {
		return func(s, r, k int) []float64 { return gen[float64](s, r, k, prod) }
	}
	intOps := []Op{Sum, BXor}
	floatOps := []Op{Max}
	if full {
		intOps = []Op{Sum, Prod, Min, Max, LAnd, LOr, LXor, BAnd, BOr, BXor}
		floatOps = []Op{Sum, Prod, Min, Max}
	}
	for i, op := range intOps {
		if err := checkReductions(c, seed+i, k, op, gi(op == Prod), scalarInt[int64](op)); err != nil {
			return err
		}
	}
	for i, op := range floatOps {
		if err := checkReductions(c, seed+i, k, op, gf(op == Prod), scalar[float64](op)); err != nil {
			return err
		}
	}
	if err := checkReductions(c, seed, k, NewOp(affine, false), genAffine, affineScalar); err != nil {
		return err
	}
	if full {
		userSum := NewOp(func(in, inout []int32) {
			for i := range inout {
				inout[i] += in[i]
			}
		}, true)
		g32 := func(s, r, k int) []int32 { return gen[int32](s, r, k, false) }
		if err := checkReductions(c, seed, k, userSum, g32, func(a, b int32) int32 { return a + b }); err != nil {
			return err
		}
	}
	return checkLoc(c, seed, k)
}

// checkLoc checks MaxLoc and MinLoc: the extreme value and, among equal
// ones, the lowest rank (values repeat often, so ties are exercised).
func checkLoc(c *Comm, seed, k int) error {
	n, me := c.Size(), c.Rank()
	pairs := func(r int) []ValIdx[float64] {
		v := make([]ValIdx[float64], k)
		for i := range v {
			v[i] = ValIdx[float64]{Val: float64(hval(seed, r, i) % 3), Idx: r}
		}
		return v
	}
	for _, op := range []Op{MaxLoc, MinLoc} {
		want := pairs(0)
		for r := 1; r < n; r++ {
			for i, p := range pairs(r) {
				if op == MaxLoc && p.Val > want[i].Val || op == MinLoc && p.Val < want[i].Val {
					want[i] = p
				}
			}
		}
		out := make([]ValIdx[float64], k)
		if err := AllreduceLoc(c, pairs(me), out, op); err != nil {
			return err
		}
		if err := equalOrErr(fmt.Sprintf("AllreduceLoc(%s, n=%d)", op, n), out, want); err != nil {
			return err
		}
		buf := pairs(me)
		if err := AllreduceLocInPlace(c, buf, op); err != nil {
			return err
		}
		if err := equalOrErr(fmt.Sprintf("AllreduceLocInPlace(%s, n=%d)", op, n), buf, want); err != nil {
			return err
		}
		clear(out)
		if err := ReduceLoc(c, pairs(me), out, op, n-1); err != nil {
			return err
		}
		if me == n-1 {
			if err := equalOrErr(fmt.Sprintf("ReduceLoc(%s, n=%d)", op, n), out, want); err != nil {
				return err
			}
		}
	}
	return nil
}

func collSizes() []int {
	if testing.Short() {
		return []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17}
	}
	return []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 32, 64}
}

// TestCollectivesBySize: every collective and operator, default algorithm
// choice, communicator sizes 1-17, 32 and 64, counts 0, 1 and 7; and a
// count of 300 (past the short-message thresholds of reduce and allreduce)
// on some sizes.
func TestCollectivesBySize(t *testing.T) {
	for _, n := range collSizes() {
		counts := []int{0, 1, 7}
		if n%4 == 1 || n == 16 {
			counts = append(counts, 300)
		}
		for _, k := range counts {
			full := k <= 7 && n <= 17
			if err := Run(n, func(c *Comm) error { return checkAllOn(c, n*1000+k, k, full) }); err != nil {
				t.Fatalf("n=%d k=%d: %v", n, k, err)
			}
		}
	}
}

// TestCollectivesLarge takes the long-message paths of the default choice:
// scatter + allgather broadcast, Rabenseifner reduce and allreduce, ring
// allgather, pairwise alltoall and reduce-scatter.
func TestCollectivesLarge(t *testing.T) {
	sizes := []int{3, 8, 9}
	if testing.Short() {
		sizes = []int{9}
	}
	for _, n := range sizes {
		err := Run(n, func(c *Comm) error {
			k := 70000 // 560 KB of int64: past every long-message threshold
			if err := checkReductions(c, n, k, Sum, func(s, r, k int) []int64 { return gen[int64](s, r, k, false) }, scalarInt[int64](Sum)); err != nil {
				return err
			}
			buf := make([]int64, k)
			if c.Rank() == 1 {
				buf = gen[int64](5, 1, k, false)
			}
			if err := Bcast(c, buf, 1); err != nil {
				return err
			}
			if err := equalOrErr("Bcast large", buf, gen[int64](5, 1, k, false)); err != nil {
				return err
			}
			// 8192 int64 per rank: allgather total past the long threshold;
			// alltoall blocks of 4096 int64 (32 KiB): pairwise exchange.
			return checkMoves[int64](c, 7, 8192/c.Size()*2)
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}

// forceAlgo forces algorithm a for collective k until the test ends.
func forceAlgo(t *testing.T, k collKind, a algo) {
	f := &collForce{}
	f.algo[k] = a
	setForced(f)
	t.Cleanup(func() { setForced(nil) })
}

// TestCollectivesForced runs every collective with each algorithm forced in
// turn, on power-of-two and other sizes, with counts that leave some blocks
// empty (k < n) and uneven splits.
func TestCollectivesForced(t *testing.T) {
	sizes := []int{2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17}
	if testing.Short() {
		sizes = []int{2, 3, 5, 8, 12}
	}
	for k := range nColl {
		for _, a := range collAlgos[k] {
			t.Run(fmt.Sprintf("%s=%s", k, a), func(t *testing.T) {
				forceAlgo(t, k, a)
				for _, n := range sizes {
					for _, cnt := range []int{0, 1, 5, 37} {
						if err := Run(n, func(c *Comm) error { return checkAllOn(c, n*100+cnt, cnt, false) }); err != nil {
							t.Fatalf("n=%d k=%d: %v", n, cnt, err)
						}
					}
				}
			})
		}
	}
}

// TestCollectivesSplit runs collectives concurrently on the disjoint
// sub-communicators of a Split (sizes 5, 4 and 4 from 13 ranks, ordered
// by descending world rank), and on a split of a split.
func TestCollectivesSplit(t *testing.T) {
	err := Run(13, func(c *Comm) error {
		sub, err := c.Split(c.Rank()%3, -c.Rank())
		if err != nil {
			return err
		}
		if err := checkAllOn(sub, 11+c.Rank()%3, 6, true); err != nil {
			return err
		}
		subsub, err := sub.Split(sub.Rank()%2, sub.Rank())
		if err != nil {
			return err
		}
		if err := checkAllOn(subsub, 5, 3, false); err != nil {
			return err
		}
		return checkAllOn(c, 1, 2, false)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCollectivesWithPointToPoint posts user receives (named and
// AnySource/AnyTag, with the same tag numbers the collectives use) on the
// world and on a duplicate before running collectives on both: nothing may
// cross over between user and collective traffic or between communicators.
func TestCollectivesWithPointToPoint(t *testing.T) {
	for _, n := range []int{2, 5, 8} {
		err := Run(n, func(c *Comm) error {
			me := c.Rank()
			right, left := (me+1)%n, (me-1+n)%n
			dup, err := c.Dup()
			if err != nil {
				return err
			}
			var reqs []*Request
			got := make([][]int64, 0)
			for tag := tagBarrier; tag <= tagExscan; tag++ {
				for _, cc := range []*Comm{c, dup} {
					b := make([]int64, 3)
					q, err := Irecv(cc, b, left, tag)
					if err != nil {
						return err
					}
					reqs = append(reqs, q)
					got = append(got, b)
				}
			}
			wild := make([]int64, 3)
			wq, err := Irecv(dup, wild, AnySource, AnyTag)
			if err != nil {
				return err
			}
			for _, cc := range []*Comm{c, dup} {
				if err := checkAllOn(cc, 3, 4, false); err != nil {
					return err
				}
			}
			for tag := tagBarrier; tag <= tagExscan; tag++ {
				for ci, cc := range []*Comm{c, dup} {
					if err := Send(cc, []int64{int64(me), int64(tag), int64(ci)}, right, tag); err != nil {
						return err
					}
				}
			}
			if _, err := Waitall(reqs); err != nil {
				return err
			}
			i := 0
			for tag := tagBarrier; tag <= tagExscan; tag++ {
				for ci := range 2 {
					if want := []int64{int64(left), int64(tag), int64(ci)}; !slices.Equal(got[i], want) {
						return fmt.Errorf("rank %d: user message %d is %v, want %v", me, i, got[i], want)
					}
					i++
				}
			}
			if err := Send(dup, []int64{42, 42, 42}, right, 9); err != nil {
				return err
			}
			st, err := wq.Wait()
			if err != nil {
				return err
			}
			if st.Source != left || st.Tag != 9 || wild[0] != 42 {
				return fmt.Errorf("rank %d: wildcard receive got %v from %d tag %d", me, wild, st.Source, st.Tag)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}

// TestAllreduceRealFloats: non-integer inputs, each allreduce algorithm.
// Combination order differs between algorithms, so the result is compared
// with the sequential sum within n*eps*sum|x|; but every rank must get
// bitwise the same result.
func TestAllreduceRealFloats(t *testing.T) {
	for _, a := range collAlgos[collAllreduce] {
		forceAlgo(t, collAllreduce, a)
		for _, n := range []int{3, 8, 13} {
			const k = 1000
			err := Run(n, func(c *Comm) error {
				val := func(r, i int) float64 { return float64(hval(1, r, i)) / 7 * math.Pi }
				mine := make([]float64, k)
				for i := range mine {
					mine[i] = val(c.Rank(), i)
				}
				out := make([]float64, k)
				if err := Allreduce(c, mine, out, Sum); err != nil {
					return err
				}
				for i := range out {
					sum, abs := 0.0, 0.0
					for r := 0; r < n; r++ {
						sum += val(r, i)
						abs += math.Abs(val(r, i))
					}
					if math.Abs(out[i]-sum) > float64(n)*0x1p-52*abs {
						return fmt.Errorf("%s n=%d element %d: %v, sequential sum %v", a, n, i, out[i], sum)
					}
				}
				all := make([]float64, n*k)
				if err := Allgather(c, out, all); err != nil {
					return err
				}
				for r := 1; r < n; r++ {
					for i := 0; i < k; i++ {
						if math.Float64bits(all[r*k+i]) != math.Float64bits(all[i]) {
							return fmt.Errorf("%s n=%d: rank %d and rank 0 differ at element %d", a, n, r, i)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	setForced(nil)
}

// TestAllreduceSendBufferAsReceiveBuffer: Rabenseifner's first step reads
// the send buffer where it lies (allreduceFrom); the same slice passed as
// both buffers (erroneous in MPI, but it worked) still works, as in place.
func TestAllreduceSendBufferAsReceiveBuffer(t *testing.T) {
	forceAlgo(t, collAllreduce, algoRabenseifner)
	for _, n := range []int{2, 4} {
		err := Run(n, func(c *Comm) error {
			buf := make([]int64, 1000)
			for i := range buf {
				buf[i] = int64(c.Rank()*1000 + i)
			}
			if err := Allreduce(c, buf, buf, Sum); err != nil {
				return err
			}
			for i, v := range buf {
				if want := int64(n*(n-1)/2*1000 + n*i); v != want {
					return fmt.Errorf("element %d: %d, want %d", i, v, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}

// TestCollMessageCounts checks the per-rank message counts that
// docs/collectives.md states for each algorithm, on a power-of-two and a
// non-power-of-two communicator.
func TestCollMessageCounts(t *testing.T) {
	type tc struct {
		kind collKind
		a    algo
		call func(c *Comm) error
		want func(n int) int // messages sent by all ranks together
	}
	lg := ceilLog2
	// pof2Only marks formulas stated for powers of two only (-1: not checked).
	pof2Only := func(f func(n int) int) func(n int) int {
		return func(n int) int {
			if !isPof2(n) {
				return -1
			}
			return f(n)
		}
	}
	rd := func(n int) int { p := pof2Below(n); return 2*(n-p) + p*lg(p) }
	const k = 64
	cases := []tc{
		{nColl, 0, func(c *Comm) error { return c.Barrier() }, func(n int) int { return n * lg(n) }},
		{collBcast, algoBinomial, func(c *Comm) error { return Bcast(c, make([]int64, k), 0) }, func(n int) int { return n - 1 }},
		{collBcast, algoScatterRing, func(c *Comm) error { return Bcast(c, make([]int64, k), 0) },
			func(n int) int { return n - 1 + n*(n-1) }},
		{collAllreduce, algoRecDbl, func(c *Comm) error { return AllreduceInPlace(c, make([]int64, k), Sum) }, rd},
		{collAllreduce, algoRabenseifner, func(c *Comm) error { return AllreduceInPlace(c, make([]int64, k), Sum) },
			func(n int) int { p := pof2Below(n); return 2*(n-p) + 2*p*lg(p) }},
		{collAllreduce, algoRing, func(c *Comm) error { return AllreduceInPlace(c, make([]int64, k), Sum) },
			func(n int) int { return 2 * n * (n - 1) }},
		{collReduce, algoBinomial, func(c *Comm) error { return ReduceInPlace(c, make([]int64, k), Sum, 0) }, func(n int) int { return n - 1 }},
		{collAllgather, algoRing, func(c *Comm) error { return AllgatherInPlace(c, make([]int64, k*c.Size())) },
			func(n int) int { return n * (n - 1) }},
		{collAllgather, algoBruck, func(c *Comm) error { return AllgatherInPlace(c, make([]int64, k*c.Size())) },
			func(n int) int { return n * lg(n) }},
		{collAlltoall, algoBruck, func(c *Comm) error { return Alltoall(c, make([]int64, k*c.Size()), make([]int64, k*c.Size())) },
			func(n int) int { return n * lg(n) }},
		{collAlltoall, algoPairwise, func(c *Comm) error { return Alltoall(c, make([]int64, k*c.Size()), make([]int64, k*c.Size())) },
			func(n int) int { return n * (n - 1) }},
		{collReduceScatter, algoPairwise, func(c *Comm) error { return ReduceScatterBlockInPlace(c, make([]int64, k*c.Size()), Sum) },
			func(n int) int { return n * (n - 1) }},
		{collReduceScatter, algoRecHalving, func(c *Comm) error { return ReduceScatterBlockInPlace(c, make([]int64, k*c.Size()), Sum) },
			func(n int) int { p := pof2Below(n); return 2*(n-p) + p*lg(p) }},
		{collBcast, algoScatterRecDbl, func(c *Comm) error { return Bcast(c, make([]int64, k), 0) },
			pof2Only(func(n int) int { return n - 1 + n*lg(n) })},
		{collReduceScatter, algoRecDbl, func(c *Comm) error { return ReduceScatterBlockInPlace(c, make([]int64, k*c.Size()), Sum) },
			pof2Only(func(n int) int { return n * lg(n) })},
		{collReduceScatter, algoNoncommutative, func(c *Comm) error { return ReduceScatterBlockInPlace(c, make([]int64, k*c.Size()), Sum) },
			pof2Only(func(n int) int { return n * lg(n) })},
		{nColl, 0, func(c *Comm) error { return ScanInPlace(c, make([]int64, k), Sum) },
			func(n int) int {
				s := 0
				for m := 1; m < n; m <<= 1 {
					for r := 0; r < n; r++ {
						if r^m < n {
							s++
						}
					}
				}
				return s
			}},
	}
	for _, x := range cases {
		if x.kind < nColl {
			forceAlgo(t, x.kind, x.a)
		} else {
			setForced(nil)
		}
		for _, n := range []int{6, 8, 13} {
			if x.want(n) < 0 {
				continue
			}
			var total int64
			err := Run(n, func(c *Comm) error {
				before := c.r.stats.sent
				if err := x.call(c); err != nil {
					return err
				}
				sent := []int64{c.r.stats.sent - before}
				if err := AllreduceInPlace(c, sent, Sum); err != nil {
					return err
				}
				if c.Rank() == 0 {
					total = sent[0]
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := x.want(n); total != int64(want) {
				t.Errorf("%v=%v n=%d: %d messages, want %d", x.kind, x.a, n, total, want)
			}
		}
	}
	setForced(nil)
}

func TestCollErrors(t *testing.T) {
	err := Run(3, func(c *Comm) error {
		f := []float64{1}
		f3 := make([]float64, 6)
		check := func(what string, err error, want error) error {
			if !errors.Is(err, want) {
				return fmt.Errorf("%s: got %v, want %v", what, err, want)
			}
			return nil
		}
		for _, e := range []struct {
			what      string
			err, want error
		}{
			{"BAnd on float64", Allreduce(c, f, f, BAnd), ErrOp},
			{"LOr on float64", Allreduce(c, f, f, LOr), ErrOp},
			{"Min on complex128", Allreduce(c, []complex128{1}, []complex128{1}, Min), ErrOp},
			{"MaxLoc on float64", Reduce(c, f, f, MaxLoc, 0), ErrOp},
			{"Sum on ValIdx", AllreduceLoc(c, []ValIdx[int]{{}}, []ValIdx[int]{{}}, Sum), ErrOp},
			{"MaxLoc on complex", AllreduceLoc(c, []ValIdx[complex64]{{}}, []ValIdx[complex64]{{}}, MaxLoc), ErrOp},
			{"null Op", Allreduce(c, f, f, Op{}), ErrOp},
			{"user op type mismatch", Allreduce(c, []int64{1}, []int64{1}, NewOp(affine, false)), ErrOp},
			{"Bcast root", Bcast(c, f, 3), ErrRoot},
			{"Reduce root", Reduce(c, f, f, Sum, -1), ErrRoot},
			{"Alltoall uneven", Alltoall(c, make([]int, 4), make([]int, 4)), ErrCount},
			{"Alltoall aliased", Alltoall(c, f3[:3], f3[1:]), ErrBuffer},
			{"Alltoallv aliased", Alltoallv(c, f3, []int{1, 1, 1}, []int{0, 1, 2}, f3, []int{1, 1, 1}, []int{0, 1, 2}), ErrBuffer},
			{"Allreduce short recv", Allreduce(c, []int{1, 2}, []int{0}, Sum), ErrCount},
			{"ReduceScatter counts", ReduceScatter(c, make([]int, 5), make([]int, 5), []int{1, 1, 1}, Sum), ErrCount},
			{"Allgatherv displs", Allgatherv(c, []int{1}, make([]int, 3), []int{1, 1, 1}, []int{0, 1, 5}), ErrCount},
			{"Alltoallv counts", Alltoallv(c, make([]int, 3), []int{1, 1}, []int{0, 1}, make([]int, 3), []int{1, 1, 1}, []int{0, 1, 2}), ErrCount},
		} {
			if err := check(e.what, e.err, e.want); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A null communicator is an ErrComm error, not a panic.
	var null *Comm
	for what, err := range map[string]error{
		"Barrier":             null.Barrier(),
		"Bcast":               Bcast(null, []int{1}, 0),
		"Allreduce":           Allreduce(null, []int{1}, []int{1}, Sum),
		"ReduceInPlace":       ReduceInPlace(null, []int{1}, Sum, 0),
		"GatherInPlace":       GatherInPlace(null, []int{1}, 0),
		"Scatterv":            Scatterv(null, []int{1}, []int{1}, []int{0}, []int{1}, 0),
		"Alltoallv":           Alltoallv(null, []int{1}, []int{1}, []int{0}, []int{1}, []int{1}, []int{0}),
		"ReduceScatterBlock":  ReduceScatterBlock(null, []int{1}, []int{1}, Sum),
		"ExscanInPlace":       ExscanInPlace(null, []int{1}, Sum),
		"AllreduceLocInPlace": AllreduceLocInPlace(null, []ValIdx[int]{{}}, MaxLoc),
	} {
		if !errors.Is(err, ErrComm) {
			t.Errorf("%s on a null communicator: %v", what, err)
		}
	}
	// A freed communicator is refused.
	err = Run(2, func(c *Comm) error {
		d, err := c.Dup()
		if err != nil {
			return err
		}
		if err := d.Free(); err != nil {
			return err
		}
		if err := d.Barrier(); !errors.Is(err, ErrComm) {
			return fmt.Errorf("Barrier on freed comm: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCollEnv(t *testing.T) {
	env := map[string]string{"GOMPI_COLL_ALLREDUCE": "Ring", "GOMPI_COLL_BCAST": "fastest", "GOMPI_COLL_ALLTOALL": "auto"}
	f := parseCollEnv(func(k string) string { return env[k] })
	if f.algo[collAllreduce] != algoRing || f.err[collAllreduce] != nil {
		t.Errorf("ALLREDUCE=Ring parsed as %v, %v", f.algo[collAllreduce], f.err[collAllreduce])
	}
	if f.algo[collAlltoall] != algoAuto || f.err[collAlltoall] != nil {
		t.Errorf("ALLTOALL=auto parsed as %v, %v", f.algo[collAlltoall], f.err[collAlltoall])
	}
	msg := fmt.Sprint(f.err[collBcast])
	if !errors.Is(f.err[collBcast], ErrArg) || !strings.Contains(msg, "GOMPI_COLL_BCAST") || !strings.Contains(msg, "binomial") {
		t.Errorf("BCAST=fastest: error %q should name the variable and the choices", msg)
	}
	setForced(f)
	defer setForced(nil)
	err := Run(2, func(c *Comm) error {
		if err := Bcast(c, []int{1}, 0); !errors.Is(err, ErrArg) {
			return fmt.Errorf("Bcast with a bad forced algorithm: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCollVolumes checks the bytes-sent column of docs/collectives.md: the
// total over all ranks of the bytes each algorithm sends, for m = 512-byte
// buffers (b = 512-byte blocks), which p divides so the blocks are even.
func TestCollVolumes(t *testing.T) {
	const k = 64 // int64s: m = b = 512 bytes
	const m = 8 * k
	lg := ceilLog2
	a2a := func(c *Comm) error { return Alltoall(c, make([]int64, k*c.Size()), make([]int64, k*c.Size())) }
	ag := func(c *Comm) error { return AllgatherInPlace(c, make([]int64, k*c.Size())) }
	ar := func(c *Comm) error { return AllreduceInPlace(c, make([]int64, k), Sum) }
	cases := []struct {
		kind collKind
		a    algo
		call func(c *Comm) error
		want func(n int) int // bytes sent by all ranks together
	}{
		{collBcast, algoBinomial, func(c *Comm) error { return Bcast(c, make([]int64, k), 0) }, func(n int) int { return (n - 1) * m }},
		{collAllreduce, algoRecDbl, ar, func(n int) int { p := pof2Below(n); return 2*(n-p)*m + p*lg(p)*m }},
		{collAllreduce, algoRabenseifner, ar, func(n int) int { p := pof2Below(n); return 2*(n-p)*m + 2*(p-1)*m }},
		{collAllreduce, algoRing, ar, func(n int) int { return 2 * (n - 1) * m }},
		{collAllgather, algoRing, ag, func(n int) int { return n * (n - 1) * m }},
		{collAllgather, algoBruck, ag, func(n int) int { return n * (n - 1) * m }},
		{collAlltoall, algoPairwise, a2a, func(n int) int { return n * (n - 1) * m }},
		{collAlltoall, algoScattered, a2a, func(n int) int { return n * (n - 1) * m }},
		{collAlltoall, algoBruck, a2a, func(n int) int {
			s := 0
			for pow := 1; pow < n; pow <<= 1 {
				for i := 0; i < n; i++ {
					if i&pow != 0 {
						s++
					}
				}
			}
			return n * s * m
		}},
	}
	for _, x := range cases {
		forceAlgo(t, x.kind, x.a)
		for _, n := range []int{6, 8, 13} {
			var total int64
			err := Run(n, func(c *Comm) error {
				before := c.r.stats.sentBytes
				if err := x.call(c); err != nil {
					return err
				}
				sent := []int64{c.r.stats.sentBytes - before}
				if err := AllreduceInPlace(c, sent, Sum); err != nil {
					return err
				}
				if c.Rank() == 0 {
					total = sent[0]
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := x.want(n); total != int64(want) {
				t.Errorf("%v=%v n=%d: %d bytes, want %d", x.kind, x.a, n, total, want)
			}
		}
	}
	setForced(nil)
}

// TestTwoRankReductionsSendLess: a real run of two ranks computes an
// Allreduce up to allreduceTwoRankMax by recursive doubling (one message
// each way) and a Reduce of any size by the binomial tree (one message,
// to the root), where MPICH's thresholds take Rabenseifner's algorithms,
// a message more; above that size for an Allreduce, and in a virtual run
// at any size, MPICH's choice stands. Each rank counts the messages it
// sends.
func TestTwoRankReductionsSendLess(t *testing.T) {
	allreduce := func(c *Comm, x []float64) error { return AllreduceInPlace(c, x, Sum) }
	reduce := func(c *Comm, x []float64) error { return Reduce(c, x, make([]float64, len(x)), Sum, 0) }
	for _, tc := range []struct {
		name    string
		call    func(*Comm, []float64) error
		bytes   int
		virtual bool
		want    [2]int64 // messages sent by ranks 0 and 1
	}{
		{"Allreduce", allreduce, 4096, false, [2]int64{1, 1}},
		{"Allreduce", allreduce, allreduceTwoRankMax, false, [2]int64{1, 1}},
		{"Allreduce", allreduce, 2 * allreduceTwoRankMax, false, [2]int64{2, 2}},
		{"Allreduce", allreduce, 4096, true, [2]int64{2, 2}},
		{"Reduce", reduce, 4096, false, [2]int64{0, 1}},
		{"Reduce", reduce, 1 << 20, false, [2]int64{0, 1}},
		{"Reduce", reduce, 4096, true, [2]int64{1, 2}},
		{"Reduce", reduce, 1 << 20, true, [2]int64{1, 2}},
	} {
		check := func(c *Comm) error {
			before := c.r.stats.sent
			if err := tc.call(c, make([]float64, tc.bytes/8)); err != nil {
				return err
			}
			if n := c.r.stats.sent - before; n != tc.want[c.Rank()] {
				return fmt.Errorf("rank %d sent %d messages, want %d", c.Rank(), n, tc.want[c.Rank()])
			}
			return nil
		}
		var err error
		if tc.virtual {
			err = tianhe1aVirtual(t, 2, 0).Run(check)
		} else {
			err = Run(2, check)
		}
		if err != nil {
			t.Errorf("%s of %d bytes, virtual %v: %v", tc.name, tc.bytes, tc.virtual, err)
		}
	}
}
