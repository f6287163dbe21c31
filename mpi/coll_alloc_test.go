package mpi

import (
	"fmt"
	"runtime"
	"testing"
)

// skipUnderRace skips the allocation counts: the race detector's build
// allocates on its own, by more than they bound.
func skipUnderRace(t *testing.T) {
	if raceSlowdown > 1 {
		t.Skip("allocation counts differ under the race detector")
	}
}

// TestBlockingCollectiveReusesRequests: a blocking collective's exchanges
// use the rank's spare requests, not two new ones each (coll.go,
// spareReqs): an 8-byte Allreduce at 2 ranks allocates at most its result
// scratch, not 512 bytes of requests.
func TestBlockingCollectiveReusesRequests(t *testing.T) {
	skipUnderRace(t)
	const calls = 2000
	var perCall [2]float64
	err := Run(2, func(c *Comm) error {
		in, out := []float64{1}, []float64{0}
		for i := 0; i < 100; i++ {
			if err := Allreduce(c, in, out, Sum); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < calls; i++ {
			if err := Allreduce(c, in, out, Sum); err != nil {
				return err
			}
		}
		runtime.ReadMemStats(&after)
		perCall[c.Rank()] = float64(after.TotalAlloc-before.TotalAlloc) / calls
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	// Both ranks allocate in one process and ReadMemStats counts both, so
	// each figure is the pair's: two requests per rank would be 1 KiB.
	for r, b := range perCall {
		t.Logf("rank %d: %.0f bytes allocated per Allreduce (both ranks)", r, b)
		if b > 400 {
			t.Errorf("rank %d saw %.0f bytes allocated per 8-byte Allreduce of 2 ranks, want under 400 (no per-exchange requests)", r, b)
		}
	}
}

// TestBlockingReductionsReuseScratch: Reduce and Allreduce of 4 KiB at 2
// ranks take their temporaries from the rank's scratch (coll.go), not 4
// KiB buffers per call, and still compute the sums.
func TestBlockingReductionsReuseScratch(t *testing.T) {
	skipUnderRace(t)
	const calls, n = 500, 512
	var perCall [2][2]float64
	err := Run(2, func(c *Comm) error {
		in, out := make([]float64, n), make([]float64, n)
		for i := range in {
			in[i] = float64(c.Rank()*n + i)
		}
		ops := []func() error{
			func() error { return Reduce(c, in, out, Sum, 0) },
			func() error { return Allreduce(c, in, out, Sum) },
		}
		for k, op := range ops {
			for i := 0; i < 20; i++ {
				if err := op(); err != nil {
					return err
				}
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < calls; i++ {
				if err := op(); err != nil {
					return err
				}
			}
			runtime.ReadMemStats(&after)
			perCall[c.Rank()][k] = float64(after.TotalAlloc-before.TotalAlloc) / calls
			if k == 1 || c.Rank() == 0 {
				for i, v := range out {
					if want := float64(n + 2*i); v != want {
						return fmt.Errorf("op %d: element %d = %v, want %v", k, i, v, want)
					}
				}
			}
			if err := c.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range perCall {
		for k, name := range []string{"Reduce", "Allreduce"} {
			b := perCall[r][k]
			t.Logf("rank %d: %s of 4 KiB: %.0f bytes allocated per call (both ranks)", r, name, b)
			if b > 2048 {
				t.Errorf("rank %d: %s of 4 KiB at 2 ranks allocated %.0f bytes per call, want under 2048 (temporaries from scratch)", r, name, b)
			}
		}
	}
}

// TestScatteredAlltoallReusesRequests: the scattered Alltoall (small
// blocks, fewer than 8 ranks) takes its window's requests and their list
// from the rank, not 2 requests and a 64-entry list per call.
func TestScatteredAlltoallReusesRequests(t *testing.T) {
	skipUnderRace(t)
	const calls = 2000
	var perCall [2]float64
	err := Run(2, func(c *Comm) error {
		me := float64(c.Rank())
		in, out := []float64{10 * me, 10*me + 1}, make([]float64, 2) // block j: 10*me + j
		for i := 0; i < 100; i++ {
			if err := Alltoall(c, in, out); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < calls; i++ {
			if err := Alltoall(c, in, out); err != nil {
				return err
			}
		}
		runtime.ReadMemStats(&after)
		perCall[c.Rank()] = float64(after.TotalAlloc-before.TotalAlloc) / calls
		if out[0] != me || out[1] != 10+me { // block me of rank j: 10*j + me
			return fmt.Errorf("rank %d got %v, want [%v %v]", c.Rank(), out, me, 10+me)
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	for r, b := range perCall {
		t.Logf("rank %d: %.0f bytes allocated per Alltoall (both ranks)", r, b)
		if b > 400 {
			t.Errorf("rank %d saw %.0f bytes allocated per 8-byte-block Alltoall of 2 ranks, want under 400", r, b)
		}
	}
}
