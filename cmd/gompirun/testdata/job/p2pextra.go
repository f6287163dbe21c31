package main

import (
	"bytes"
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// p2pExtra runs the point-to-point and communicator calls beyond the basic
// ones across processes: persistent requests, matched probes, Isendrecv,
// buffered sends, SplitType and CreateGroup, at eager and rendezvous
// sizes, checking contents.
func p2pExtra(c *mpi.Comm) error {
	me, n := c.Rank(), c.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	fill := func(from, size, k int) []byte { return bytes.Repeat([]byte{byte(from*31 + size + k)}, size) }
	for _, size := range []int{8, 300 << 10} {
		// Persistent ring, restarted.
		out, in := make([]byte, size), make([]byte, size)
		sq, err := mpi.SendInit(c, out, next, 1)
		if err != nil {
			return err
		}
		rq, err := mpi.RecvInit(c, in, prev, 1)
		if err != nil {
			return err
		}
		for k := 0; k < 4; k++ {
			copy(out, fill(me, size, k))
			if err := mpi.Startall([]*mpi.Request{rq, sq}); err != nil {
				return err
			}
			if _, err := mpi.Waitall([]*mpi.Request{rq, sq}); err != nil {
				return err
			}
			if !bytes.Equal(in, fill(prev, size, k)) {
				return fmt.Errorf("persistent ring, %d bytes, round %d: wrong contents", size, k)
			}
		}
		// Isendrecv the other way round.
		q, err := mpi.Isendrecv(c, fill(me, size, 9), prev, 2, in, next, 2)
		if err != nil {
			return err
		}
		if _, err := q.Wait(); err != nil {
			return err
		}
		if !bytes.Equal(in, fill(next, size, 9)) {
			return fmt.Errorf("Isendrecv, %d bytes: wrong contents", size)
		}
		// Buffered sends both ways before any receive.
		if err := c.BufferAttach(make([]byte, 2*(size+mpi.BsendOverhead))); err != nil {
			return err
		}
		for k, to := range []int{next, prev} {
			if err := mpi.Bsend(c, fill(me, size, 20+k), to, 3+k); err != nil {
				return err
			}
		}
		for k, from := range []int{prev, next} {
			if _, err := mpi.Recv(c, in, from, 3+k); err != nil {
				return err
			}
			if !bytes.Equal(in, fill(from, size, 20+k)) {
				return fmt.Errorf("Bsend, %d bytes: wrong contents", size)
			}
		}
		if _, err := c.BufferDetach(); err != nil {
			return err
		}
		// Everyone sends to rank 0, which takes each message with a
		// matched probe while a competing receive is posted.
		sreq, err := mpi.Isend(c, fill(me, size, 30), 0, 5)
		if err != nil {
			return err
		}
		if me == 0 {
			if err := mprobeAll(c, size, fill); err != nil {
				return err
			}
		}
		if _, err := sreq.Wait(); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	// One host: every rank shares it.
	sc, err := c.SplitType(mpi.SplitTypeShared, 0)
	if err != nil {
		return err
	}
	if sc.Size() != n {
		return fmt.Errorf("SplitTypeShared: %d ranks of %d", sc.Size(), n)
	}
	// The odd ranks make a communicator without the even ones.
	if me%2 == 1 {
		var odd []int
		for r := 1; r < n; r += 2 {
			odd = append(odd, r)
		}
		g, err := c.Group().Incl(odd)
		if err != nil {
			return err
		}
		oc, err := c.CreateGroup(g, 0)
		if err != nil {
			return err
		}
		if err := oc.Barrier(); err != nil {
			return err
		}
	}
	fmt.Printf("ok rank %d of %d\n", me, n)
	return nil
}

// mprobeAll receives the size-byte message (tag 5) of every rank, each
// with Mprobe+Mrecv while a competing AnySource receive is posted: that
// receive gets another message, or none and is cancelled, never the
// probed one.
func mprobeAll(c *mpi.Comm, size int, fill func(from, size, k int) []byte) error {
	check := func(what string, st mpi.Status, got []byte) error {
		if !bytes.Equal(got, fill(st.Source, size, 30)) {
			return fmt.Errorf("%s from %d, %d bytes: wrong contents", what, st.Source, size)
		}
		return nil
	}
	for left := c.Size(); left > 0; {
		m, _, err := c.Mprobe(mpi.AnySource, 5)
		if err != nil {
			return err
		}
		other := make([]byte, size)
		oq, err := mpi.Irecv(c, other, mpi.AnySource, 5)
		if err != nil {
			return err
		}
		got := make([]byte, size)
		st, err := mpi.Mrecv(m, got)
		if err != nil {
			return err
		}
		if err := check("Mrecv", st, got); err != nil {
			return err
		}
		left--
		if left == 0 { // nothing left for the competing receive
			if err := oq.Cancel(); err != nil {
				return err
			}
		}
		ost, err := oq.Wait()
		if err != nil {
			return err
		}
		if !ost.Cancelled {
			if err := check("competing Irecv", ost, other); err != nil {
				return err
			}
			left--
		}
	}
	return nil
}
