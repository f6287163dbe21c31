package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// machines returns the machine file of every case that is not skipped,
// by rate ("" for shared memory): the one given, or one calibrated now.
// A case whose machine cannot be had is skipped with the reason.
func (h *harness) machines(ctx context.Context, rep *report, skip map[string]string) map[string]string {
	o := h.opts
	need := map[string][]string{} // rate -> the cases that need its machine
	for _, c := range o.cases {
		if _, skipped := skip[c.Name]; !skipped {
			need[c.Rate] = append(need[c.Rate], c.Name)
		}
	}
	dir := h.tmp
	if o.machineDir != "" {
		dir = o.machineDir
	}
	files, toldNoCalibrate := map[string]string{}, false
	for _, rate := range append([]string{""}, o.rates...) {
		if len(need[rate]) == 0 || ctx.Err() != nil {
			continue
		}
		given := o.machine
		if rate != "" {
			given = o.netMachine[rate]
		}
		if given != "" {
			files[rate] = given
			continue
		}
		file := filepath.Join(dir, "machine-shm.json")
		err := os.MkdirAll(dir, 0o755)
		if toldNoCalibrate {
			err = errNoCalibrate // no use asking again
		}
		var c command
		if err == nil && rate == "" {
			c = calibrateCommand(h.tools, nil, file)
		} else if err == nil {
			file = filepath.Join(dir, "machine-net-"+rate+".json")
			c = calibrateCommand(h.tools, &h.net.plan, file)
			err = h.net.setRate(ctx, rate)
		}
		if err == nil {
			fmt.Fprintf(h.log, "gompi-accuracy: calibrating: %s\n", c.show(h.tmp))
			if err = calibrate(ctx, c, file, o.timeout); err == nil {
				files[rate] = file
				rep.Calibrations = append(rep.Calibrations, c.show(h.tmp))
				continue
			}
		}
		if !errors.Is(err, errNoCalibrate) || !toldNoCalibrate {
			fmt.Fprintf(h.log, "gompi-accuracy: %s skipped: %v\n", strings.Join(need[rate], ", "), err)
		}
		toldNoCalibrate = toldNoCalibrate || errors.Is(err, errNoCalibrate)
		for _, name := range need[rate] {
			skip[name] = err.Error()
		}
	}
	return files
}

// measureRow alternates the real runs of kernel with its predictions, as
// many of each as -runs, so that both see the same load. The first run
// that fails ends the row, which then says why.
func (h *harness) measureRow(ctx context.Context, c caseSpec, kernel, machine string) row {
	o := h.opts
	r := row{Case: c.Name, Kernel: strings.ToUpper(kernel)}
	if c.Network() {
		if err := h.net.setRate(ctx, c.Rate); err != nil {
			r.Why = err.Error()
			return r
		}
	}
	sides := []struct {
		name  string
		cmd   command
		times *[]float64
	}{
		{"real", realCommand(h.tools, c, h.planOrNil(), kernel, o.class, o.np), &r.Real},
		{"predicted", predictedCommand(h.tools, c, machine, kernel, o.class, o.np), &r.Pred},
	}
	for i := 1; i <= o.runs; i++ {
		for _, s := range sides {
			t, err := h.once(ctx, s.cmd)
			h.csv.add(c, kernel, o.class, o.np, s.name, i, t, err)
			if err == errInterrupted {
				r.Why = fmt.Sprintf("interrupted during %s run %d", s.name, i)
				return r
			}
			if err != nil {
				r.Why = fmt.Sprintf("failed: %s run %d: %v", s.name, i, err)
				fmt.Fprintf(h.log, "%s %s: %s\n", c.Name, kernel, r.Why)
				return r
			}
			*s.times = append(*s.times, t)
			fmt.Fprintf(h.log, "%s %s %s %d/%d: %.2f s\n", c.Name, kernel, s.name, i, o.runs, t)
		}
	}
	return r
}

// once runs one job and reads its NPB time. A kernel that fails
// verification exits non-zero: the row then says that, rather than only
// the exit status.
func (h *harness) once(ctx context.Context, c command) (float64, error) {
	out, err := execute(ctx, c, h.opts.timeout)
	if err != nil {
		if _, perr := parseNPB(out); err != errInterrupted && perr != nil && strings.HasPrefix(perr.Error(), "Verification =") {
			return 0, perr
		}
		return 0, err
	}
	return parseNPB(out)
}

// loadAverage is the host's 1, 5 and 15 minute load averages.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
