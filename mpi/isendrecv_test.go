package mpi

import (
	"errors"
	"fmt"
	"testing"
)

// Isendrecv and IsendrecvReplace on rings in both directions at once, on
// every world size and on both sides of the eager limit, completed by
// Waitall, Waitany, Testany and Wait in turn.
func TestIsendrecvRings(t *testing.T) {
	for _, n := range worldSizes {
		for _, size := range []int{0, 24, DefaultEagerLimit + 8} {
			if n == 64 && size > DefaultEagerLimit {
				continue
			}
			runT(t, n, func(c *Comm) error { return isendrecvRings(c, size) })
		}
	}
}

func isendrecvRings(c *Comm, size int) error {
	me, n := c.Rank(), c.Size()
	right, left := (me+1)%n, (me+n-1)%n
	for k := 0; k < 4; k++ {
		outR, inL := make([]byte, size), make([]byte, size)
		pattern(outR, me, right, k)
		toRight, err := Isendrecv(c, outR, right, k, inL, left, k)
		if err != nil {
			return err
		}
		buf := make([]byte, size)
		pattern(buf, me, left, k)
		toLeft, err := IsendrecvReplace(c, buf, left, 100+k, right, 100+k)
		if err != nil {
			return err
		}
		reqs := []*Request{toRight, toLeft}
		sts := make([]Status, 2)
		switch k {
		case 0:
			if sts, err = Waitall(reqs); err != nil {
				return err
			}
		case 1, 2:
			for done := 0; done < 2; done++ {
				var i int
				var st Status
				if k == 1 {
					i, st, err = Waitany(reqs)
				} else {
					ok := false
					for !ok && err == nil {
						i, ok, st, err = Testany(reqs)
					}
				}
				if err != nil {
					return err
				}
				sts[i], reqs[i] = st, nil
			}
		case 3:
			for i, q := range reqs {
				if sts[i], err = q.Wait(); err != nil {
					return err
				}
			}
		}
		if st := sts[0]; st.Source != left || st.Tag != k || st.Bytes != size {
			return fmt.Errorf("round %d: Isendrecv status %+v", k, st)
		}
		if st := sts[1]; st.Source != right || st.Tag != 100+k || st.Bytes != size {
			return fmt.Errorf("round %d: IsendrecvReplace status %+v", k, st)
		}
		if err := checkPattern(inL, left, me, k); err != nil {
			return err
		}
		if err := checkPattern(buf, right, me, k); err != nil {
			return err
		}
	}
	return nil
}

// Bad arguments start nothing; a truncated receive is the request's error.
func TestIsendrecvErrors(t *testing.T) {
	runT(t, 2, func(c *Comm) error {
		peer := 1 - c.Rank()
		if _, err := Isendrecv(c, []int{1}, 2, 0, []int{0}, peer, 0); !errors.Is(err, ErrRank) {
			return fmt.Errorf("Isendrecv to rank 2: %v", err)
		}
		if _, err := Isendrecv(c, []int{1}, peer, -1, []int{0}, peer, 0); !errors.Is(err, ErrTag) {
			return fmt.Errorf("Isendrecv with send tag -1: %v", err)
		}
		if _, err := IsendrecvReplace(c, []int{1}, peer, 0, 5, 0); !errors.Is(err, ErrRank) {
			return fmt.Errorf("IsendrecvReplace from rank 5: %v", err)
		}
		q, err := Isendrecv(c, []int32{1, 2}, peer, 3, make([]int32, 1), peer, 3)
		if err != nil {
			return err
		}
		st, err := q.Wait()
		if !errors.Is(err, ErrTruncate) || st.Bytes != 4 || !errors.Is(st.Err, ErrTruncate) {
			return fmt.Errorf("truncated Isendrecv: %+v %v", st, err)
		}
		// ProcNull on both sides completes at once.
		q, err = Isendrecv(c, []int{1}, ProcNull, 0, []int{0}, ProcNull, 0)
		if err != nil {
			return err
		}
		if ok, st, err := q.Test(); !ok || err != nil || st.Source != ProcNull {
			return fmt.Errorf("Isendrecv with ProcNull: %v %+v %v", ok, st, err)
		}
		return nil
	})
}

// In virtual time Isendrecv + Wait is Sendrecv, and IsendrecvReplace +
// Wait is SendrecvReplace: the same prediction, repeatably. A Waitany over
// two of them is repeatable too.
func TestIsendrecvVirtualEqualsSendrecv(t *testing.T) {
	shift := func(kind string, size int) func(c *Comm) error {
		return func(c *Comm) error {
			me, n := c.Rank(), c.Size()
			out, in := make([]byte, size), make([]byte, size)
			for k := 0; k < 3; k++ {
				c.Elapse(1000)
				right, left := (me+1+k)%n, (me+2*n-1-k%n)%n
				var err error
				switch kind {
				case "Sendrecv":
					_, err = Sendrecv(c, out, right, 0, in, left, 0)
				case "SendrecvReplace":
					_, err = SendrecvReplace(c, in, right, 0, left, 0)
				case "Isendrecv", "IsendrecvReplace":
					var q *Request
					if kind == "Isendrecv" {
						q, err = Isendrecv(c, out, right, 0, in, left, 0)
					} else {
						q, err = IsendrecvReplace(c, in, right, 0, left, 0)
					}
					if err == nil {
						_, err = q.Wait()
					}
				case "Waitany":
					a, err1 := Isendrecv(c, out, right, 1, in, left, 1)
					b, err2 := IsendrecvReplace(c, make([]byte, size), left, 2, right, 2)
					if err = errors.Join(err1, err2); err != nil {
						return err
					}
					reqs := []*Request{a, b}
					for j := 0; j < 2; j++ {
						i, _, err := Waitany(reqs)
						if err != nil {
							return err
						}
						reqs[i] = nil
					}
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, n := range []int{2, 7} {
		for _, size := range []int{16, 2 * DefaultEagerLimit} {
			for _, pair := range [][2]string{{"Sendrecv", "Isendrecv"}, {"SendrecvReplace", "IsendrecvReplace"}, {"Waitany", "Waitany"}} {
				want := virtualTime(t, n, shift(pair[0], size))
				for rep := 0; rep < 2; rep++ {
					if got := virtualTime(t, n, shift(pair[1], size)); got != want {
						t.Fatalf("%d ranks, %d bytes: %s predicts %g s, %s %g s", n, size, pair[1], got, pair[0], want)
					}
				}
			}
		}
	}
}
