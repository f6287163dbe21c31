package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
)

func runIS(t *testing.T, n int, class byte) (bool, string, error) {
	t.Helper()
	outs := make([]bytes.Buffer, n)
	var verified bool
	err := mpi.Run(n, func(c *mpi.Comm) error {
		res, err := Run(c, class, &outs[c.Rank()])
		if c.Rank() == 0 {
			verified = res.Verified
		}
		return err
	})
	return verified, outs[0].String(), err
}

func TestClassS(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		ok, out, err := runIS(t, n, 'S')
		if err != nil {
			t.Fatalf("np=%d: %v", n, err)
		}
		if !ok || !strings.Contains(out, "SUCCESSFUL") || strings.Contains(out, "Failed") {
			t.Fatalf("np=%d: not verified:\n%s", n, out)
		}
	}
}

func TestBadProcessCount(t *testing.T) {
	_, _, err := runIS(t, 3, 'S')
	if err == nil || !strings.Contains(err.Error(), "power of two") {
		t.Fatalf("np=3: %v", err)
	}
}

// A corrupted key must be caught by the verification, not pass silently.
func TestFullVerifyDetectsDisorder(t *testing.T) {
	err := mpi.Run(1, func(c *mpi.Comm) error {
		s := newSorter(c, 'S', classes['S'], &bytes.Buffer{})
		s.createSeq(findMySeed(0, 1, 4<<16, seed, mult), mult)
		if err := s.rankKeys(maxIterations); err != nil {
			return err
		}
		s.passed = 0
		s.keyBuff2[0] = s.maxKey - 1 // a key the counts do not account for
		if err := s.fullVerify(); err != nil {
			return err
		}
		if s.passed != 0 {
			t.Error("full verification passed on corrupted keys")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
