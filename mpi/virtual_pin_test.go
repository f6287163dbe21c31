package mpi

import (
	"testing"

	"github.com/gompi/gompi/vtime"
)

// pinMeter is a scriptedMeter that can be pinned (vtime.Pinner) and
// counts how it was used: Pin calls, calls of the unpin Pin returned, and
// Abandon calls.
type pinMeter struct {
	scriptedMeter
	pins, unpins, abandons int
}

func (m *pinMeter) Pin() func() {
	m.pins++
	return func() { m.unpins++ }
}

func (m *pinMeter) Abandon() {
	m.abandons++
	m.scriptedMeter.Abandon()
}

// TestVirtualOnlyRankPinsItsMeter: a process's only virtual rank pins its
// meter (vtime.Pinner), through a record's burst tap too; the waits of its
// inbox then call the meter's unpin (transport.Inbox.SetOnYield), and the
// meter is let go of as the rank exits. Where the process hosts two
// ranks, which would wait for the compute slot a pinned meter keeps,
// neither is pinned, and each meter is let go of as its rank exits.
func TestVirtualOnlyRankPinsItsMeter(t *testing.T) {
	for _, tc := range []struct {
		ranks  int
		record bool
	}{{1, false}, {1, true}, {2, false}} {
		v, err := NewVirtual(contendedMachine(), tc.ranks, 1)
		if err != nil {
			t.Fatal(err)
		}
		meters := make([]*pinMeter, tc.ranks)
		v.newMeter = func(id int) vtime.Meter {
			meters[id] = &pinMeter{scriptedMeter: scriptedMeter{burst: 1e-6, bursts: new(int)}}
			return meters[id]
		}
		if tc.record {
			if err := v.Record(t.TempDir()); err != nil {
				t.Fatal(err)
			}
		}
		err = v.Run(func(c *Comm) error {
			c.r.inbox.Yielding() // as a wait does before it yields
			return c.Barrier()
		})
		if err != nil {
			t.Fatal(err)
		}
		for id, m := range meters {
			pinned := tc.ranks == 1
			if int64(m.pins) != b2i(pinned) || (m.unpins > 0) != pinned || m.abandons != 1 {
				t.Errorf("%d ranks (record %v): rank %d's meter pinned %d times, unpinned %d, abandoned %d; want pinned %v, unpinned by its waits, abandoned once",
					tc.ranks, tc.record, id, m.pins, m.unpins, m.abandons, pinned)
			}
		}
	}
}

// TestVirtualPinnedRankUnpinsBeforeCoroutines: a pinned meter keeps its
// thread lock inside MPI calls too, and the runtime aborts a switch to a
// coroutine made in another lock state than the coroutine's creation; so
// a nonblocking collective's start, before it makes the schedule's
// coroutine, and every resume of the schedule let go of the thread
// (between processes, where the lock is real:
// TestNonblockingCollectivesAcrossProcesses in cmd/gompirun).
func TestVirtualPinnedRankUnpinsBeforeCoroutines(t *testing.T) {
	v, err := NewVirtual(contendedMachine(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var m *pinMeter
	v.newMeter = func(int) vtime.Meter {
		m = &pinMeter{scriptedMeter: scriptedMeter{burst: 1e-6, bursts: new(int)}}
		return m
	}
	err = v.Run(func(c *Comm) error {
		before := m.unpins
		q, err := c.Ibarrier()
		if err != nil {
			return err
		}
		if got := m.unpins - before; got < 2 {
			t.Errorf("Ibarrier let go of the thread %d times; want once before making its coroutine and once before resuming it", got)
		}
		_, err = q.Wait()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.pins != 1 {
		t.Fatalf("meter pinned %d times, want 1", m.pins)
	}
}
