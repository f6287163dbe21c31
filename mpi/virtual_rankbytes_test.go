package mpi

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// heapPerVirtualRank builds a virtual world of n ranks at cpu-scale 0,
// runs a Barrier and an Allreduce (samples/barrier's program), and returns
// the live heap per rank while every rank is still alive: the ranks'
// engine state, clocks, inboxes and the runtime's goroutine records, not
// their stacks (the runtime counts those apart). Rank 0 measures between
// the Barrier and the Allreduce, as the collector found the heap live, so
// what it sees is what the ranks keep, not garbage.
func heapPerVirtualRank(t *testing.T, n int) float64 {
	t.Helper()
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	before := liveHeap()
	v, err := NewVirtual(m, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	var during uint64
	err = v.Run(func(c *Comm) error {
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			during = liveHeap()
		}
		count := []int64{0}
		return Allreduce(c, []int64{1}, count, Sum)
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(v)
	return float64(int64(during)-int64(before)) / float64(n)
}

// liveHeap is the heap the collector found live, after two collections:
// the second frees what sync.Pools kept through the first.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestVirtualRankBytes bounds what a virtual rank costs the heap, which
// decides how many ranks a host can carry (docs/model.md, "Virtual ranks
// on one host", has the figures). The bound fails with the rank's rarely
// used parts allocated up front, as they were: the blocking point-to-point
// request, the collectives' spare state, the context-id mask beyond the
// first 64 ids and the rendezvous maps.
func TestVirtualRankBytes(t *testing.T) {
	if raceSlowdown > 1 {
		t.Skip("the race detector's build allocates on its own")
	}
	if testing.Short() {
		t.Skip("builds a world of 20000 ranks")
	}
	const n = 20000
	per := heapPerVirtualRank(t, n)
	t.Logf("%d virtual ranks: %.0f bytes of live heap per rank", n, per)
	if per > 3800 {
		t.Errorf("%d virtual ranks: %.0f bytes of live heap per rank, want at most 3800", n, per)
	}
}

// TestVirtualRankStackGrowsAtStart: a virtual rank's goroutine has the
// 4 KiB stack its blocking calls need before the user's function runs
// (growStack), so the stack does not grow, copying the whole chain of
// frames, in the rank's first blocking call; and no larger, since every
// rank pays it.
func TestVirtualRankStackGrowsAtStart(t *testing.T) {
	if raceSlowdown > 1 {
		t.Skip("the race detector's build has a larger stack guard")
	}
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	before := stackInUse()
	v, err := NewVirtual(m, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	var during uint64
	go func() {
		started.Wait() // every rank is in the user's function, none in MPI
		during = stackInUse()
		release.Done()
	}()
	err = v.Run(func(c *Comm) error {
		started.Done()
		release.Wait()
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	per := float64(int64(during)-int64(before)) / n
	t.Logf("%d virtual ranks: %.0f bytes of stack per rank before their first call", n, per)
	// Other tests' goroutines come and go meanwhile: the bounds tell 4
	// KiB from 2 and 8.
	if per < 3000 || per > 6000 {
		t.Errorf("%d virtual ranks: %.0f bytes of stack per rank before their first call, want 4 KiB", n, per)
	}
}

// stackInUse is the memory of the goroutines' stacks; the collection
// first frees the stacks that goroutines which have ended left in the
// runtime's caches.
func stackInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.StackInuse
}
