package mpi

import (
	"errors"
	"fmt"
	"testing"
)

// Every rank buffers a message to each neighbour before receiving any:
// with rendezvous-size standard sends this would deadlock, with Bsend it
// cannot, since a buffered send never waits for its receiver. The sender
// reuses its own buffer at once, and Detach returns the attached memory.
func TestBsendNeverBlocks(t *testing.T) {
	for _, n := range worldSizes {
		size := 3 * DefaultEagerLimit
		if n == 64 {
			size = 2048
		}
		runT(t, n, func(c *Comm) error {
			me := c.Rank()
			right, left := (me+1)%n, (me+n-1)%n
			mem := make([]byte, 2*(size+BsendOverhead))
			if err := c.BufferAttach(mem); err != nil {
				return err
			}
			out := make([]byte, size)
			for i, to := range []int{right, left} {
				pattern(out, me, to, i)
				if err := Bsend(c, out, to, i); err != nil {
					return err
				}
				clear(out) // the message was copied
			}
			in := make([]byte, size)
			for i, from := range []int{left, right} {
				if _, err := Recv(c, in, from, i); err != nil {
					return err
				}
				if err := checkPattern(in, from, me, i); err != nil {
					return err
				}
			}
			got, err := c.BufferDetach()
			if err != nil {
				return err
			}
			if len(got) != len(mem) || &got[0] != &mem[0] {
				return fmt.Errorf("BufferDetach returned another buffer")
			}
			return nil
		})
	}
}

// The receiver posts its receive only after the sender's Bsend has
// returned (it waits for a message sent after it); the buffer is full
// while the rendezvous message waits, so a second Bsend fails with
// ErrBuffer until the first is delivered; Detach waits for delivery.
func TestBsendLateReceiverAndExhaustion(t *testing.T) {
	const size = DefaultEagerLimit + 100
	runT(t, 2, func(c *Comm) error {
		if c.Rank() == 1 {
			if _, err := c.RecvEmpty(0, 1); err != nil {
				return err
			}
			in := make([]byte, size)
			if _, err := Recv(c, in, 0, 2); err != nil {
				return err
			}
			if err := checkPattern(in, 0, 1, 0); err != nil {
				return err
			}
			return c.SendEmpty(0, 3)
		}
		if err := Bsend(c, []byte{1}, 1, 0); !errors.Is(err, ErrBuffer) {
			return fmt.Errorf("Bsend with no buffer: %v", err)
		}
		if b, err := c.BufferDetach(); b != nil || err != nil {
			return fmt.Errorf("BufferDetach with no buffer: %v %v", b, err)
		}
		if err := c.BufferAttach(make([]byte, size+BsendOverhead)); err != nil {
			return err
		}
		if err := c.BufferAttach(make([]byte, 10)); !errors.Is(err, ErrBuffer) {
			return fmt.Errorf("second BufferAttach: %v", err)
		}
		out := make([]byte, size)
		pattern(out, 0, 1, 0)
		if err := Bsend(c, out, 1, 2); err != nil {
			return err
		}
		if err := Bsend(c, []byte{1}, 1, 2); !errors.Is(err, ErrBuffer) {
			return fmt.Errorf("Bsend into a full buffer: %v", err)
		}
		if err := Bsend(c, out, 1, -1); !errors.Is(err, ErrTag) {
			return fmt.Errorf("Bsend with tag -1: %v", err)
		}
		if err := Bsend(c, out, ProcNull, 0); err != nil {
			return fmt.Errorf("Bsend to ProcNull: %v", err)
		}
		if err := c.SendEmpty(1, 1); err != nil { // now rank 1 posts its receive
			return err
		}
		if _, err := c.BufferDetach(); err != nil {
			return err
		}
		_, err := c.RecvEmpty(1, 3)
		return err
	})
}

// Eager buffered messages complete at once and free their room: many go
// through a buffer with room for one; Ibsend's request is complete on
// return; Rsend and Irsend deliver as standard sends.
func TestBsendReuseIbsendRsend(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		const k, size = 50, 100
		me := c.Rank()
		if me == 0 {
			if err := c.BufferAttach(make([]byte, size+BsendOverhead)); err != nil {
				return err
			}
			for i := 0; i < k; i++ {
				q, err := Ibsend(c, make([]int32, size/4), 1, i)
				if err != nil {
					return fmt.Errorf("message %d: %v", i, err)
				}
				if ok, _, err := q.Test(); !ok || err != nil {
					return fmt.Errorf("Ibsend request not complete: %v", err)
				}
			}
			if _, err := c.BufferDetach(); err != nil {
				return err
			}
		}
		if me == 1 {
			for i := 0; i < k; i++ {
				if st, err := Recv(c, make([]int32, size/4), 0, i); err != nil || st.Bytes != size {
					return fmt.Errorf("message %d: %+v %v", i, st, err)
				}
			}
		}
		// Ready mode: the receive is posted before the barrier, the send
		// after it.
		var q *Request
		var err error
		if me == 2 {
			if q, err = Irecv(c, make([]float64, 2), 0, 7); err != nil {
				return err
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		switch me {
		case 0:
			if err := Rsend(c, []float64{1, 2}, 2, 7); err != nil {
				return err
			}
			rq, err := Irsend(c, []float64{3}, 1, 8)
			if err != nil {
				return err
			}
			_, err = rq.Wait()
			return err
		case 1:
			_, err := Recv(c, make([]float64, 1), 0, 8)
			return err
		}
		st, err := q.Wait()
		if err != nil || st.Bytes != 16 {
			return fmt.Errorf("Rsend's message: %+v %v", st, err)
		}
		return nil
	})
}

// A rank that ends with buffered messages pending delivers them first, as
// MPI_Finalize does: the receiver, which posts late, gets them.
func TestBsendDeliveredAtRankEnd(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		const size = 2 * DefaultEagerLimit
		if c.Rank() == 0 {
			if err := c.BufferAttach(make([]byte, 2*(size+BsendOverhead))); err != nil {
				return err
			}
			for i := 0; i < 2; i++ {
				if err := Bsend(c, make([]byte, size), 1, i); err != nil {
					return err
				}
			}
			return nil
		}
		for i := 0; i < 2; i++ {
			if _, err := Recv(c, make([]byte, size), 0, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// In virtual time Bsend + BufferDetach predicts what Isend + Waitall does
// (the same sends, waited for at the same point), and Rsend what Send
// does; repeatably.
func TestBsendVirtualEqualsIsend(t *testing.T) {
	prog := func(kind string, size int) func(c *Comm) error {
		return func(c *Comm) error {
			me, n := c.Rank(), c.Size()
			right, left := (me+1)%n, (me+n-1)%n
			out, in := make([]byte, size), make([]byte, size)
			var reqs []*Request
			if kind == "bsend" {
				if err := c.BufferAttach(make([]byte, 3*(size+BsendOverhead))); err != nil {
					return err
				}
			}
			for k := 0; k < 3; k++ {
				switch kind {
				case "bsend":
					if err := Bsend(c, out, right, k); err != nil {
						return err
					}
				case "isend":
					q, err := Isend(c, out, right, k)
					if err != nil {
						return err
					}
					reqs = append(reqs, q)
				case "rsend", "send":
					if err := c.Barrier(); err != nil {
						return err
					}
					q, err := Irecv(c, in, left, k)
					if err != nil {
						return err
					}
					if kind == "rsend" {
						err = Rsend(c, out, right, k)
					} else {
						err = Send(c, out, right, k)
					}
					if err != nil {
						return err
					}
					reqs = append(reqs, q)
				}
			}
			if kind == "bsend" || kind == "isend" {
				for k := 0; k < 3; k++ {
					if _, err := Recv(c, in, left, k); err != nil {
						return err
					}
				}
			}
			if kind == "bsend" {
				_, err := c.BufferDetach()
				return err
			}
			_, err := Waitall(reqs)
			return err
		}
	}
	for _, n := range []int{2, 6} {
		for _, size := range []int{64, 2 * DefaultEagerLimit} {
			for _, pair := range [][2]string{{"isend", "bsend"}, {"send", "rsend"}} {
				want := virtualTime(t, n, prog(pair[0], size))
				for rep := 0; rep < 2; rep++ {
					if got := virtualTime(t, n, prog(pair[1], size)); got != want {
						t.Fatalf("%d ranks, %d bytes: %s predicts %g s, %s %g s", n, size, pair[1], got, pair[0], want)
					}
				}
			}
		}
	}
}
