package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// Record and replay (docs/replay.md). -record DIR makes every process of a
// -virtual run write its ranks' calls and computation bursts into DIR
// (mpi.Virtual.Record); -replay DIR predicts the recorded program on
// -machine M, or on each of several machines with a comparison table,
// without running it. A replay runs in gompirun's own process: it is one
// in-process virtual world per machine.

// replayRun is what -replay asks for.
type replayRun struct {
	dir      string
	machines []*vtime.Machine // nil entry: the recording's machine
	cpuScale float64
	scaleSet bool
	report   string
}

// prepareRecord checks -record: it needs one prediction to record.
func prepareRecord(o *options, set map[string]bool) error {
	if !set["record"] {
		return nil
	}
	if o.record == "" {
		return errors.New("-record: empty directory name")
	}
	if !set["virtual"] || o.sweep != nil {
		return errors.New("-record DIR records one prediction: it needs -virtual P (not a list)")
	}
	abs, err := filepath.Abs(o.record)
	if err != nil {
		return fmt.Errorf("-record: %v", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("-record: %v", err)
	}
	o.record = abs // the processes may start elsewhere
	return nil
}

// recordEnv is what -record adds to every process's environment.
func (o *options) recordEnv() []string {
	if o.record == "" {
		return nil
	}
	return []string{launch.EnvRecord + "=" + o.record}
}

// parseReplay checks -replay's options: no program, no job, and -machine
// a machine or a comma-separated list of them.
func parseReplay(o *options, set map[string]bool, nargs int) (*replayRun, error) {
	for _, opt := range []string{"np", "n", "ranks", "virtual", "record", "trace", "trace-ranks", "trace-max", "plot",
		"hosts", "hostfile", "launcher", "iface", "tag-output", "calibrate", "contention-kernel", "x", "genv", "timeout"} {
		if set[opt] {
			return nil, fmt.Errorf("-replay predicts a record without running anything: -%s does not apply", opt)
		}
	}
	if nargs > 0 {
		return nil, errors.New("-replay takes no program: the record is the program")
	}
	if !(o.cpuScale >= 0) || o.cpuScale > 1e300 {
		return nil, fmt.Errorf("-cpu-scale %v: want a number >= 0", o.cpuScale)
	}
	rr := &replayRun{dir: o.replay, cpuScale: o.cpuScale, scaleSet: set["cpu-scale"], report: o.report}
	if !set["machine"] {
		rr.machines = []*vtime.Machine{nil}
	} else {
		for _, spec := range strings.Split(o.machine, ",") {
			m, err := vtime.LoadMachine(strings.TrimSpace(spec))
			if err != nil {
				return nil, fmt.Errorf("-machine: %v", err)
			}
			rr.machines = append(rr.machines, m)
		}
	}
	if rr.report != "" {
		if err := checkWritable(rr.report); err != nil {
			return nil, fmt.Errorf("-report: %v", err)
		}
	}
	return rr, nil
}

// runReplay replays the record on each machine and prints the report (one
// machine) or the comparison table (several) on w.
func runReplay(rr *replayRun, w io.Writer) int {
	rec, err := mpi.OpenRecording(rr.dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: -replay: %v\n", err)
		return 2
	}
	scale := rec.CPUScale()
	if rr.scaleSet {
		scale = rr.cpuScale
	}
	var reps []mpi.Report
	for _, m := range rr.machines {
		if m == nil {
			m = rec.Machine()
		}
		if _, err := m.Place(rec.Ranks()); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -machine %s cannot host the record's %d ranks: %v\n", m.Name, rec.Ranks(), err)
			return 2
		}
		if len(rr.machines) > 1 {
			fmt.Fprintf(w, "gompirun: replaying on %s\n", m.Name)
		}
		v, err := rec.Replay(m, scale)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -replay: %v\n", err)
			return 1
		}
		rep := v.Report()
		reps = append(reps, rep)
		if len(rr.machines) == 1 {
			if err := rep.WriteText(w); err != nil {
				fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
				return 1
			}
		}
	}
	if len(reps) > 1 {
		writeComparison(w, reps)
	}
	fmt.Fprintf(w, "gompi replay: %s, recorded on %s with %d ranks at cpu-scale %g, replayed at cpu-scale %g\n",
		rr.dir, rec.Machine().Name, rec.Ranks(), rec.CPUScale(), scale)
	if n := rec.TimingDependent(); n > 0 {
		fmt.Fprintf(w, "gompi replay: %d calls whose outcome depended on timing (AnySource, probes, tests, Waitany) replayed the recorded matching and outcomes\n", n)
	}
	if rr.report != "" {
		if err := writeReplayJSON(rr.report, reps); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -report: %v\n", err)
			return 1
		}
	}
	return 0
}

// writeComparison prints one row per machine: the predicted time, its
// ratio to the first machine's, and where the time goes (shares of the
// ranks' summed time, as the sweep's table).
func writeComparison(w io.Writer, reps []mpi.Report) {
	fmt.Fprintf(w, "gompi what-if: %d ranks, cpu-scale %g\n", reps[0].Ranks, reps[0].CPUScale)
	fmt.Fprintf(w, "  %-24s  %12s  %8s  %11s  %13s  %7s\n", "machine", "predicted", "relative", "computation", "communication", "waiting")
	rows := sweepRows(reps)
	for i, rep := range reps {
		rel := 0.0
		if reps[0].Predicted > 0 {
			rel = rep.Predicted / reps[0].Predicted
		}
		fmt.Fprintf(w, "  %-24s  %12s  %8.3f  %10.1f%%  %12.1f%%  %6.1f%%\n",
			rep.Machine, seconds(rep.Predicted), rel, 100*rows[i].comp, 100*rows[i].comm, 100*rows[i].wait)
	}
}

// writeReplayJSON writes the report (one machine) or the array of reports.
func writeReplayJSON(file string, reps []mpi.Report) error {
	var v any = reps
	if len(reps) == 1 {
		v = reps[0]
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}
