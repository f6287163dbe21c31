package mpi

import (
	"errors"
	"testing"
)

func TestSmoke(t *testing.T) {
	for _, size := range []int{0, 1, 100, DefaultEagerLimit, DefaultEagerLimit + 1, 1 << 20} {
		err := Run(2, func(c *Comm) error {
			buf := make([]byte, size)
			if c.Rank() == 0 {
				for i := range buf {
					buf[i] = byte(i)
				}
				if err := Send(c, buf, 1, 7); err != nil {
					return err
				}
				_, err := Recv(c, buf, 1, 8)
				return err
			}
			st, err := Recv(c, buf, AnySource, AnyTag)
			if err != nil {
				return err
			}
			if st.Source != 0 || st.Tag != 7 || st.Bytes != size {
				t.Errorf("status %+v", st)
			}
			for i := range buf {
				if buf[i] != byte(i) {
					t.Fatalf("byte %d", i)
				}
			}
			return Send(c, buf, 0, 8)
		})
		if err != nil {
			t.Fatal(size, err)
		}
	}
}

func TestSmokeTruncDeadlockSplit(t *testing.T) {
	err := Run(2, func(c *Comm) error {
		if c.Rank() == 0 {
			return Send(c, make([]int, 10), 1, 0)
		}
		_, err := Recv(c, make([]int, 5), 0, 0)
		if !errors.Is(err, ErrTruncate) {
			t.Errorf("want truncate, got %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = Run(3, func(c *Comm) error {
		_, err := Recv(c, make([]int, 5), (c.Rank()+1)%3, 0)
		return err
	})
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("want deadlock, got %v", err)
	}
	t.Log(err)
	err = Run(5, func(c *Comm) error {
		s, err := c.Split(c.Rank()%2, -c.Rank())
		if err != nil {
			return err
		}
		t.Logf("world %d -> color %d rank %d/%d", c.Rank(), c.Rank()%2, s.Rank(), s.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
