package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gompi/gompi/mpi"
)

// A scalability sweep: -virtual P1,P2,... predicts the program at each P in
// turn, each prediction a job of its own with the same processes, machine
// and options, and ends with a table of predicted time, speedup and
// efficiency against the smallest P, and where the time goes
// (computation, communication and waiting, shares of the ranks' summed
// times: Phantom's breakdown, seeds/002).

// maxSweep bounds the P a sweep takes.
const maxSweep = 64

// parseVirtual reads -virtual: P, or a comma-separated list of distinct P
// (a sweep, returned as list, in the order given; first is its first P).
func parseVirtual(s string) (first int, list []int, err error) {
	items := strings.Split(s, ",")
	if len(items) > maxSweep {
		return 0, nil, fmt.Errorf("%d rank counts: at most %d", len(items), maxSweep)
	}
	for _, it := range items {
		p, err := strconv.Atoi(strings.TrimSpace(it))
		if err != nil {
			return 0, nil, fmt.Errorf("%q: want a number of ranks, or a list such as 16,64,256", it)
		}
		if p < 1 {
			return 0, nil, errors.New("need at least one rank")
		}
		if slices.Contains(list, p) {
			return 0, nil, fmt.Errorf("%d given twice", p)
		}
		list = append(list, p)
	}
	if len(list) == 1 {
		return list[0], nil, nil
	}
	return list[0], list, nil
}

// runSweep runs one prediction per P of o.sweep and prints the table on w.
// A failing job ends the sweep with its status, after the table of the
// predictions made so far. -report FILE gets the reports as a JSON array.
func runSweep(o *options, exe string, w io.Writer) int {
	file, plotFile := o.virt.report, o.virt.plot
	o.virt.report, o.virt.plot = "", "" // one file each for the sweep, written at the end
	var reps []mpi.Report
	for i, p := range o.sweep {
		fmt.Fprintf(w, "gompirun: -virtual %d (%d of %d)\n", p, i+1, len(o.sweep))
		o.virtual, o.ranks = p, p
		o.virt.last = nil
		if code := run(o, exe); code != 0 {
			if len(reps) > 0 {
				fmt.Fprintf(w, "gompirun: the sweep stopped at -virtual %d; the predictions before it:\n", p)
				writeSweep(w, reps)
			}
			return code
		}
		reps = append(reps, *o.virt.last)
	}
	writeSweep(w, reps)
	if file != "" {
		if err := writeSweepJSON(file, reps); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -report: %v\n", err)
			return 1
		}
	}
	if plotFile != "" {
		if err := plotSweep(plotFile, reps); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -plot: %v\n", err)
			return 1
		}
	}
	return 0
}

// sweepRow is one line of the table.
type sweepRow struct {
	ranks               int
	predicted           float64
	speedup, efficiency float64
	comp, comm, wait    float64 // shares of the ranks' summed time
}

// sweepRows computes the table: speedup and efficiency against the row
// with the fewest ranks.
func sweepRows(reps []mpi.Report) []sweepRow {
	base := 0
	for i, r := range reps {
		if r.Ranks < reps[base].Ranks {
			base = i
		}
	}
	rows := make([]sweepRow, len(reps))
	for i, r := range reps {
		row := sweepRow{ranks: r.Ranks, predicted: r.Predicted}
		if r.Predicted > 0 {
			row.speedup = reps[base].Predicted / r.Predicted
			row.efficiency = row.speedup * float64(reps[base].Ranks) / float64(r.Ranks)
		}
		n := float64(r.Ranks)
		if total := n * (r.Computation.Mean + r.Communication.Mean + r.Waiting.Mean); total > 0 {
			row.comp = n * r.Computation.Mean / total
			row.comm = n * r.Communication.Mean / total
			row.wait = n * r.Waiting.Mean / total
		}
		rows[i] = row
	}
	return rows
}

// writeSweep prints the sweep's table.
func writeSweep(w io.Writer, reps []mpi.Report) {
	fmt.Fprintf(w, "gompi sweep: machine %s, cpu-scale %g\n", reps[0].Machine, reps[0].CPUScale)
	fmt.Fprintf(w, "  %9s  %12s  %8s  %10s  %11s  %13s  %7s\n", "ranks", "predicted", "speedup", "efficiency", "computation", "communication", "waiting")
	for _, r := range sweepRows(reps) {
		fmt.Fprintf(w, "  %9d  %12s  %8.3f  %9.1f%%  %10.1f%%  %12.1f%%  %6.1f%%\n",
			r.ranks, seconds(r.predicted), r.speedup, 100*r.efficiency, 100*r.comp, 100*r.comm, 100*r.wait)
	}
}

// seconds prints t with a unit that keeps four significant digits.
func seconds(t float64) string {
	switch {
	case t >= 1:
		return strconv.FormatFloat(t, 'f', 3, 64) + " s"
	case t >= 1e-3:
		return strconv.FormatFloat(t*1e3, 'f', 3, 64) + " ms"
	default:
		return strconv.FormatFloat(t*1e6, 'f', 3, 64) + " us"
	}
}

// writeSweepJSON writes the reports as a JSON array, in sweep order.
func writeSweepJSON(file string, reps []mpi.Report) error {
	if len(reps) == 0 {
		return errors.New("no prediction to write")
	}
	data, err := json.MarshalIndent(reps, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o666)
}
