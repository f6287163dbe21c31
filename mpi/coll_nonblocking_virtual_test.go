package mpi

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/gompi/gompi/vtime"
)

// nbcCaseNames lists the cases of nbcCases (the same on every rank).
func nbcCaseNames() []string {
	var names []string
	_ = Run(1, func(c *Comm) error {
		for _, x := range nbcCases(c, 1, 1, 0) {
			names = append(names, x.name)
		}
		return nil
	})
	return names
}

// TestNonblockingVirtualEqualsBlocking: with nothing overlapping, Ixxx
// followed by Wait predicts exactly the time of the blocking xxx (the
// schedule waits for each step as the blocking form does), for every
// nonblocking collective, on eager and rendezvous sizes.
func TestNonblockingVirtualEqualsBlocking(t *testing.T) {
	names := nbcCaseNames()
	for _, n := range []int{2, 5, 8, 13} {
		for _, k := range []int{3, DefaultEagerLimit/8 + 3} {
			if k > 3 && n > 5 {
				continue // rendezvous on the small sizes only: bounded time
			}
			for i, name := range names {
				blocking := virtualTime(t, n, func(c *Comm) error {
					return nbcCases(c, n, k, n/2)[i].blocking(c)
				})
				nonblocking := virtualTime(t, n, func(c *Comm) error {
					q, err := nbcCases(c, n, k, n/2)[i].start(c)
					if err != nil {
						return err
					}
					_, err = q.Wait()
					return err
				})
				if blocking != nonblocking {
					t.Errorf("n=%d k=%d %s: nonblocking predicts %.9g s, blocking %.9g s", n, k, name, nonblocking, blocking)
				}
			}
		}
	}
}

// hostJitter returns fn preceded, on each rank, by a host-only delay drawn
// from seed: it changes the order in which the host runs the ranks and
// delivers their messages, and nothing the target would see (cpu-scale 0).
func hostJitter(seed int, fn func(c *Comm) error) func(c *Comm) error {
	return func(c *Comm) error {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(c.Rank())))
		time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
		for i := rng.IntN(50); i > 0; i-- {
			runtime.Gosched()
		}
		return fn(c)
	}
}

// TestNonblockingVirtualRepeatable: every nonblocking collective at once,
// with point-to-point traffic among them, completed in shuffled orders by
// each Wait and Test call, predicts the same time on every run at
// cpu-scale 0, whatever the host's scheduling; and the results are right.
func TestNonblockingVirtualRepeatable(t *testing.T) {
	for mode := 0; mode < nModes; mode++ {
		for _, n := range []int{4, 7} {
			var first float64
			for run := 0; run < 3; run++ {
				got := virtualTime(t, n, hostJitter(run, func(c *Comm) error {
					return runNonblockingCases(c, n+mode, 3, mode)
				}))
				if run == 0 {
					first = got
				} else if got != first {
					t.Errorf("mode %d n=%d run %d: predicted %.9g s, first run %.9g s", mode, n, run, got, first)
				}
			}
		}
	}
}

// TestNonblockingVirtualWaitany: in virtual time Waitany over a receive
// and an Ibarrier returns the one the target completes first, whatever
// the host completes first. Rank 1's message to rank 0 is sent at once or
// after a second of computation; the Ibarrier of ranks 0 and 2 is late by
// a second of rank 2's computation or not.
func TestNonblockingVirtualWaitany(t *testing.T) {
	for _, lateMsg := range []bool{false, true} {
		for run := 0; run < 3; run++ {
			virtualTime(t, 3, hostJitter(run, func(c *Comm) error {
				color := c.Rank() % 2 // ranks 0 and 2 together
				sub, err := c.Split(color, 0)
				if err != nil {
					return err
				}
				switch c.Rank() {
				case 1:
					if lateMsg {
						c.Elapse(time.Second)
					}
					return Send(c, []int{1}, 0, 3)
				case 2:
					if !lateMsg {
						c.Elapse(time.Second)
					}
					q, err := sub.Ibarrier() // a nonblocking collective matches only its own kind
					if err != nil {
						return err
					}
					_, err = q.Wait()
					return err
				}
				bq, err := sub.Ibarrier()
				if err != nil {
					return err
				}
				rq, err := Irecv(c, make([]int, 1), 1, 3)
				if err != nil {
					return err
				}
				reqs := []*Request{rq, bq}
				i, _, err := Waitany(reqs)
				if err != nil {
					return err
				}
				if want := map[bool]int{true: 1, false: 0}[lateMsg]; i != want {
					return fmt.Errorf("late message %v: Waitany returned %d, want %d", lateMsg, i, want)
				}
				reqs[i] = nil
				_, err = Waitall(reqs)
				return err
			}))
		}
	}
}

// TestNonblockingVirtualMeasured: with computation measured (cpu-scale 1,
// the rank's goroutine locked to its thread during each burst), schedules
// created and resumed between bursts run; they once aborted the process
// (a coroutine created inside a burst, resumed outside it).
func TestNonblockingVirtualMeasured(t *testing.T) {
	m, err := vtime.Preset("xsim-ethernet")
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVirtual(m, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Run(func(c *Comm) error { return runNonblockingCases(c, 5, 3, byWaitsome) }); err != nil {
		t.Fatal(err)
	}
}
