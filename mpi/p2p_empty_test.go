package mpi

import (
	"errors"
	"fmt"
	"testing"
)

// Zero-count messages: Send[byte] of nil, SendEmpty and RecvEmpty, in
// every combination with typed calls, on every world size (a ring of
// tokens), and a RecvEmpty that meets data truncates it.
func TestEmptyMessages(t *testing.T) {
	for _, n := range worldSizes {
		runT(t, n, func(c *Comm) error {
			me, size := c.Rank(), c.Size()
			right, left := (me+1)%size, (me+size-1)%size
			for k := 0; k < 4; k++ {
				var err error
				var q *Request
				if k%2 == 0 {
					q, err = Isend[byte](c, nil, right, k)
				} else {
					q, err = Isend[float64](c, []float64{}, right, k)
				}
				if err != nil {
					return err
				}
				var st Status
				if k < 2 {
					st, err = c.RecvEmpty(left, k)
				} else {
					st, err = Recv(c, make([]int16, 3), AnySource, k)
				}
				if err != nil || st.Source != left || st.Tag != k || st.Bytes != 0 {
					return fmt.Errorf("round %d: %+v %v", k, st, err)
				}
				if _, err := q.Wait(); err != nil {
					return err
				}
			}
			if err := c.SendEmpty(right, 9); err != nil {
				return err
			}
			if st, err := c.RecvEmpty(AnySource, AnyTag); err != nil || st.Tag != 9 {
				return fmt.Errorf("SendEmpty ring: %+v %v", st, err)
			}
			if err := Send[byte](c, nil, right, 10); err != nil {
				return err
			}
			if _, err := c.RecvEmpty(left, 10); err != nil {
				return err
			}
			// Data meets an empty receive: truncated, as in MPI.
			if err := Send(c, []int32{1}, right, 11); err != nil {
				return err
			}
			if st, err := c.RecvEmpty(left, 11); !errors.Is(err, ErrTruncate) || st.Bytes != 0 {
				return fmt.Errorf("RecvEmpty of 4 bytes: %+v %v", st, err)
			}
			if err := c.SendEmpty(size, 0); !errors.Is(err, ErrRank) {
				return fmt.Errorf("SendEmpty to rank %d of %d: %v", size, size, err)
			}
			st, err := c.RecvEmpty(ProcNull, 0)
			if err != nil || st.Source != ProcNull {
				return fmt.Errorf("RecvEmpty(ProcNull): %+v %v", st, err)
			}
			return nil
		})
	}
}

// In virtual time SendEmpty / RecvEmpty are the typed calls with an empty
// buffer: the same prediction, repeatably.
func TestEmptyMessagesVirtual(t *testing.T) {
	ring := func(empty bool) func(c *Comm) error {
		return func(c *Comm) error {
			n := c.Size()
			for k := 0; k < 3; k++ {
				if c.Rank() == k%n {
					var err error
					if empty {
						err = c.SendEmpty((k+1)%n, 0)
					} else {
						err = Send(c, []float64{}, (k+1)%n, 0)
					}
					if err != nil {
						return err
					}
				}
				if c.Rank() == (k+1)%n {
					var err error
					if empty {
						_, err = c.RecvEmpty(k%n, 0)
					} else {
						_, err = Recv[int](c, nil, k%n, 0)
					}
					if err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	want := virtualTime(t, 4, ring(false))
	for rep := 0; rep < 2; rep++ {
		if got := virtualTime(t, 4, ring(true)); got != want {
			t.Fatalf("SendEmpty/RecvEmpty predict %g s, typed calls %g s", got, want)
		}
	}
}
