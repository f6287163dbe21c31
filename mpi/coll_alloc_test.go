package mpi

import (
	"fmt"
	"runtime"
	"testing"
)

// allocPerCall runs op on both ranks of an in-process world of 2, warm,
// then calls times between two readings of the allocator, and returns
// the bytes allocated per call as each rank saw them. Both ranks allocate
// in one process and ReadMemStats counts both, so each figure is the
// pair's. check, when not nil, runs on each rank after the calls. The
// race detector's build allocates on its own: such tests skip under it.
func allocPerCall(t *testing.T, calls int, op func(c *Comm) error, check func(c *Comm) error) [2]float64 {
	t.Helper()
	if raceSlowdown > 1 {
		t.Skip("allocation counts differ under the race detector")
	}
	var perCall [2]float64
	err := Run(2, func(c *Comm) error {
		for i := 0; i < 100; i++ {
			if err := op(c); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < calls; i++ {
			if err := op(c); err != nil {
				return err
			}
		}
		runtime.ReadMemStats(&after)
		perCall[c.Rank()] = float64(after.TotalAlloc-before.TotalAlloc) / float64(calls)
		if check != nil {
			if err := check(c); err != nil {
				return err
			}
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	return perCall
}

// wantAllocBelow fails when a rank saw limit bytes or more per call.
func wantAllocBelow(t *testing.T, what string, perCall [2]float64, limit float64) {
	t.Helper()
	for r, b := range perCall {
		t.Logf("rank %d: %.0f bytes allocated per %s (both ranks)", r, b, what)
		if b >= limit {
			t.Errorf("rank %d saw %.0f bytes allocated per %s, want under %.0f", r, b, what, limit)
		}
	}
}

// TestBlockingCollectiveReusesRequests: a blocking collective's exchanges
// use the rank's spare requests, not two new ones each (coll.go,
// spareReqs), wait for them without gathering statuses (waitReqs) and
// take the reduction kernel from a table (op_kernels.go), so an 8-byte
// Allreduce and a Barrier at 2 ranks allocate next to nothing: not 1 KiB
// of requests (two per rank), nor the 256 and 224 bytes of statuses,
// argument lists and kernel closures they allocated after that.
func TestBlockingCollectiveReusesRequests(t *testing.T) {
	in, out := [2][]float64{{1}, {1}}, [2][]float64{{0}, {0}}
	got := allocPerCall(t, 2000, func(c *Comm) error {
		return Allreduce(c, in[c.Rank()], out[c.Rank()], Sum)
	}, nil)
	wantAllocBelow(t, "8-byte Allreduce of 2 ranks", got, 64)
	got = allocPerCall(t, 2000, func(c *Comm) error { return c.Barrier() }, nil)
	wantAllocBelow(t, "Barrier of 2 ranks", got, 64)
}

// TestBlockingReductionsReuseScratch: Reduce and Allreduce of 4 KiB at 2
// ranks take their temporaries from the rank's scratch (coll.go), not 4
// KiB buffers per call, and still compute the sums. Reduce is measured
// with each of its algorithms: Rabenseifner's, and the binomial tree that
// a real run of 2 ranks takes (coll_algo.go, realPair). The binomial
// tree's sender does not wait for the root, and when it runs calls ahead
// the transport holds its messages in buffers of their own, a few of
// which each call then allocates: not the reduction's temporaries, so
// each binomial Reduce here is followed by a Barrier, which allocates
// next to nothing (TestBlockingCollectiveReusesRequests).
func TestBlockingReductionsReuseScratch(t *testing.T) {
	const n = 512
	var in, out [2][]float64
	for r := range in {
		in[r], out[r] = make([]float64, n), make([]float64, n)
		for i := range in[r] {
			in[r][i] = float64(r*n + i)
		}
	}
	sums := func(all bool) func(c *Comm) error {
		return func(c *Comm) error {
			if !all && c.Rank() != 0 {
				return nil
			}
			for i, v := range out[c.Rank()] {
				if want := float64(n + 2*i); v != want {
					return fmt.Errorf("rank %d: element %d = %v, want %v", c.Rank(), i, v, want)
				}
			}
			return nil
		}
	}
	forceAlgo(t, collReduce, algoRabenseifner)
	got := allocPerCall(t, 500, func(c *Comm) error {
		return Reduce(c, in[c.Rank()], out[c.Rank()], Sum, 0)
	}, sums(false))
	wantAllocBelow(t, "4 KiB Reduce of 2 ranks (Rabenseifner)", got, 2048)
	forceAlgo(t, collReduce, algoAuto)
	got = allocPerCall(t, 500, func(c *Comm) error {
		if err := Reduce(c, in[c.Rank()], out[c.Rank()], Sum, 0); err != nil {
			return err
		}
		return c.Barrier()
	}, sums(false))
	wantAllocBelow(t, "4 KiB Reduce of 2 ranks (binomial) and a Barrier", got, 2048)
	got = allocPerCall(t, 500, func(c *Comm) error {
		return Allreduce(c, in[c.Rank()], out[c.Rank()], Sum)
	}, sums(true))
	wantAllocBelow(t, "4 KiB Allreduce of 2 ranks", got, 2048)
}

// TestScatteredAlltoallReusesRequests: the scattered Alltoall (small
// blocks, fewer than 8 ranks) takes its window's requests and their list
// from the rank, not 2 requests and a 64-entry list per call.
func TestScatteredAlltoallReusesRequests(t *testing.T) {
	// Block j of rank me holds 10*me + j.
	in := [2][]float64{{0, 1}, {10, 11}}
	out := [2][]float64{make([]float64, 2), make([]float64, 2)}
	got := allocPerCall(t, 2000, func(c *Comm) error {
		return Alltoall(c, in[c.Rank()], out[c.Rank()])
	}, func(c *Comm) error {
		me := float64(c.Rank())
		if o := out[c.Rank()]; o[0] != me || o[1] != 10+me { // block me of rank j: 10*j + me
			return fmt.Errorf("rank %d got %v, want [%v %v]", c.Rank(), o, me, 10+me)
		}
		return nil
	})
	wantAllocBelow(t, "8-byte-block Alltoall of 2 ranks", got, 64)
}

// TestSendrecvReusesRequests: Sendrecv takes its two requests from the
// rank (p2p.go), not two new ones per call, and gathers no statuses.
func TestSendrecvReusesRequests(t *testing.T) {
	in, out := [2][]float64{{1}, {2}}, [2][]float64{{0}, {0}}
	got := allocPerCall(t, 2000, func(c *Comm) error {
		peer := 1 - c.Rank()
		_, err := Sendrecv(c, in[c.Rank()], peer, 3, out[c.Rank()], peer, 3)
		return err
	}, func(c *Comm) error {
		if want := in[1-c.Rank()][0]; out[c.Rank()][0] != want {
			return fmt.Errorf("rank %d received %v, want %v", c.Rank(), out[c.Rank()][0], want)
		}
		return nil
	})
	wantAllocBelow(t, "8-byte Sendrecv of 2 ranks", got, 64)
}
