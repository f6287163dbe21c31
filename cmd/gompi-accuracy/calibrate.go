package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gompi/gompi/vtime"
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

// errNoCalibrate says that the gompirun built from this tree cannot
// measure a machine file yet, so the harness needs one given.
var errNoCalibrate = errors.New("gompirun has no -calibrate: give the machine files (-machine FILE, -net-machine RATE=FILE)")

// calibrate runs c, a calibrateCommand writing file, and checks that the
// file is a machine gompirun will take.
func calibrate(ctx context.Context, c command, file string, timeout time.Duration) error {
	out, err := execute(ctx, c, timeout)
	if err != nil {
		if bytes.Contains(out, []byte("flag provided but not defined: -calibrate")) {
			return errNoCalibrate
		}
		return fmt.Errorf("calibration failed: %v", err)
	}
	if _, err := vtime.LoadMachine(file); err != nil {
		return fmt.Errorf("calibration wrote no usable machine file: %v", err)
	}
	return nil
}
