package mpi

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"
)

// spinHost burns host time that cpu-scale 0 does not charge: it makes a
// rank late on the host without making it late in virtual time.
func spinHost(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// TestVirtualAnySourceTakesEarliestArrival: the receive from AnySource
// matches the message that reaches the receiver first on the target, not
// the first the host delivers. Rank 1 sends at once after 10 ms of virtual
// time; rank 2 sends after 1 ms of virtual time but 50 ms late on the
// host. The target's receiver meets rank 2's message first.
func TestVirtualAnySourceTakesEarliestArrival(t *testing.T) {
	for _, size := range []int{8, 1 << 16} { // eager, rendezvous
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			v := tianhe1aVirtual(t, 3, 0)
			var got []int
			err := v.Run(func(c *Comm) error {
				buf := make([]byte, size)
				switch c.Rank() {
				case 1:
					c.Elapse(10 * time.Millisecond)
					return Send(c, buf, 0, 3)
				case 2:
					spinHost(50 * time.Millisecond)
					c.Elapse(time.Millisecond)
					return Send(c, buf, 0, 3)
				}
				// The first by a blocking receive, the second by a
				// Test loop: both are answered in virtual time.
				st, err := Recv(c, buf, AnySource, 3)
				if err != nil {
					return err
				}
				got = append(got, st.Source)
				q, err := Irecv(c, buf, AnySource, 3)
				if err != nil {
					return err
				}
				for ok := false; !ok; {
					if ok, st, err = q.Test(); err != nil {
						return err
					}
				}
				got = append(got, st.Source)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, []int{2, 1}) {
				t.Errorf("sources in order %v, want [2 1] (virtual arrival order)", got)
			}
			rep := v.Report()
			if rep.Temporal < 3 || rep.TemporalExact != rep.Temporal {
				t.Errorf("%d sensitive calls, %d answered in virtual time; want at least 3 (two receives, a Test), all", rep.Temporal, rep.TemporalExact)
			}
			if rep.Predicted < 0.010 || rep.Predicted > 0.011 {
				t.Errorf("predicted %g s, want just over the 10 ms of rank 1", rep.Predicted)
			}
		})
	}
}

// TestVirtualAnySourceProbe: a blocking Probe from AnySource finds the
// message the target meets first, and the receive that follows gets it.
func TestVirtualAnySourceProbe(t *testing.T) {
	v := tianhe1aVirtual(t, 3, 0)
	err := v.Run(func(c *Comm) error {
		switch c.Rank() {
		case 1:
			c.Elapse(5 * time.Millisecond)
			return Send(c, []int64{1}, 0, 7)
		case 2:
			spinHost(30 * time.Millisecond)
			c.Elapse(2 * time.Millisecond)
			return Send(c, []int64{2}, 0, 8)
		}
		st, err := c.Probe(AnySource, AnyTag)
		if err != nil {
			return err
		}
		if st.Source != 2 || st.Tag != 8 {
			t.Errorf("Probe found source %d tag %d, want rank 2's tag 8", st.Source, st.Tag)
		}
		if now := c.Wtime(); now < 0.002 {
			t.Errorf("Probe returned at %g s, before the message arrived (2 ms)", now)
		}
		in := []int64{0}
		for range 2 {
			if _, err := Recv(c, in, AnySource, AnyTag); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVirtualWithheldFrameGoesToLaterReceive: a frame that matches a
// deferred AnySource receive and a receive posted after it waits for the
// deferred one's decision; when that takes another frame, the later
// receive gets it.
func TestVirtualWithheldFrameGoesToLaterReceive(t *testing.T) {
	v := tianhe1aVirtual(t, 3, 0)
	err := v.Run(func(c *Comm) error {
		switch c.Rank() {
		case 1:
			c.Elapse(3 * time.Millisecond) // arrives second on the target, first on the host
			return Send(c, []int64{1}, 0, 5)
		case 2:
			spinHost(30 * time.Millisecond)
			c.Elapse(time.Millisecond)
			return Send(c, []int64{2}, 0, 5)
		}
		a, b := []int64{0}, []int64{0}
		qa, err := Irecv(c, a, AnySource, 5)
		if err != nil {
			return err
		}
		qb, err := Irecv(c, b, 1, 5)
		if err != nil {
			return err
		}
		if _, err := Waitall([]*Request{qa, qb}); err != nil {
			return err
		}
		if a[0] != 2 || b[0] != 1 {
			t.Errorf("AnySource receive got %d, the receive from 1 got %d; want 2 and 1", a[0], b[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// farmTask is task k's duration in virtual time: spread so that no two
// results of the farm below are due within a millisecond of each other.
func farmTask(k int) time.Duration {
	return time.Duration((k*5)%17+1)*10*time.Millisecond + time.Duration(k)*700*time.Microsecond
}

const (
	farmTasks  = 24
	tagTask    = 1
	tagStop    = 2
	tagResult  = 3
	farmTimeUp = 30 * time.Second
)

// taskFarm is a master (rank 0) handing farmTasks tasks to the other ranks,
// the next to whichever returns a result first (AnySource), and recording
// the order in which results came; with hostJitter, workers are late on
// the host in a pattern unrelated to virtual time.
func taskFarm(order *[]int, hostJitter bool) func(c *Comm) error {
	return func(c *Comm) error {
		if c.Rank() != 0 {
			task := []int64{0}
			for {
				st, err := Recv(c, task, 0, AnyTag)
				if err != nil || st.Tag == tagStop {
					return err
				}
				if hostJitter {
					spinHost(time.Duration((c.Rank()*5+int(task[0]))%4) * time.Millisecond)
				}
				c.Elapse(farmTask(int(task[0])))
				if err := Send(c, task, 0, tagResult); err != nil {
					return err
				}
			}
		}
		next := 0
		for w := 1; w < c.Size() && next < farmTasks; w++ {
			if err := Send(c, []int64{int64(next)}, w, tagTask); err != nil {
				return err
			}
			next++
		}
		res := []int64{0}
		for done := 0; done < farmTasks; done++ {
			st, err := Recv(c, res, AnySource, tagResult)
			if err != nil {
				return err
			}
			*order = append(*order, int(res[0]))
			if next < farmTasks {
				if err := Send(c, []int64{int64(next)}, st.Source, tagTask); err != nil {
					return err
				}
				next++
			}
		}
		for w := 1; w < c.Size(); w++ {
			if err := Send(c, []int64{0}, w, tagStop); err != nil {
				return err
			}
		}
		return nil
	}
}

// farmReference is the farm's result order by a sequential event
// simulation that ignores communication (it lasts microseconds, the tasks
// milliseconds): each worker finishes its task at its start plus the
// task's duration, and the master hands the next task at once.
func farmReference(t *testing.T, workers int) []int {
	type run struct {
		end  time.Duration
		task int
	}
	var busy []run
	next := 0
	for ; next < workers && next < farmTasks; next++ {
		busy = append(busy, run{farmTask(next), next})
	}
	var order []int
	var last time.Duration = -time.Hour
	for len(busy) > 0 {
		sort.Slice(busy, func(i, j int) bool { return busy[i].end < busy[j].end })
		r := busy[0]
		busy = busy[1:]
		if r.end-last < time.Millisecond {
			t.Fatalf("reference results %v apart: the farm's tasks are too close to order", r.end-last)
		}
		last = r.end
		order = append(order, r.task)
		if next < farmTasks {
			busy = append(busy, run{r.end + farmTask(next), next})
			next++
		}
	}
	return order
}

// TestVirtualTaskFarm: a task farm's results come in the order of the
// target (the reference simulation), and its prediction and that order are
// bit-identical from run to run, with workers late on the host or not.
func TestVirtualTaskFarm(t *testing.T) {
	const ranks = 5
	want := farmReference(t, ranks-1)
	var first float64
	for run := range 10 {
		v := tianhe1aVirtual(t, ranks, 0)
		var order []int
		done := make(chan error, 1)
		go func() { done <- v.Run(taskFarm(&order, run%2 == 1)) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(farmTimeUp):
			t.Fatal("the task farm did not finish")
		}
		if !slices.Equal(order, want) {
			t.Fatalf("run %d: results in order %v, want %v", run, order, want)
		}
		rep := v.Report()
		if run == 0 {
			first = rep.Predicted
		} else if rep.Predicted != first {
			t.Fatalf("run %d predicted %v s, run 0 %v s", run, rep.Predicted, first)
		}
		if rep.TemporalExact != farmTasks {
			t.Fatalf("%d of %d AnySource receives answered in virtual time", rep.TemporalExact, farmTasks)
		}
	}
}

// runVirtualBounded runs v's job and fails the test if it does not end in time.
func runVirtualBounded(t *testing.T, v *Virtual, fn func(c *Comm) error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- v.Run(fn) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(farmTimeUp):
		t.Fatal("the job did not finish")
	}
}

// TestVirtualIprobeLoop: a rank polling Iprobe while its peer computes
// finds the message when the target would, at the first poll at or after
// its arrival, and its clock advances by pollCost per empty poll; the
// result is the same from run to run, the peer late on the host or not.
func TestVirtualIprobeLoop(t *testing.T) {
	var first float64
	for run := range 4 {
		v := tianhe1aVirtual(t, 2, 0)
		var found float64
		polls := 0
		runVirtualBounded(t, v, func(c *Comm) error {
			if c.Rank() == 1 {
				if run%2 == 1 {
					spinHost(20 * time.Millisecond)
				}
				c.Elapse(time.Millisecond)
				return Send(c, []int64{7}, 0, 4)
			}
			for {
				ok, st, err := c.Iprobe(AnySource, 4)
				if err != nil {
					return err
				}
				if ok {
					if st.Source != 1 {
						t.Errorf("Iprobe found source %d, want 1", st.Source)
					}
					break
				}
				polls++
			}
			found = c.Wtime()
			_, err := Recv(c, []int64{0}, 1, 4)
			return err
		})
		cost := c0PollCost(t, v)
		if found < 1e-3 || found > 1e-3+20e-6+cost {
			t.Errorf("run %d: message found at %g s, want within a poll of its arrival just after 1 ms", run, found)
		}
		if want := int(1e-3 / cost); polls < want {
			t.Errorf("run %d: %d empty polls before 1 ms, want at least %d (one per %g s)", run, polls, want, cost)
		}
		if run == 0 {
			first = found
		} else if found != first {
			t.Errorf("run %d found the message at %v s, run 0 at %v s", run, found, first)
		}
	}
}

// c0PollCost is the virtual time an empty poll takes on v's machine.
func c0PollCost(t *testing.T, v *Virtual) float64 {
	t.Helper()
	return max(v.Target().Machine().Overhead.A, minPollCost)
}

// TestVirtualWtimeDeadlineLoop: a loop that polls until Wtime passes a
// deadline ends, and ends at the deadline, in virtual time.
func TestVirtualWtimeDeadlineLoop(t *testing.T) {
	v := tianhe1aVirtual(t, 2, 0)
	const deadline = 200e-6
	var end float64
	runVirtualBounded(t, v, func(c *Comm) error {
		if c.Rank() == 1 {
			return nil
		}
		for c.Wtime() < deadline {
			if _, _, err := c.Iprobe(AnySource, AnyTag); err != nil {
				return err
			}
		}
		end = c.Wtime()
		return nil
	})
	if cost := c0PollCost(t, v); end < deadline || end > deadline+cost {
		t.Errorf("the loop ended at %g s, want within a poll (%g s) after %g s", end, cost, deadline)
	}
}

// TestVirtualEveryRankPolls: ranks that all wait by Test loops, each for
// the other's message, neither deadlock nor livelock, and each message
// completes when the target would have it.
func TestVirtualEveryRankPolls(t *testing.T) {
	v := tianhe1aVirtual(t, 2, 0)
	var at [2]float64
	runVirtualBounded(t, v, func(c *Comm) error {
		peer := 1 - c.Rank()
		c.Elapse(time.Duration(1+c.Rank()) * 100 * time.Microsecond)
		in := []int64{0}
		q, err := Irecv(c, in, peer, 1)
		if err != nil {
			return err
		}
		if _, err := Isend(c, []int64{int64(c.Rank())}, peer, 1); err != nil {
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
		}
		at[c.Rank()] = c.Wtime()
		return nil
	})
	// Rank 1 sends at 200 us, rank 0 at 100 us: rank 0 gets its message
	// after 200 us, rank 1 as soon as it looks (its message has arrived).
	if at[0] < 200e-6 || at[0] > 200e-6+20e-6 {
		t.Errorf("rank 0 completed at %g s, want just after rank 1's send at 200 us", at[0])
	}
	if at[1] < 200e-6 || at[1] > 200e-6+20e-6 {
		t.Errorf("rank 1 completed at %g s, want just after its own 200 us", at[1])
	}
}

// TestVirtualCancelDeferredReceive: cancelling a deferred AnySource
// receive hands the frames it held back to the receives posted after it.
func TestVirtualCancelDeferredReceive(t *testing.T) {
	v := tianhe1aVirtual(t, 2, 0)
	runVirtualBounded(t, v, func(c *Comm) error {
		if c.Rank() == 1 {
			return Send(c, []int64{42}, 0, 6)
		}
		anyBuf, mine := []int64{0}, []int64{0}
		qa, err := Irecv(c, anyBuf, AnySource, 6)
		if err != nil {
			return err
		}
		qb, err := Irecv(c, mine, 1, 6)
		if err != nil {
			return err
		}
		// The message is on the host, held back by qa, before qa goes.
		if _, err := c.Probe(1, 6); err != nil {
			return err
		}
		if err := qa.Cancel(); err != nil {
			return err
		}
		if st, err := qa.Wait(); err != nil || !st.Cancelled {
			t.Errorf("cancelled receive: status %+v, %v", st, err)
		}
		if _, err := qb.Wait(); err != nil {
			return err
		}
		if mine[0] != 42 {
			t.Errorf("the receive from rank 1 got %d, want 42", mine[0])
		}
		return nil
	})
}

// TestVirtualSettledHistoryStaysShort: a long run whose waits settle the
// job (an AnySource receive each round) keeps only a few waits for
// Algorithm 3 (forgetSettled) instead of filling the 4096 it may keep;
// and the rank that makes no temporally sensitive call forgets without
// its rankRare (a million ranks would each make one).
func TestVirtualSettledHistoryStaysShort(t *testing.T) {
	const rounds = 5000
	v := tianhe1aVirtual(t, 2, 0)
	kept, rare := 0, true
	runVirtualBounded(t, v, func(c *Comm) error {
		buf := []int64{0}
		for range rounds {
			c.Elapse(time.Microsecond) // waits apart: they do not merge
			if c.Rank() == 1 {
				if _, err := Recv(c, buf, 0, 1); err != nil {
					return err
				}
				if err := Send(c, buf, 0, 2); err != nil {
					return err
				}
				continue
			}
			if err := Send(c, buf, 1, 1); err != nil {
				return err
			}
			if _, err := Recv(c, buf, AnySource, 2); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			kept = c.r.clock.(*virtualClock).m.HistoryLen()
		} else {
			rare = c.r.rare != nil
		}
		return nil
	})
	if kept > 8 {
		t.Errorf("rank 0 keeps %d waits after %d settled rounds, want a few", kept, rounds)
	}
	if rare {
		t.Error("rank 1, which makes no temporally sensitive call, has its rankRare")
	}
	if rep := v.Report(); rep.HistoryMisses != 0 || rep.TemporalExact != rounds {
		t.Errorf("%d history misses, %d of %d receives answered in virtual time", rep.HistoryMisses, rep.TemporalExact, rounds)
	}
}
