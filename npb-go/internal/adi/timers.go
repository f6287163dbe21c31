package adi

import (
	"io"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// timers are the reference's timers on the rank's Wtime (virtual time in
// a predicted run). The per-phase timers only run when enabled (the
// reference's timeron); Start/Stop of the embedded npb.Timers serve the
// total timer, which always runs.
type timers struct {
	*npb.Timers
	comm    *mpi.Comm
	enabled bool
}

func newTimers(c *mpi.Comm, enabled bool) timers {
	return timers{Timers: npb.NewTimers(c, tLast), comm: c, enabled: enabled}
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

// report prints, on rank 0, the minimum, maximum and average of every timer
// over the ranks as bt.f and sp.f do: the solve timers less their communication,
// then the derived computation and communication totals. It does nothing
// when disabled.
func (t *timers) report(out io.Writer, ioTimer bool) error {
	if !t.enabled {
		return nil
	}
	names := append(timerNames[:], " totcomp", " totcomm")
	t1 := make([]float64, len(names))
	for i := 0; i < tLast; i++ {
		t1[i] = t.Read(i)
	}
	t1[tXsolve] -= t1[tXcomm]
	t1[tYsolve] -= t1[tYcomm]
	t1[tZsolve] -= t1[tZcomm]
	t1[tLast+1] = t1[tXcomm] + t1[tYcomm] + t1[tZcomm] + t1[tExch]
	t1[tLast] = t1[tTotal] - t1[tLast+1]
	if !ioTimer {
		// SP has no i/o timer: its report numbers the others from 2.
		names = append(names[:tIO:tIO], names[tIO+1:]...)
		t1 = append(t1[:tIO:tIO], t1[tIO+1:]...)
	}
	return npb.ReportTimers(t.comm, t1, names, out)
}
