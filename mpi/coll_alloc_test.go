package mpi

import (
	"runtime"
	"testing"
)

// TestBlockingCollectiveReusesRequests: a blocking collective's exchanges
// use the rank's spare requests, not two new ones each (coll.go,
// spareReqs): an 8-byte Allreduce at 2 ranks allocates at most its result
// scratch, not 512 bytes of requests.
func TestBlockingCollectiveReusesRequests(t *testing.T) {
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
