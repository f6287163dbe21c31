package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// TestSkeletonVirtual runs the skeleton in virtual time: the checksum and
// the predicted time do not depend on host scheduling (eager halos; see
// docs/model.md for the patterns that are exact).
func TestSkeletonVirtual(t *testing.T) {
	m, err := vtime.Preset("xsim-mesh3d-dualcore")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for run := 0; run < 3; run++ {
		for _, pipeline := range []bool{false, true} {
			v, err := mpi.NewVirtual(m, 7, 0)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = v.Run(func(c *mpi.Comm) error {
				var w io.Writer = io.Discard
				if c.Rank() == 0 {
					w = &out
				}
				return skeleton(c, 3, 50*time.Microsecond, 16<<10, pipeline, w)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "7 ranks, 3 iterations, checksum ") {
				t.Fatalf("output %q", out.String())
			}
			if !pipeline {
				if first == "" {
					first = out.String()
				} else if out.String() != first {
					t.Errorf("run %d printed %q, run 0 %q", run, out.String(), first)
				}
			}
			// Rank 3 computes most: 4 x 50 us per iteration.
			if p := v.Report().Predicted; p < 3*200e-6 {
				t.Errorf("predicted %g s, less than the computation of rank 3", p)
			}
		}
	}
}

// TestSkeletonReal runs it as a real program (Elapse sleeps).
func TestSkeletonReal(t *testing.T) {
	err := mpi.Run(3, func(c *mpi.Comm) error {
		return skeleton(c, 2, time.Microsecond, 1<<10, true, io.Discard)
	})
	if err != nil {
		t.Fatal(err)
	}
}
