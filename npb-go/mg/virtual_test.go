package main

import (
	"io"
	"testing"
	"time"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// MG class W in virtual time with every rank in one process and waiting
// ranks sleeping at once (as gompirun runs a job with more ranks than
// cores) stalls Algorithm 2 in its halo exchange. A stall-resolution request
// that went stale once kept one rank busy and the job hung; it must finish
// and verify.
func TestVirtualInOneProcessWithoutSpinning(t *testing.T) {
	t.Setenv(mpi.SpinEnv, "0") // in-process worlds honour it as launched ones do
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	v, err := mpi.NewVirtual(m, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- v.Run(func(c *mpi.Comm) error {
			res, err := Run(c, 'W', io.Discard, Options{})
			if err == nil && c.Rank() == 0 && !res.Verified {
				t.Error("class W did not verify in virtual time")
			}
			return err
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("virtual MG class W on 4 ranks in one process did not finish in 60 s")
	}
}

// MG class S on 64 ranks at cpu-scale 0 has DATA that reach their target
// exactly when its Send's zero-length completion wait starts; dealt one way
// when the frame reached the host before that wait and another when after,
// the prediction changed from run to run by a copy of 8 bytes (see
// vtime's TestDealTimeTieAtWaitEnd). Every run must predict the same.
func TestVirtualPredictionRepeatsAt64Ranks(t *testing.T) {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		t.Fatal(err)
	}
	runs := 6
	if testing.Short() {
		runs = 3
	}
	var first mpi.Report
	for i := 0; i < runs; i++ {
		v, err := mpi.NewVirtual(m, 64, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Run(func(c *mpi.Comm) error {
			_, err := Run(c, 'S', io.Discard, Options{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		rep := v.Report()
		if i == 0 {
			first = rep
			continue
		}
		if rep.Predicted != first.Predicted {
			t.Fatalf("run %d predicted %v s, run 0 %v s", i, rep.Predicted, first.Predicted)
		}
		for r := range rep.PerRank {
			if a, b := first.PerRank[r], rep.PerRank[r]; a.End != b.End || a.Waiting != b.Waiting {
				t.Fatalf("run %d, rank %d: %+v, run 0 %+v", i, r, b, a)
			}
		}
	}
}
