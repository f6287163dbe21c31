package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// timers are the reference's timers on the rank's Wtime (virtual time in
// a predicted run). The per-phase timers only run when enabled (the
// reference's timeron); startAlways/stopAlways serve the total, which
// always runs.
type timers struct {
	*npb.Timers
	comm    *mpi.Comm
	enabled bool
}

func newTimers(c *mpi.Comm, enabled bool) timers {
	return timers{Timers: npb.NewTimers(c, tLast), comm: c, enabled: enabled}
}

func (t *timers) startAlways(i int) { t.Start(i) }
func (t *timers) stopAlways(i int)  { t.Stop(i) }

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

// report is the end of lu.f when timers are on: rhs less its exchanges,
// the derived computation and communication totals, their minimum,
// maximum and average over the ranks (three Reduce calls, as in the
// reference), printed by rank 0 except the timers whose name starts
// with '#'. It does nothing when disabled.
func (t *timers) report(out io.Writer) error {
	if !t.enabled {
		return nil
	}
	n := tLast + 2
	t1 := make([]float64, n)
	for i := 0; i < tLast; i++ {
		t1[i] = t.Read(i)
	}
	t1[tRHS] = t1[tRHS] - t1[tExch]
	t1[tLast+1] = t1[tLcomm] + t1[tUcomm] + t1[tRcomm] + t1[tExch]
	t1[tLast] = t1[tTotal] - t1[tLast+1]
	sum, lo, hi := make([]float64, n), make([]float64, n), make([]float64, n)
	c := t.comm
	if err := mpi.Reduce(c, t1, sum, mpi.Sum, 0); err != nil {
		return err
	}
	if err := mpi.Reduce(c, t1, lo, mpi.Min, 0); err != nil {
		return err
	}
	if err := mpi.Reduce(c, t1, hi, mpi.Max, 0); err != nil {
		return err
	}
	if c.Rank() != 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, " nprocs =%6d           minimum     maximum     average\n", c.Size())
	for i := 0; i < n; i++ {
		if strings.HasPrefix(timerNames[i], "#") {
			continue
		}
		fmt.Fprintf(&b, " timer %2d(%-8s) :  %10.4f  %10.4f  %10.4f\n",
			i+1, timerNames[i], lo[i], hi[i], sum[i]/float64(c.Size()))
	}
	_, err := io.WriteString(out, b.String())
	return err
}
