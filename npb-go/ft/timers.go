package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// timers are the reference's timers on the rank's Wtime (virtual time in
// a predicted run). The detailed timers only run when enabled (the
// reference's timers_enabled); Start/Stop serve the total and init timers,
// which always run.
type timers struct {
	*npb.Timers
	comm    *mpi.Comm
	enabled bool
}

func newTimers(c *mpi.Comm, enabled bool) timers {
	return timers{Timers: npb.NewTimers(c, tMax), comm: c, enabled: enabled}
}

func (t *timers) start(i int) {
	if t.enabled {
		t.Start(i)
	}
}

func (t *timers) stop(i int) {
	if t.enabled {
		t.Stop(i)
	}
}

// report is the reference's print_timers: minimum, maximum and average
// over the ranks of every non-zero timer, plus the computation and
// communication totals, from three Reduce calls.
func (t *timers) report(np int, say func(string, ...any)) error {
	if !t.enabled {
		return nil
	}
	names := append(timerNames[:], "totcomp", "totcomm")
	t1 := make([]float64, len(names))
	for i := 0; i < tMax; i++ {
		t1[i] = t.Read(i)
	}
	t1[tMax+1] = t1[tTransxzglo] + t1[tTransxyglo] + t1[tSynch]
	t1[tMax] = t1[tTotal] - t1[tMax+1]
	tsum, tmin, tmax := make([]float64, len(t1)), make([]float64, len(t1)), make([]float64, len(t1))
	for _, r := range []struct {
		out []float64
		op  mpi.Op
	}{{tsum, mpi.Sum}, {tmin, mpi.Min}, {tmax, mpi.Max}} {
		if err := mpi.Reduce(t.comm, t1, r.out, r.op, 0); err != nil {
			return err
		}
	}
	say(" nprocs =%6d                   minimum     maximum     average\n", np)
	for i, name := range names {
		if tsum[i] != 0 {
			say(" timer %2d(%16s) :  %10.4f  %10.4f  %10.4f\n", i+1, fmt.Sprintf("%15s ", name), tmin[i], tmax[i], tsum[i]/float64(np))
		}
	}
	return nil
}
