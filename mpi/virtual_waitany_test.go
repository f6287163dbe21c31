package mpi

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// postedFarm is taskFarm with the master posting a receive per busy worker
// and completing them with Waitany, Waitsome or a Testany loop (mode).
func postedFarm(order *[]int, hostJitter bool, mode string) func(c *Comm) error {
	farm := taskFarm(order, hostJitter)
	return func(c *Comm) error {
		if c.Rank() != 0 {
			return farm(c) // the workers are the same
		}
		workers := c.Size() - 1
		reqs := make([]*Request, workers)
		res := make([][]int64, workers)
		next := 0
		hand := func(w int) error {
			if err := Send(c, []int64{int64(next)}, w+1, tagTask); err != nil {
				return err
			}
			next++
			res[w] = []int64{-1}
			q, err := Irecv(c, res[w], w+1, tagResult)
			reqs[w] = q
			return err
		}
		for w := 0; w < workers && next < farmTasks; w++ {
			if err := hand(w); err != nil {
				return err
			}
		}
		for len(*order) < farmTasks {
			var idx []int
			switch mode {
			case "waitany":
				i, _, err := Waitany(reqs)
				if err != nil {
					return err
				}
				idx = []int{i}
			case "waitsome":
				var err error
				if idx, _, err = Waitsome(reqs); err != nil {
					return err
				}
			case "testany":
				for {
					i, ok, _, err := Testany(reqs)
					if err != nil {
						return err
					}
					if ok {
						idx = []int{i}
						break
					}
				}
			}
			for _, w := range idx {
				reqs[w] = nil
				*order = append(*order, int(res[w][0]))
				if next < farmTasks {
					if err := hand(w); err != nil {
						return err
					}
				}
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

// TestVirtualWaitanyPipeline: a master that completes a receive per worker
// with Waitany, Waitsome or a Testany loop takes the results in the
// target's order (the sequential reference of TestVirtualTaskFarm), with
// a prediction bit-identical from run to run, workers late on the host or
// not, and every call answered in virtual time.
func TestVirtualWaitanyPipeline(t *testing.T) {
	const ranks = 5
	want := farmReference(t, ranks-1)
	for _, mode := range []string{"waitany", "waitsome", "testany"} {
		t.Run(mode, func(t *testing.T) {
			var first float64
			runs := 10
			if mode == "testany" || testing.Short() {
				runs = 4 // a poll per 0.5 us of the farm's 0.6 s
			}
			for run := range runs {
				v := tianhe1aVirtual(t, ranks, 0)
				var order []int
				runVirtualBounded(t, v, postedFarm(&order, run%2 == 1, mode))
				if !slices.Equal(order, want) {
					t.Fatalf("run %d: results in order %v, want %v", run, order, want)
				}
				rep := v.Report()
				if run == 0 {
					first = rep.Predicted
				} else if rep.Predicted != first {
					t.Fatalf("run %d predicted %v s, run 0 %v s", run, rep.Predicted, first)
				}
				if rep.Temporal < farmTasks || rep.TemporalExact != rep.Temporal {
					t.Fatalf("%d sensitive calls, %d answered in virtual time; want at least %d, all", rep.Temporal, rep.TemporalExact, farmTasks)
				}
			}
		})
	}
}

// TestVirtualWaitanySendOrReceive: Waitany over a rendezvous send and a
// receive returns the one the target completes first, the send when its
// DATA has left, whichever the host completes first; Waitsome returns the
// same one alone, and Wtime after the call is its completion time.
func TestVirtualWaitanySendOrReceive(t *testing.T) {
	const big = 1 << 20 // rendezvous on tianhe1a (eager limit 64 KiB)
	for _, tc := range []struct {
		name          string
		ackAt, dataAt time.Duration // when rank 1 posts its receive, rank 2 sends
		want          int
	}{
		{"send first", 1 * time.Millisecond, 3 * time.Millisecond, 0},
		{"receive first", 3 * time.Millisecond, 1 * time.Millisecond, 1},
	} {
		for _, some := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/waitsome=%v", tc.name, some), func(t *testing.T) {
				var first float64
				for run := range 4 {
					v := tianhe1aVirtual(t, 3, 0)
					var got []int
					var at float64
					runVirtualBounded(t, v, func(c *Comm) error {
						late := run%2 == 1 // the first on the target is late on the host
						switch c.Rank() {
						case 1:
							if late == (tc.want == 0) {
								spinHost(20 * time.Millisecond)
							}
							c.Elapse(tc.ackAt)
							_, err := Recv(c, make([]byte, big), 0, 1)
							return err
						case 2:
							if late == (tc.want == 1) {
								spinHost(20 * time.Millisecond)
							}
							c.Elapse(tc.dataAt)
							return Send(c, []int64{2}, 0, 2)
						}
						buf := make([]byte, big)
						qs, err := Isend(c, buf, 1, 1)
						if err != nil {
							return err
						}
						in := []int64{0}
						qr, err := Irecv(c, in, 2, 2)
						if err != nil {
							return err
						}
						reqs := []*Request{qs, qr}
						if some {
							if got, _, err = Waitsome(reqs); err != nil {
								return err
							}
						} else {
							i, _, err := Waitany(reqs)
							if err != nil {
								return err
							}
							got = []int{i}
						}
						at = c.Wtime()
						for _, i := range got {
							reqs[i] = nil
						}
						_, err = Waitall(reqs)
						return err
					})
					if !slices.Equal(got, []int{tc.want}) {
						t.Fatalf("run %d: completed %v, want [%d]", run, got, tc.want)
					}
					lo := min(tc.ackAt, tc.dataAt).Seconds()
					if at < lo || at > lo+500e-6 {
						t.Errorf("run %d: Wtime after the call %g s, want just after %g s", run, at, lo)
					}
					if run == 0 {
						first = at
					} else if at != first {
						t.Errorf("run %d: Wtime after the call %v s, run 0 %v s", run, at, first)
					}
					if rep := v.Report(); rep.TemporalExact != rep.Temporal {
						t.Errorf("%d sensitive calls, %d answered in virtual time", rep.Temporal, rep.TemporalExact)
					}
				}
			})
		}
	}
}

// TestVirtualWaitanyTiesGoToLowestIndex: requests complete before the call
// began all complete at its start on the target; Waitany returns the lowest
// index of them, as MPICH does, not the one whose message came first, and
// Waitsome returns them all.
func TestVirtualWaitanyTiesGoToLowestIndex(t *testing.T) {
	for _, some := range []bool{false, true} {
		v := tianhe1aVirtual(t, 3, 0)
		var got []int
		runVirtualBounded(t, v, func(c *Comm) error {
			if c.Rank() != 0 {
				c.Elapse(time.Duration(3-c.Rank()) * time.Millisecond) // rank 2 first
				return Send(c, []int64{int64(c.Rank())}, 0, 1)
			}
			a, b := []int64{0}, []int64{0}
			q1, err := Irecv(c, a, 1, 1)
			if err != nil {
				return err
			}
			q2, err := Irecv(c, b, 2, 1)
			if err != nil {
				return err
			}
			c.Elapse(5 * time.Millisecond) // both have arrived on the target
			reqs := []*Request{q1, q2}
			if some {
				got, _, err = Waitsome(reqs)
				return err
			}
			i, _, err := Waitany(reqs)
			got = []int{i}
			if err != nil {
				return err
			}
			reqs[i] = nil
			_, err = Waitall(reqs)
			return err
		})
		want := []int{0}
		if some {
			want = []int{0, 1}
		}
		if !slices.Equal(got, want) {
			t.Errorf("waitsome %v: got %v, want %v", some, got, want)
		}
	}
}

// TestVirtualTestanyChoosesAsTheTarget: Testany and Testsome answer for the
// caller's time with what the target has by then, not what the host has
// delivered: a lower-index receive whose message is due but late on the
// host is still returned by Testany (lowest index), and Testsome returns
// both.
func TestVirtualTestanyChoosesAsTheTarget(t *testing.T) {
	for _, some := range []bool{false, true} {
		for run := range 3 {
			v := tianhe1aVirtual(t, 3, 0)
			var got []int
			runVirtualBounded(t, v, func(c *Comm) error {
				if c.Rank() != 0 {
					if c.Rank() == 1 {
						spinHost(20 * time.Millisecond)
					}
					c.Elapse(time.Millisecond)
					return Send(c, []int64{int64(c.Rank())}, 0, 1)
				}
				a, b := []int64{0}, []int64{0}
				q1, err := Irecv(c, a, 1, 1)
				if err != nil {
					return err
				}
				q2, err := Irecv(c, b, 2, 1)
				if err != nil {
					return err
				}
				c.Elapse(2 * time.Millisecond)
				reqs := []*Request{q1, q2}
				for len(got) == 0 {
					if some {
						if got, _, err = Testsome(reqs); err != nil {
							return err
						}
						continue
					}
					i, ok, _, err := Testany(reqs)
					if err != nil {
						return err
					}
					if ok {
						got = []int{i}
					}
				}
				for _, i := range got {
					reqs[i] = nil
				}
				_, err = Waitall(reqs)
				return err
			})
			want := []int{0}
			if some {
				want = []int{0, 1}
			}
			if !slices.Equal(got, want) {
				t.Errorf("testsome %v, run %d: got %v, want %v", some, run, got, want)
			}
		}
	}
}

// burnThread spends d of the calling thread's CPU time.
func burnThread(t *testing.T, d time.Duration) {
	start := threadCPU(t)
	x := 1.0
	for threadCPU(t)-start < d {
		for i := 0; i < 1000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	if x == 0 {
		println()
	}
}

// TestVirtualComputingRankDoesNotHoldDecisions: with measured computation,
// a master's AnySource receive is decided once a worker still computing
// has passed the candidate's time on its clock (vtime.Rank.Bound), not
// when it finishes: the master gets the quick worker's result on the host
// before the slow worker's long computation ends, and the results still
// come in the target's order.
func TestVirtualComputingRankDoesNotHoldDecisions(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		// Measured bursts take one of GOMAXPROCS slots (vtime.ThreadCPU):
		// the slow worker's would leave the master none until it ends.
		t.Skip("needs two processors: the slow worker's computation holds the only compute slot")
	}
	v := tianhe1aVirtual(t, 3, 1) // skips without the thread CPU clock
	var slowDone, firstBeforeSlow atomic.Bool
	var got []int
	runVirtualBounded(t, v, func(c *Comm) error {
		switch c.Rank() {
		case 1:
			c.Elapse(5 * time.Millisecond)
			return Send(c, []int64{1}, 0, 1)
		case 2:
			burnThread(t, 600*time.Millisecond)
			slowDone.Store(true)
			return Send(c, []int64{2}, 0, 1)
		}
		buf := []int64{0}
		for range 2 {
			st, err := Recv(c, buf, AnySource, 1)
			if err != nil {
				return err
			}
			if len(got) == 0 {
				firstBeforeSlow.Store(!slowDone.Load())
			}
			got = append(got, st.Source)
		}
		return nil
	})
	if !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("sources in order %v, want [1 2]", got)
	}
	if !firstBeforeSlow.Load() {
		t.Error("the first result was taken only after the slow worker finished computing")
	}
	if rep := v.Report(); rep.TemporalExact != rep.Temporal {
		t.Errorf("%d sensitive calls, %d answered in virtual time", rep.Temporal, rep.TemporalExact)
	}
}

// TestRealTaskFarmModes: in real mode the farms still work, whichever way
// the master waits (host order, as MPI answers): every task's result comes
// back once.
func TestRealTaskFarmModes(t *testing.T) {
	for _, mode := range []string{"anysource", "waitany", "waitsome", "testany"} {
		var order []int
		fn := taskFarm(&order, false)
		if mode != "anysource" {
			fn = postedFarm(&order, false, mode)
		}
		done := make(chan error, 1)
		go func() { done <- Run(5, fn) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
		case <-time.After(farmTimeUp):
			t.Fatalf("%s: the farm did not finish", mode)
		}
		got := slices.Clone(order)
		slices.Sort(got)
		for i, k := range got {
			if k != i || len(got) != farmTasks {
				t.Fatalf("%s: results %v, want each of the %d tasks once", mode, order, farmTasks)
			}
		}
	}
}
