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
