package mpi

import (
	"errors"
	"fmt"
	"testing"
)

// nbcSizes are the communicator sizes the nonblocking collectives are
// tried on: every size up to 17, and 64.
var nbcSizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 64}

// completion modes for a set of outstanding requests.
const (
	byWait = iota // Wait on each, in a rank-specific shuffled order
	byWaitall
	byWaitany
	byTestsome
	byTestany
	byTestall
	byTest
	byWaitsome
	nModes
)

// completeAll completes every request of reqs as mode says and returns
// the first error.
func completeAll(reqs []*Request, mode, seed, me int) error {
	order := shuffled(len(reqs), seed, me)
	sh := make([]*Request, len(reqs))
	for i, j := range order {
		sh[i] = reqs[j]
	}
	left := len(sh)
	for _, q := range sh {
		if q == nil {
			left--
		}
	}
	switch mode {
	case byWait:
		for _, q := range sh {
			if _, err := q.Wait(); err != nil {
				return err
			}
		}
	case byWaitall:
		_, err := Waitall(sh)
		return err
	case byWaitany, byTestany:
		for left > 0 {
			var i int
			var err error
			if mode == byWaitany {
				i, _, err = Waitany(sh)
			} else {
				ok := false
				i, ok, _, err = Testany(sh)
				if !ok {
					continue
				}
			}
			if err != nil {
				return err
			}
			if i == Undefined || sh[i] == nil {
				return fmt.Errorf("Waitany/Testany returned %d", i)
			}
			sh[i] = nil
			left--
		}
	case byTestsome, byWaitsome:
		for left > 0 {
			var idx []int
			var err error
			if mode == byTestsome {
				idx, _, err = Testsome(sh)
			} else {
				idx, _, err = Waitsome(sh)
			}
			if err != nil {
				return err
			}
			for _, i := range idx {
				sh[i] = nil
				left--
			}
		}
	case byTestall:
		for {
			ok, _, err := Testall(sh)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
		}
	case byTest:
		for left > 0 {
			for i, q := range sh {
				if q == nil {
					continue
				}
				ok, _, err := q.Test()
				if err != nil {
					return err
				}
				if ok {
					sh[i] = nil
					left--
				}
			}
		}
	}
	return nil
}

// runNonblockingCases runs every nonblocking collective of nbcCases at
// once on c, with a ring of point-to-point messages started among them,
// completes them all as mode says and compares with the blocking forms.
func runNonblockingCases(c *Comm, seed, k, mode int) error {
	n, me := c.Size(), c.Rank()
	cs := nbcCases(c, seed, k, (seed+n/2)%n)
	for _, x := range cs {
		if err := x.blocking(c); err != nil {
			return fmt.Errorf("blocking %s: %w", x.name, err)
		}
	}
	var reqs []*Request
	in, out := make([]int64, k+1), make([]int64, k+1)
	for i := range out {
		out[i] = int64(me*1000 + i)
	}
	for i, x := range cs {
		q, err := x.start(c)
		if err != nil {
			return fmt.Errorf("%s: %w", x.name, err)
		}
		reqs = append(reqs, q)
		if i == len(cs)/2 { // point-to-point traffic between the collectives
			rq, err := Irecv(c, in, (me+n-1)%n, 5)
			if err != nil {
				return err
			}
			sq, err := Isend(c, out, (me+1)%n, 5)
			if err != nil {
				return err
			}
			reqs = append(reqs, rq, sq)
		}
	}
	if err := completeAll(reqs, mode, seed, me); err != nil {
		return err
	}
	for i := range in {
		if want := int64((me+n-1)%n*1000 + i); in[i] != want {
			return fmt.Errorf("rank %d: ring message element %d is %d, want %d", me, i, in[i], want)
		}
	}
	return checkCases(cs, me)
}

// TestNonblockingMatchesBlocking: every nonblocking collective, all
// outstanding at once with point-to-point traffic among them and
// completed in shuffled orders by each Wait and Test call, gives what its
// blocking form gives, on every size up to 17 and 64.
func TestNonblockingMatchesBlocking(t *testing.T) {
	for _, n := range nbcSizes {
		mode := n % nModes
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			runT(t, n, func(c *Comm) error { return runNonblockingCases(c, n, 3, mode) })
		})
	}
}

// TestNonblockingModes: each completion mode on a few sizes, with blocks
// beyond the eager limit (rendezvous steps) on some.
func TestNonblockingModes(t *testing.T) {
	for mode := 0; mode < nModes; mode++ {
		for _, n := range []int{3, 8} {
			k := 2
			if n == 3 {
				k = DefaultEagerLimit/8 + 5
			}
			t.Run(fmt.Sprintf("mode=%d/n=%d", mode, n), func(t *testing.T) {
				runT(t, n, func(c *Comm) error { return runNonblockingCases(c, 10*mode+n, k, mode) })
			})
		}
	}
}

// TestNonblockingProgressInRecv: a rank blocked in Recv still forwards the
// Ibcast its child waits for (MPICH's progress rule). The binomial tree
// from 0 over four ranks is 0 -> 2 -> 3 and 0 -> 1: rank 2 blocks in Recv
// for a message rank 3 sends only once its Ibcast is complete, which needs
// rank 2's forward. Without progress in Recv the job deadlocks.
func TestNonblockingProgressInRecv(t *testing.T) {
	for _, virtual := range []bool{false, true} {
		fn := func(c *Comm) error {
			buf := make([]float64, 4)
			if c.Rank() == 0 {
				for i := range buf {
					buf[i] = float64(i + 1)
				}
			}
			q, err := Ibcast(c, buf, 0)
			if err != nil {
				return err
			}
			switch c.Rank() {
			case 2: // forwards to 3 while blocked here
				var v [1]int
				if _, err := Recv(c, v[:], 3, 9); err != nil {
					return err
				}
			case 3:
				if _, err := q.Wait(); err != nil {
					return err
				}
				if err := Send(c, []int{7}, 2, 9); err != nil {
					return err
				}
			}
			if _, err := q.Wait(); err != nil {
				return err
			}
			if buf[3] != 4 {
				return fmt.Errorf("rank %d: Ibcast gave %v", c.Rank(), buf)
			}
			return nil
		}
		if virtual {
			virtualTime(t, 4, fn)
		} else {
			runT(t, 4, fn)
		}
	}
}

// TestNonblockingArgErrors: bad arguments are reported by the call that
// starts the collective, with no request, as the blocking form reports
// them; and a collective request cannot be cancelled.
func TestNonblockingArgErrors(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		var e *Error
		if _, err := Ibcast(c, []int{1}, 5); !errors.As(err, &e) || e.Class != ClassRoot {
			return fmt.Errorf("Ibcast root 5: %v", err)
		}
		if _, err := Iallreduce(c, []int{1, 2}, []int{0}, Sum); !errors.As(err, &e) || e.Class != ClassCount {
			return fmt.Errorf("Iallreduce short recv: %v", err)
		}
		if _, err := Ireduce(c, []float64{1}, []float64{0}, BXor, 0); err == nil {
			return fmt.Errorf("Ireduce BXor on float64: no error")
		}
		q, err := c.Ibarrier()
		if err != nil {
			return err
		}
		if err := q.Cancel(); !errors.As(err, &e) || e.Class != ClassRequest {
			return fmt.Errorf("Cancel of an Ibarrier: %v", err)
		}
		_, err = q.Wait()
		return err
	})
}

// TestNonblockingProgressInProbe: as TestNonblockingProgressInRecv, with
// rank 2 blocked in Probe rather than Recv, or polling with Iprobe.
func TestNonblockingProgressInProbe(t *testing.T) {
	for _, mode := range []int{0, 1, 2, 3} {
		virtual, poll := mode%2 == 1, mode >= 2
		fn := func(c *Comm) error {
			buf := make([]int32, 3)
			if c.Rank() == 0 {
				buf[2] = 9
			}
			q, err := Ibcast(c, buf, 0)
			if err != nil {
				return err
			}
			switch c.Rank() {
			case 2:
				for found := false; !found; {
					if poll {
						found, _, err = c.Iprobe(3, 9)
					} else {
						_, err = c.Probe(3, 9)
						found = true
					}
					if err != nil {
						return err
					}
				}
				if _, err := Recv(c, make([]int, 1), 3, 9); err != nil {
					return err
				}
			case 3:
				if _, err := q.Wait(); err != nil {
					return err
				}
				if err := Send(c, []int{7}, 2, 9); err != nil {
					return err
				}
			}
			if _, err := q.Wait(); err != nil {
				return err
			}
			if buf[2] != 9 {
				return fmt.Errorf("rank %d: Ibcast gave %v", c.Rank(), buf)
			}
			return nil
		}
		if virtual {
			virtualTime(t, 4, fn)
		} else {
			runT(t, 4, fn)
		}
	}
}

// TestNonblockingBesideBlocking: blocking collectives of the same kinds
// run while nonblocking ones are outstanding on the same communicator;
// none takes another's messages (each nonblocking collective has tags of
// its own).
func TestNonblockingBesideBlocking(t *testing.T) {
	for _, n := range []int{2, 5, 8, 17} {
		runT(t, n, func(c *Comm) error {
			n, me := c.Size(), c.Rank()
			val := func(tag, i int) int64 { return int64(1000*tag + i) }
			fill := func(root, tag int) []int64 {
				b := make([]int64, 40)
				if me == root {
					for i := range b {
						b[i] = val(tag, i)
					}
				}
				return b
			}
			a, b, d := fill(0, 1), fill(0, 2), fill(n-1, 3)
			qa, err := Ibcast(c, a, 0)
			if err != nil {
				return err
			}
			if err := Bcast(c, b, 0); err != nil {
				return err
			}
			qd, err := Ibcast(c, d, n-1)
			if err != nil {
				return err
			}
			sum := []int64{int64(me)}
			if err := AllreduceInPlace(c, sum, Sum); err != nil {
				return err
			}
			reqs := []*Request{qa, qd}
			if me%2 == 1 {
				reqs = []*Request{qd, qa}
			}
			if _, err := Waitall(reqs); err != nil {
				return err
			}
			for i := range a {
				if a[i] != val(1, i) || b[i] != val(2, i) || d[i] != val(3, i) {
					return fmt.Errorf("rank %d element %d: %d %d %d", me, i, a[i], b[i], d[i])
				}
			}
			if sum[0] != int64(n*(n-1)/2) {
				return fmt.Errorf("Allreduce gave %d", sum[0])
			}
			return nil
		})
	}
}
