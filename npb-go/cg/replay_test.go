package main

import (
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// TestReplayClassS: CG class S recorded in a virtual run and replayed on
// the same machine predicts what the run predicted, every rank bit for
// bit at cpu-scale 0 and within 1e-9 with measured computation.
func TestReplayClassS(t *testing.T) {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	cg := func(c *mpi.Comm) error {
		_, err := Run(c, 'S', io.Discard)
		return err
	}
	for _, tc := range []struct {
		p     int
		scale float64
	}{{4, 0}, {8, 0}, {16, 0}, {4, 1}} {
		name := fmt.Sprintf("P=%d cpu-scale %g", tc.p, tc.scale)
		v, err := mpi.NewVirtual(m, tc.p, tc.scale)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := v.Record(dir); err != nil {
			t.Fatal(err)
		}
		if err := v.Run(cg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rec, err := mpi.OpenRecording(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rec.Replay(nil, tc.scale)
		if err != nil {
			t.Fatalf("%s: replay: %v", name, err)
		}
		tol := 0.0
		if tc.scale > 0 {
			tol = 1e-9
		}
		a, b := v.Results(), rep.Results()
		for i := range a {
			x, y := a[i], b[i]
			if math.Abs(x.End-y.End) > tol*x.End || math.Abs(x.Computation-y.Computation) > tol*x.End || x.Sent != y.Sent {
				t.Fatalf("%s: rank %d: run %+v\nreplay %+v", name, i, x, y)
			}
		}
	}
}
