package mpi

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"unsafe"

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
// first 64 ids and the rendezvous maps; and with the rank, the inbox and
// the clock's history as they were before 2026-12-07 (2268 bytes a rank
// then, 1868-1980 after; 1644 once the inbox's wake-up was no longer a
// channel and the communicator and the rank smaller, which
// TestInboxIsOneObject, TestCommSize and TestRankSize guard one by one).
// Measured in a test process's first world of virtual ranks: a later one
// reuses the goroutine records the first left.
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
	if per > 1800 {
		t.Errorf("%d virtual ranks: %.0f bytes of live heap per rank, want at most 1800", n, per)
	}
}

// TestCommSize: a communicator is one object of Go's 48-byte size class;
// every virtual rank holds its COMM_WORLD. Its topology and name, when it
// has them, are another (commExtra).
func TestCommSize(t *testing.T) {
	if n := unsafe.Sizeof(Comm{}); n > 48 {
		t.Errorf("a Comm is %d bytes, want at most 48", n)
	}
}

// TestVirtualClockSize: a rank's adapter to its clock (virtual.go) is one
// object of Go's 32-byte size class; every virtual rank holds one.
func TestVirtualClockSize(t *testing.T) {
	if n := unsafe.Sizeof(virtualClock{}); n > 32 {
		t.Errorf("a virtualClock is %d bytes, want at most 32", n)
	}
}

// TestRankSize: the engine's state of a rank is one object of Go's 416-byte
// size class (world.go, rank), what every virtual rank pays whatever its
// program does.
func TestRankSize(t *testing.T) {
	if n := unsafe.Sizeof(rank{}); n > 416 {
		t.Errorf("a rank is %d bytes, want at most 416: move what few ranks use to rankRare", n)
	}
}

// TestVirtualRankStackAtGate: a virtual rank that sleeps at the gate, in
// a Barrier and in an Allreduce, keeps the runtime's smallest goroutine
// stack, 2 KiB, under a user's function with a frame of its own
// (gateCaller's): the frames from the rank's goroutine down to its sleep,
// and the runtime's below it (a channel receive, which may allocate its
// waiter record), fit above the stack's guard (coll_bulk.go, meet;
// docs/model.md, "What a virtual rank's bytes are"). It fails when any of
// those frames grows by a few dozen bytes: the stacks then double. The
// last rank to arrive computes the collective on its own stack, which
// grows; the bound allows a few.
func TestVirtualRankStackAtGate(t *testing.T) {
	if raceSlowdown > 1 {
		t.Skip("the race detector's build has a larger stack guard")
	}
	const n = 10000
	before := stackInUse()
	v := tianhe1aVirtual(t, n, 0)
	var during []uint64
	testHookBulkComputed = func(uint64) { during = append(during, stackInUse()) } // every other rank waits at the gate
	t.Cleanup(func() { testHookBulkComputed = nil })
	if err := v.Run(gateCaller); err != nil {
		t.Fatal(err)
	}
	if len(during) != 2 {
		t.Fatalf("%d collectives computed at the gate, want 2 (a Barrier, an Allreduce)", len(during))
	}
	for i, call := range []string{"Barrier", "Allreduce"} {
		per := float64(int64(during[i])-int64(before)) / n
		t.Logf("%d virtual ranks waiting in %s at the gate: %.0f bytes of stack per rank", n, call, per)
		// 2 KiB but for the few ranks that computed or ran other tests
		// meanwhile; a doubled stack is 4 KiB.
		if per > 2600 {
			t.Errorf("%d virtual ranks waiting in %s at the gate: %.0f bytes of stack per rank, want 2 KiB", n, call, per)
		}
	}
}

// gateCaller is a user's function whose own frame holds 160 bytes of
// locals (samples/barrier's holds 200) above a Barrier and an Allreduce.
//
//go:noinline
func gateCaller(c *Comm) error {
	var scratch [160]byte
	keepFrame(&scratch)
	if err := c.Barrier(); err != nil {
		return err
	}
	count := []int64{0}
	if err := Allreduce(c, []int64{1}, count, Sum); err != nil {
		return err
	}
	if count[0] != int64(c.Size()) {
		return fmt.Errorf("Allreduce counted %d ranks of %d", count[0], c.Size())
	}
	return nil
}

//go:noinline
func keepFrame(p *[160]byte) { p[0] = 1 }

// stackInUse is the memory of the goroutines' stacks; the collection
// first frees the stacks that goroutines which have ended left in the
// runtime's caches.
func stackInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.StackInuse
}
