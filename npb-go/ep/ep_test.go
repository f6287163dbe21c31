package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

func TestClassS(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		var out bytes.Buffer
		var verified bool
		err := mpi.Run(n, func(c *mpi.Comm) error {
			w := &bytes.Buffer{}
			if c.Rank() == 0 {
				w = &out
			}
			res, _, err := Run(c, 'S', w)
			if c.Rank() == 0 {
				verified = res.Verified
			}
			return err
		})
		if err != nil {
			t.Fatalf("np=%d: %v", n, err)
		}
		if !verified || !strings.Contains(out.String(), "SUCCESSFUL") {
			t.Fatalf("np=%d: not verified:\n%s", n, out.String())
		}
	}
}

func TestBatchSeedMatchesSequence(t *testing.T) {
	// The seed of batch k must be where a sequential walk from s lands after
	// k*2^(mk+1) steps; check the first batches by brute force.
	an := a
	for i := 0; i < mk+1; i++ {
		npb.Randlc(&an, an)
	}
	x := s
	for k := 0; k < 3; k++ {
		if got := batchSeed(k, an); got != x {
			t.Fatalf("batch %d seed %v, want %v", k, got, x)
		}
		for i := 0; i < 2*nk; i++ {
			npb.Randlc(&x, a)
		}
	}
}

func TestUnknownClass(t *testing.T) {
	err := mpi.Run(1, func(c *mpi.Comm) error {
		_, _, err := Run(c, 'X', &bytes.Buffer{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "unknown class") {
		t.Fatalf("class X: %v", err)
	}
}

func TestTooManyProcesses(t *testing.T) {
	// Class S has 2^8 batches of pairs: one per rank at most.
	err := mpi.Run(257, func(c *mpi.Comm) error {
		_, _, err := Run(c, 'S', &bytes.Buffer{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "too many processes") {
		t.Fatalf("np=257: %v", err)
	}
}
