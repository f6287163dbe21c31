package main

import (
	"io"
	"math"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// The grid after k steps is the same, bit for bit, whatever the number of
// ranks: each cell's update is the same arithmetic on the same inputs.
func TestHaloMatchesOneRank(t *testing.T) {
	const nx, ny, steps = 37, 23, 25
	var ref []float64
	if err := mpi.Run(1, func(c *mpi.Comm) error {
		g, err := run(c, nx, ny, steps, io.Discard)
		ref = g
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if ref[0] < 0.1 || ref[len(ref)-1] > 1e-6 {
		t.Fatalf("heat did not spread from the top edge: %v %v", ref[0], ref[len(ref)-1])
	}
	for _, n := range []int{2, 3, 4, 6, 8, 12} {
		var got []float64
		err := mpi.Run(n, func(c *mpi.Comm) error {
			g, err := run(c, nx, ny, steps, io.Discard)
			if c.Rank() == 0 {
				got = g
			}
			return err
		})
		if err != nil {
			t.Fatalf("%d ranks: %v", n, err)
		}
		for i := range ref {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("%d ranks: cell %d = %v, one rank has %v", n, i, got[i], ref[i])
			}
		}
	}
}

func TestHaloTooManyRanks(t *testing.T) {
	err := mpi.Run(4, func(c *mpi.Comm) error { _, err := run(c, 1, 1, 1, io.Discard); return err })
	if err == nil {
		t.Fatal("4 ranks on a 1x1 grid should fail")
	}
}
