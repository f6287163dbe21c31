package mpi

import (
	"fmt"
	"testing"
)

// Status.Source is the sender's rank in the receiving communicator, not its
// world rank. On a sub-communicator that leaves world rank 0 out and
// reverses the others the two differ for every sender, so a status that
// reports world ranks fails here: for eager and rendezvous receives, from a
// named source and from AnySource, and for Probe and Iprobe.
func TestStatusSourceIsCommRank(t *testing.T) {
	const n = 5
	runT(t, n, func(w *Comm) error {
		if w.Rank() == 0 {
			_, err := w.Split(Undefined, 0)
			return err
		}
		c, err := w.Split(1, -w.Rank()) // comm rank = n-1 - world rank
		if err != nil {
			return err
		}
		m, me := c.Size(), c.Rank()
		if me != n-1-w.Rank() {
			return fmt.Errorf("world rank %d got comm rank %d", w.Rank(), me)
		}
		right, left := (me+1)%m, (me-1+m)%m
		check := func(what string, size int, st Status) error {
			if st.Source != left {
				return fmt.Errorf("%s of %d bytes: Status.Source %d, want comm rank %d (world rank %d)",
					what, size, st.Source, left, n-1-left)
			}
			return nil
		}
		for _, size := range []int{8, 3 * DefaultEagerLimit} { // eager, rendezvous
			out, in := make([]byte, size), make([]byte, size)
			for _, src := range []int{left, AnySource} {
				st, err := Sendrecv(c, out, right, 1, in, src, 1)
				if err != nil {
					return err
				}
				if err := check(fmt.Sprintf("receive from %d", src), size, st); err != nil {
					return err
				}
			}
			sq, err := Isend(c, out, right, 2)
			if err != nil {
				return err
			}
			st, err := c.Probe(AnySource, 2)
			if err != nil {
				return err
			}
			if err := check("Probe", size, st); err != nil {
				return err
			}
			ok, st, err := c.Iprobe(AnySource, 2)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("Iprobe after Probe found nothing")
			}
			if err := check("Iprobe", size, st); err != nil {
				return err
			}
			if _, err := Recv(c, in, AnySource, 2); err != nil {
				return err
			}
			if _, err := sq.Wait(); err != nil {
				return err
			}
		}
		return c.Free()
	})
}
