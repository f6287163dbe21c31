package mpi

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
)

// TestScheduleKeepsThread: a schedule's coroutine runs on the OS thread of
// the rank's goroutine when that goroutine is locked to it (the runtime
// hands the lock to the coroutine), both when the schedule starts and when
// a wait resumes it: thread CPU readings (vtime.ThreadCPU) taken around MPI
// calls stay on one thread. The schedule's time counts as the engine's,
// not as computation: it runs inside the engine bracket.
func TestScheduleKeepsThread(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := syscall.Gettid()
		var tids []int
		q, err := c.nonblocking(func(c *Comm) error {
			tids = append(tids, syscall.Gettid())
			b := []byte{byte(c.Rank())}
			err := c.exchange(b, (c.Rank()+1)%c.Size(), make([]byte, 1), (c.Rank()+2)%c.Size(), tagBcast)
			tids = append(tids, syscall.Gettid())
			return err
		})
		if err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
		if syscall.Gettid() != tid || len(tids) != 2 || tids[0] != tid || tids[1] != tid {
			return fmt.Errorf("rank thread %d, schedule ran on %v", tid, tids)
		}
		return nil
	})
}

// TestNonblockingHelperSchedule: an internal blocking schedule written
// with csend, crecv and waitColl (as the neighbourhood collectives are)
// becomes a nonblocking collective through Comm.nonblocking, with several
// outstanding on one communicator completing in reverse order.
func TestNonblockingHelperSchedule(t *testing.T) {
	ring := func(out []int64, in []int64) func(c *Comm) error {
		return func(c *Comm) error {
			n, me := c.Size(), c.Rank()
			return c.exchange(asBytes(out), (me+1)%n, asBytes(in), (me+n-1)%n, tagAllgather)
		}
	}
	for _, n := range []int{1, 2, 5, 17} {
		runT(t, n, func(c *Comm) error {
			n, me := c.Size(), c.Rank()
			const k = 6
			ins := make([][]int64, k)
			var reqs []*Request
			for i := 0; i < k; i++ {
				ins[i] = make([]int64, 1)
				q, err := c.nonblocking(ring([]int64{int64(100*me + i)}, ins[i]))
				if err != nil {
					return err
				}
				reqs = append(reqs, q)
			}
			for i := k - 1; i >= 0; i-- {
				if _, err := reqs[i].Wait(); err != nil {
					return err
				}
			}
			for i := range ins {
				if want := int64(100*((me+n-1)%n) + i); ins[i][0] != want {
					return fmt.Errorf("rank %d schedule %d got %d, want %d", me, i, ins[i][0], want)
				}
			}
			return nil
		})
	}
}
