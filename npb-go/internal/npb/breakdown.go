package npb

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// TimerFlagSet reports whether the user asked for NPB's per-phase timer
// breakdown (check_timer_flag): NPB_TIMER_FLAG set to empty, a digit 1-9,
// on, yes or true; or, when the variable is unset, a file timer.flag in the
// working directory.
func TimerFlagSet() bool {
	ev, ok := os.LookupEnv("NPB_TIMER_FLAG")
	if !ok {
		_, err := os.Stat("timer.flag")
		return err == nil
	}
	if ev == "" || (ev[0] >= '1' && ev[0] <= '9') {
		return true
	}
	switch ev {
	case "on", "ON", "yes", "YES", "true", "TRUE":
		return true
	}
	return false
}

// BcastTimerFlag is the reference's start-up step: rank 0 checks the timer
// flag and broadcasts it, so every rank times the same phases.
func BcastTimerFlag(c *mpi.Comm) (bool, error) {
	flag := []int32{0}
	if c.Rank() == 0 && TimerFlagSet() {
		flag[0] = 1
	}
	if err := mpi.Bcast(c, flag, 0); err != nil {
		return false, err
	}
	return flag[0] != 0, nil
}

// ReportTimers reduces each rank's phase times t to their minimum, maximum
// and average over the ranks and has rank 0 print them under the names
// given, in NPB's layout.
func ReportTimers(c *mpi.Comm, t []float64, names []string, out io.Writer) error {
	n := len(t)
	sum, lo, hi := make([]float64, n), make([]float64, n), make([]float64, n)
	if err := mpi.Reduce(c, t, sum, mpi.Sum, 0); err != nil {
		return err
	}
	if err := mpi.Reduce(c, t, lo, mpi.Min, 0); err != nil {
		return err
	}
	if err := mpi.Reduce(c, t, hi, mpi.Max, 0); err != nil {
		return err
	}
	if c.Rank() != 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, " nprocs =%6d           minimum     maximum     average\n", c.Size())
	for i := range t {
		fmt.Fprintf(&b, " timer %2d(%-8s) :  %10.4f  %10.4f  %10.4f\n",
			i+1, names[i], lo[i], hi[i], sum[i]/float64(c.Size()))
	}
	_, err := io.WriteString(out, b.String())
	return err
}
