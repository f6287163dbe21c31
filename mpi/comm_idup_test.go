package mpi

import (
	"errors"
	"fmt"
	"testing"
)

// checkComms checks that the communicators of a rank have distinct
// contexts and that an Allreduce over each gives the brute-force sum.
func checkComms(comms ...*Comm) error {
	seen := map[uint32]bool{}
	for i, d := range comms {
		if d == nil {
			continue
		}
		if seen[d.ctx] {
			return fmt.Errorf("communicator %d shares context %d with another", i, d.ctx)
		}
		seen[d.ctx] = true
		x := []int{d.WorldRank(d.Rank()) + 1}
		if err := AllreduceInPlace(d, x, Sum); err != nil {
			return fmt.Errorf("communicator %d: %w", i, err)
		}
		want := 0
		for r := 0; r < d.Size(); r++ {
			want += d.WorldRank(r) + 1
		}
		if x[0] != want {
			return fmt.Errorf("communicator %d: Allreduce gave %d, want %d", i, x[0], want)
		}
	}
	return nil
}

// TestIdup: the communicator Idup returns refuses use until the request
// completes, then is a congruent duplicate with a context of its own; with
// an Ibcast outstanding on the parent meanwhile.
func TestIdup(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8, 17, 64} {
		runT(t, n, func(c *Comm) error {
			nc, q, err := c.Idup()
			if err != nil {
				return err
			}
			b := []int{c.Rank()}
			bq, err := Ibcast(c, b, c.Size()-1)
			if err != nil {
				return err
			}
			var e *Error
			if err := nc.Barrier(); nc.idup && (!errors.As(err, &e) || e.Class != ClassComm) {
				return fmt.Errorf("Barrier on a pending Idup communicator: %v", err)
			}
			if c.Size() > 1 && !nc.idup {
				return fmt.Errorf("Idup complete before the others have started")
			}
			if _, err := Waitall([]*Request{bq, q}); err != nil {
				return err
			}
			if b[0] != c.Size()-1 {
				return fmt.Errorf("Ibcast gave %d", b[0])
			}
			if cmp, err := c.Compare(nc); err != nil || cmp != Congruent {
				return fmt.Errorf("Compare(c, Idup(c)) = %v, %v", cmp, err)
			}
			return checkComms(c, nc)
		})
	}
}

// TestIdupRacesOtherConstructors: Idups on overlapping communicators
// outstanding while blocking Split and Dup agree on context ids, completed
// in rank-dependent orders: every rank ends with distinct contexts, and
// every communicator works.
func TestIdupRacesOtherConstructors(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7, 16} {
		runT(t, n, func(c *Comm) error { return idupRace(c) })
	}
}

func idupRace(c *Comm) error {
	me := c.Rank()
	nc1, q1, err := c.Idup()
	if err != nil {
		return err
	}
	sub, err := c.Split(me%2, -me)
	if err != nil {
		return err
	}
	nc2, q2, err := sub.Idup()
	if err != nil {
		return err
	}
	nc3, q3, err := c.Idup()
	if err != nil {
		return err
	}
	d, err := c.Dup()
	if err != nil {
		return err
	}
	nc4, q4, err := d.Idup()
	if err != nil {
		return err
	}
	reqs := []*Request{q1, q2, q3, q4}
	if err := completeAll(reqs, me%nModes, 3, me); err != nil {
		return err
	}
	return checkComms(c, nc1, sub, nc2, nc3, d, nc4)
}

// TestIdupVirtualRepeatable: the same Idup race predicts the same time on
// repeated runs with host jitter.
func TestIdupVirtualRepeatable(t *testing.T) {
	var first float64
	for run := 0; run < 3; run++ {
		got := virtualTime(t, 6, hostJitter(run, func(c *Comm) error {
			nc, q, err := c.Idup()
			if err != nil {
				return err
			}
			d, err := c.Dup()
			if err != nil {
				return err
			}
			if _, err := q.Wait(); err != nil {
				return err
			}
			return checkComms(c, nc, d)
		}))
		if run == 0 {
			first = got
		} else if got != first {
			t.Errorf("run %d: predicted %.9g s, first run %.9g s", run, got, first)
		}
	}
}
