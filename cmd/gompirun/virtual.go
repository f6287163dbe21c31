package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// virtualRun is what -virtual adds to a job: the target machine, passed to
// every process, and the prediction report gompirun prints at the end.
type virtualRun struct {
	machine  *vtime.Machine
	cpuScale float64
	report   string      // -report FILE: the report as JSON too
	plot     string      // -plot FILE: the report drawn (plot.go)
	last     *mpi.Report // the report of the job that finished last (finish)
}

// prepareVirtual checks the virtual-time options (and loads the machine)
// before anything starts, so a bad machine file is a usage error.
func prepareVirtual(o *options) (*virtualRun, error) {
	if o.virtual == 0 {
		if o.machine != "" || o.cpuScaleSet || o.report != "" || o.plot != "" {
			return nil, fmt.Errorf("-machine, -cpu-scale, -report and -plot need -virtual P")
		}
		return nil, nil
	}
	if !(o.cpuScale >= 0) || math.IsInf(o.cpuScale, 1) {
		return nil, fmt.Errorf("-cpu-scale %v: want a number >= 0", o.cpuScale)
	}
	m, err := vtime.LoadMachine(o.machine)
	if err != nil {
		return nil, fmt.Errorf("-machine: %v", err)
	}
	for _, p := range append([]int{o.virtual}, o.sweep...) {
		if _, err := m.Place(p); err != nil {
			return nil, fmt.Errorf("-machine %s cannot host %d ranks: %v", m.Name, p, err)
		}
	}
	if o.report != "" {
		if err := checkWritable(o.report); err != nil {
			return nil, fmt.Errorf("-report: %v", err)
		}
	}
	if o.plot != "" {
		if err := checkPlot(o.plot); err != nil {
			return nil, err
		}
		if o.sweep == nil && o.virtual > maxPlotRanks {
			return nil, fmt.Errorf("-plot of one prediction draws a bar per rank, up to %d ranks (-virtual %d); a sweep's plot has no such limit", maxPlotRanks, o.virtual)
		}
	}
	return &virtualRun{machine: m, cpuScale: o.cpuScale, report: o.report, plot: o.plot}, nil
}

// checkWritable reports whether file can be written, without leaving
// behind a file that was not there: a bad -report path is found before the
// run, not after it.
func checkWritable(file string) error {
	_, statErr := os.Stat(file)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	f.Close()
	if os.IsNotExist(statErr) {
		os.Remove(file)
	}
	return nil
}

// printMachine writes a preset or machine file (spec, as -machine takes it)
// to w in the machine file format with every default spelt out, so that a
// user sees what the model uses (the eager limits among it) and can edit a
// copy: -print-machine.
func printMachine(spec string, w io.Writer) error {
	m, err := vtime.LoadMachine(spec)
	if err != nil {
		return fmt.Errorf("-print-machine: %v", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", m.JSON())
	return err
}

// procEnv is what -virtual, -calibrate, -trace, -x and -genv add to every
// process's environment (the user's last, so that they win over
// gompirun's own environment, which every process also gets).
func (o *options) procEnv() []string {
	var vars []string
	if o.virt != nil {
		vars = append(vars, o.virt.env()...)
	}
	if o.calib != nil {
		vars = append(vars, o.calib.env()...)
	}
	if o.trace != nil {
		vars = append(vars, o.trace.env()...)
	}
	vars = append(vars, o.recordEnv()...)
	vars = append(vars, o.env...) // -x, -genv
	return vars
}

// env is what every process of the job gets.
func (v *virtualRun) env() []string {
	return []string{
		launch.EnvMachine + "=" + string(v.machine.JSON()),
		launch.EnvCPUScale + "=" + strconv.FormatFloat(v.cpuScale, 'g', -1, 64),
	}
}

// finish merges the records every process published and prints the report
// on w (and as JSON to the -report file). partial, when the job did not
// finish, says why: the report is then of what the processes published
// when it stopped (mpi/virtual_partial.go), and a process that published
// nothing is named.
func (v *virtualRun) finish(ex *launch.Server, procs int, wall time.Duration, w io.Writer, partial string) error {
	var all []mpi.RankRecord
	var silent []string
	for p := 0; p < procs; p++ {
		s, ok := ex.Get(launch.VirtualKey(p))
		if !ok && partial != "" {
			silent = append(silent, strconv.Itoa(p))
			continue
		}
		if !ok {
			return fmt.Errorf("process %d published no virtual-time records", p)
		}
		rs, err := mpi.DecodeRankRecords(unsafe.Slice(unsafe.StringData(s), len(s))) // read only: no copy of a million ranks' records
		if err != nil {
			return fmt.Errorf("process %d: bad virtual-time records: %v", p, err)
		}
		if all == nil {
			all = rs // one process's records: no copy (millions of ranks)
		} else {
			all = append(all, rs...)
		}
	}
	if partial != "" && len(all) == 0 {
		return fmt.Errorf("no process published records before the job stopped")
	}
	rep := mpi.Summarize(v.machine.Name, v.cpuScale, all, wall.Seconds())
	if partial != "" && rep.Sent == 0 && len(rep.Unfinished) == len(all) {
		return nil // stopped before any rank sent a message or finished: nothing to report
	}
	if partial != "" {
		rep.Partial = partial
		if len(silent) > 0 {
			rep.Partial += "; no records from process " + strings.Join(silent, ", ")
		}
	}
	v.last = &rep
	if err := rep.WriteText(w); err != nil {
		return err
	}
	if v.plot != "" {
		if err := plotRanks(v.plot, &rep); err != nil {
			return fmt.Errorf("-plot: %v", err)
		}
	}
	if v.report == "" {
		return nil
	}
	f, err := os.Create(v.report)
	if err != nil {
		return err
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
