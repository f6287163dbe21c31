package main

import (
	"io"
	"testing"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// predictS runs class S as ranks virtual ranks in this process at
// cpu-scale 0 (communication only) and returns the prediction.
func predictS(t *testing.T, ranks int) mpi.Report {
	t.Helper()
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	v, err := mpi.NewVirtual(m, ranks, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = v.Run(func(c *mpi.Comm) error {
		res, err := Run(c, 'S', io.Discard, Options{})
		if err == nil && c.Rank() == 0 && !res.Verified {
			t.Error("class S did not verify in virtual time")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v.Report()
}

// At cpu-scale 0 a prediction counts messages alone: two runs of the
// wavefront pipeline and its exchanges predict the same times, rank by
// rank, to the last digit.
func TestVirtualPredictionRepeats(t *testing.T) {
	ranks := 8
	if testing.Short() {
		ranks = 4
	}
	a, b := predictS(t, ranks), predictS(t, ranks)
	if !(a.Predicted > 0) || len(a.PerRank) != ranks {
		t.Fatalf("predicted %g s over %d ranks", a.Predicted, len(a.PerRank))
	}
	if a.Predicted != b.Predicted || a.PredictedRank != b.PredictedRank {
		t.Errorf("predicted %v (rank %d), then %v (rank %d)", a.Predicted, a.PredictedRank, b.Predicted, b.PredictedRank)
	}
	for r := range a.PerRank {
		x, y := a.PerRank[r], b.PerRank[r]
		if x.End != y.End || x.Communication != y.Communication || x.Waiting != y.Waiting {
			t.Errorf("rank %d: %+v, then %+v", r, x, y)
		}
	}
}
