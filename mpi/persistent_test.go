package mpi

import (
	"errors"
	"fmt"
	"testing"
)

// A ring of persistent sends and receives restarted many times, completed
// by Waitall, by Testany loops, by Wait on each and by Waitsome in turn,
// with sizes on both sides of the eager limit: every start moves fresh
// data, and a completed start leaves the request reusable.
func TestPersistentRingRestarted(t *testing.T) {
	for _, n := range worldSizes {
		for _, size := range []int{0, 16, 3 * DefaultEagerLimit} {
			if n == 64 && size > DefaultEagerLimit {
				continue // bounded memory and time on the shared test machine
			}
			runT(t, n, func(c *Comm) error { return persistentRing(c, size, 12) })
		}
	}
}

func persistentRing(c *Comm, size, rounds int) error {
	me, n := c.Rank(), c.Size()
	right, left := (me+1)%n, (me+n-1)%n
	out, in := make([]byte, size), make([]byte, size)
	sq, err := SendInit(c, out, right, 5)
	if err != nil {
		return err
	}
	rq, err := RecvInit(c, in, left, 5)
	if err != nil {
		return err
	}
	reqs := []*Request{rq, sq}
	for k := 0; k < rounds; k++ {
		pattern(out, me, right, k)
		clear(in)
		if err := Startall(reqs); err != nil {
			return err
		}
		var st Status
		switch k % 4 {
		case 0:
			sts, err := Waitall(reqs)
			if err != nil {
				return err
			}
			st = sts[0]
		case 1:
			for left := 2; left > 0; {
				i, ok, s, err := Testany(reqs)
				if err != nil {
					return err
				}
				if ok {
					if i == Undefined {
						return fmt.Errorf("round %d: Testany found no active request with %d left", k, left)
					}
					if i == 0 {
						st = s
					}
					left--
				}
			}
			// Both inactive now: Testany treats them as null.
			if i, ok, _, _ := Testany(reqs); !ok || i != Undefined {
				return fmt.Errorf("round %d: Testany over inactive requests: %d %v", k, i, ok)
			}
		case 2:
			if st, err = rq.Wait(); err != nil {
				return err
			}
			if _, err := sq.Wait(); err != nil {
				return err
			}
		case 3:
			for left := 2; left > 0; {
				idx, sts, err := Waitsome(reqs)
				if err != nil {
					return err
				}
				for j, i := range idx {
					if i == 0 {
						st = sts[j]
					}
				}
				left -= len(idx)
			}
		}
		if st.Source != left || st.Tag != 5 || st.Bytes != size {
			return fmt.Errorf("round %d: status %+v", k, st)
		}
		if err := checkPattern(in, left, me, k); err != nil {
			return fmt.Errorf("round %d: %v", k, err)
		}
		// Completed and observed: inactive, with the empty status.
		if st, err := rq.Wait(); err != nil || st != emptyStatus() {
			return fmt.Errorf("round %d: Wait on the inactive receive: %+v %v", k, st, err)
		}
	}
	return errors.Join(sq.Free(), rq.Free())
}

// The inactive state and the errors of Start and Startall.
func TestPersistentInactiveAndErrors(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		buf := []int32{1, 2, 3}
		peer := 1 - c.Rank()
		sq, err := SsendInit(c, buf, peer, 1)
		if err != nil {
			return err
		}
		rq, err := RecvInit(c, make([]int32, 3), AnySource, AnyTag)
		if err != nil {
			return err
		}
		// New: inactive. Wait, Test and Status answer at once.
		if st, err := sq.Wait(); err != nil || st != emptyStatus() {
			return fmt.Errorf("Wait on a new persistent request: %+v %v", st, err)
		}
		if ok, st, err := rq.Test(); !ok || err != nil || st != emptyStatus() {
			return fmt.Errorf("Test on a new persistent request: %v %+v %v", ok, st, err)
		}
		if ok, st, err := rq.Status(); !ok || err != nil || st != emptyStatus() {
			return fmt.Errorf("Status on a new persistent request: %v %+v %v", ok, st, err)
		}
		if i, st, err := Waitany([]*Request{sq, nil, rq}); i != Undefined || st != emptyStatus() || err != nil {
			return fmt.Errorf("Waitany over inactive requests: %d %+v %v", i, st, err)
		}
		if idx, _, err := Waitsome([]*Request{sq, rq}); idx != nil || err != nil {
			return fmt.Errorf("Waitsome over inactive requests: %v %v", idx, err)
		}
		// Errors: nothing starts.
		isq, err := Isend(c, buf, c.Rank(), 9)
		if err != nil {
			return err
		}
		for name, reqs := range map[string][]*Request{
			"nil":            {rq, nil},
			"non-persistent": {rq, isq},
			"twice":          {rq, sq, rq},
		} {
			if err := Startall(reqs); !errors.Is(err, ErrRequest) {
				return fmt.Errorf("Startall %s: %v", name, err)
			}
			if rq.inactive() == false || sq.inactive() == false {
				return fmt.Errorf("Startall %s started something", name)
			}
		}
		if err := isq.Start(); !errors.Is(err, ErrRequest) {
			return fmt.Errorf("Start of an Isend request: %v", err)
		}
		if _, err := Recv(c, make([]int32, 3), c.Rank(), 9); err != nil {
			return err
		}
		if _, err := isq.Wait(); err != nil {
			return err
		}
		if err := Startall([]*Request{rq, sq}); err != nil {
			return err
		}
		if err := rq.Start(); !errors.Is(err, ErrRequest) {
			return fmt.Errorf("Start of an active request: %v", err)
		}
		sts, err := Waitall([]*Request{rq, sq})
		if err != nil {
			return err
		}
		if sts[0].Source != peer || sts[0].Tag != 1 || sts[0].Bytes != 12 {
			return fmt.Errorf("status %+v", sts[0])
		}
		if _, err := SendInit(c, buf, 2, 0); !errors.Is(err, ErrRank) {
			return fmt.Errorf("SendInit to rank 2 of 2: %v", err)
		}
		if _, err := RecvInit(c, buf, 0, -5); !errors.Is(err, ErrTag) {
			return fmt.Errorf("RecvInit with tag -5: %v", err)
		}
		// A persistent request to ProcNull completes at once each start.
		pq, err := SendInit(c, buf, ProcNull, 0)
		if err != nil {
			return err
		}
		for k := 0; k < 3; k++ {
			if err := pq.Start(); err != nil {
				return err
			}
			if st, err := pq.Wait(); err != nil || st.Source != ProcNull {
				return fmt.Errorf("ProcNull start %d: %+v %v", k, st, err)
			}
		}
		return nil
	})
}

// Free: an active request completes in the background; a freed request
// cannot be used; a nil one cannot be freed.
func TestRequestFree(t *testing.T) {
	if err := (*Request)(nil).Free(); !errors.Is(err, ErrRequest) {
		t.Fatalf("Free of a nil request: %v", err)
	}
	runT(t, 2, func(c *Comm) error {
		const n = 100
		if c.Rank() == 0 {
			in := make([]float64, n)
			q, err := Irecv(c, in, 1, 1)
			if err != nil {
				return err
			}
			if err := q.Free(); err != nil {
				return err
			}
			if err := q.Free(); !errors.Is(err, ErrRequest) {
				return fmt.Errorf("second Free: %v", err)
			}
			if _, err := q.Wait(); !errors.Is(err, ErrRequest) {
				return fmt.Errorf("Wait on a freed request: %v", err)
			}
			if _, _, err := q.Test(); !errors.Is(err, ErrRequest) {
				return fmt.Errorf("Test on a freed request: %v", err)
			}
			if _, _, err := q.Status(); !errors.Is(err, ErrRequest) {
				return fmt.Errorf("Status on a freed request: %v", err)
			}
			if err := Send(c, []byte{1}, 1, 0); err != nil {
				return err
			}
			// Tag 2 is sent after tag 1's (eager) data: once it is here,
			// the freed receive has completed.
			if _, err := Recv(c, []byte{0}, 1, 2); err != nil {
				return err
			}
			for i, x := range in {
				if x != float64(i) {
					return fmt.Errorf("freed receive: in[%d] = %v", i, x)
				}
			}
			return nil
		}
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i)
		}
		if _, err := Recv(c, []byte{0}, 0, 0); err != nil {
			return err
		}
		q, err := Isend(c, out, 0, 1)
		if err != nil {
			return err
		}
		if err := q.Free(); err != nil {
			return err
		}
		return Send(c, []byte{2}, 0, 2)
	})
}

// Status reports completion without ending the request: a Wait still
// follows and returns the same status, and a persistent request stays
// active until then.
func TestRequestStatus(t *testing.T) {
	for _, virtual := range []bool{false, true} {
		fn := func(c *Comm) error {
			if c.Rank() == 1 {
				if _, err := Recv(c, []byte{0}, 0, 0); err != nil {
					return err
				}
				return Send(c, []int64{7, 8}, 0, 3)
			}
			in := make([]int64, 2)
			q, err := RecvInit(c, in, AnySource, 3)
			if err != nil {
				return err
			}
			if err := q.Start(); err != nil {
				return err
			}
			if ok, _, err := q.Status(); ok || err != nil {
				return fmt.Errorf("Status before the message was sent: %v %v", ok, err)
			}
			if err := Send(c, []byte{1}, 1, 0); err != nil {
				return err
			}
			var st Status
			for ok := false; !ok; {
				if ok, st, err = q.Status(); err != nil {
					return err
				}
			}
			if st.Source != 1 || st.Tag != 3 || st.Bytes != 16 || in[1] != 8 {
				return fmt.Errorf("Status: %+v, data %v", st, in)
			}
			if ok, again, _ := q.Status(); !ok || again != st {
				return fmt.Errorf("second Status: %v %+v", ok, again)
			}
			if w, err := q.Wait(); err != nil || w != st {
				return fmt.Errorf("Wait after Status: %+v %v, want %+v", w, err, st)
			}
			if ok, e, _ := q.Status(); !ok || e != emptyStatus() {
				return fmt.Errorf("Status after Wait: %v %+v", ok, e)
			}
			return nil
		}
		if virtual {
			runVirtual(t, "xsim-ethernet", 2, fn)
		} else {
			runT(t, 2, fn)
		}
	}
}

// In virtual time persistent Start+Wait is Isend (Issend) / Irecv+Wait:
// the same starting and waiting phases. The predictions are equal, and repeatable.
func TestPersistentVirtualEqualsNonblocking(t *testing.T) {
	exchange := func(persistent, sync bool, size int) func(c *Comm) error {
		return func(c *Comm) error {
			me, n := c.Rank(), c.Size()
			right, left := (me+1)%n, (me+n-1)%n
			out, in := make([]byte, size), make([]byte, size)
			var sq, rq *Request
			var err error
			if persistent {
				if sync {
					sq, err = SsendInit(c, out, right, 0)
				} else {
					sq, err = SendInit(c, out, right, 0)
				}
				if err != nil {
					return err
				}
				if rq, err = RecvInit(c, in, left, 0); err != nil {
					return err
				}
			}
			for k := 0; k < 5; k++ {
				c.Elapse(1000) // some computation between rounds
				if persistent {
					err = Startall([]*Request{rq, sq})
				} else {
					if rq, err = Irecv(c, in, left, 0); err == nil && sync {
						sq, err = Issend(c, out, right, 0)
					} else if err == nil {
						sq, err = Isend(c, out, right, 0)
					}
				}
				if err != nil {
					return err
				}
				if _, err := Waitall([]*Request{rq, sq}); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, n := range []int{2, 5, 17} {
		for _, size := range []int{8, 2 * DefaultEagerLimit} {
			for _, sync := range []bool{false, true} {
				want := virtualTime(t, n, exchange(false, sync, size))
				for rep := 0; rep < 2; rep++ {
					if got := virtualTime(t, n, exchange(true, sync, size)); got != want {
						t.Fatalf("%d ranks, %d bytes, sync %v: persistent predicts %g s, nonblocking calls %g s", n, size, sync, got, want)
					}
				}
			}
		}
	}
}

// The restarted ring with its Waitall / Testany / Wait / Waitsome mix, in
// virtual time: the polls and choices are answered in virtual time, so
// the prediction repeats.
func TestPersistentRingVirtualRepeatable(t *testing.T) {
	for _, n := range []int{3, 5} {
		for _, size := range []int{16, 2 * DefaultEagerLimit} {
			fn := func(c *Comm) error { return persistentRing(c, size, 4) } // each completion mode once
			want := virtualTime(t, n, fn)
			for rep := 0; rep < 2; rep++ {
				if got := virtualTime(t, n, fn); got != want {
					t.Fatalf("%d ranks, %d bytes: run %d predicts %g s, the first %g s", n, size, rep+2, got, want)
				}
			}
		}
	}
}
