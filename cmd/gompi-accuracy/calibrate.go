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
	need := map[string][]string{} // rate -> the cases that need its machine
	for _, c := range h.opts.cases {
		if _, skipped := skip[c.Name]; !skipped {
			need[c.Rate] = append(need[c.Rate], c.Name)
		}
	}
	files, noCalibrate := map[string]string{}, false
	for _, rate := range append([]string{""}, h.opts.rates...) {
		if len(need[rate]) == 0 || ctx.Err() != nil {
			continue
		}
		file, shown, err := h.machineFor(ctx, rate, noCalibrate)
		if err == nil {
			files[rate] = file
			if shown != "" {
				rep.Calibrations = append(rep.Calibrations, shown)
			}
			continue
		}
		if !errors.Is(err, errNoCalibrate) || !noCalibrate { // that one is said once
			fmt.Fprintf(h.log, "gompi-accuracy: %s skipped: %v\n", strings.Join(need[rate], ", "), err)
		}
		noCalibrate = noCalibrate || errors.Is(err, errNoCalibrate)
		for _, name := range need[rate] {
			skip[name] = err.Error()
		}
	}
	return files
}

// machineFor returns the machine file of the cases of rate: the one given,
// or one calibrated into -machine-dir (or the temporary directory) over
// this host or the link shaped to rate, with the calibration command as
// the report shows it. noCalibrate: gompirun was found to lack -calibrate.
func (h *harness) machineFor(ctx context.Context, rate string, noCalibrate bool) (file, shown string, err error) {
	o := h.opts
	given := o.machine
	if rate != "" {
		given = o.netMachine[rate]
	}
	if given != "" {
		return given, "", nil
	}
	if noCalibrate {
		return "", "", errNoCalibrate
	}
	dir := h.tmp
	if o.machineDir != "" {
		dir = o.machineDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	var c command
	if rate == "" {
		file = filepath.Join(dir, "machine-shm.json")
		c = calibrateCommand(h.tools, nil, file)
	} else {
		file = filepath.Join(dir, "machine-net-"+rate+".json")
		c = calibrateCommand(h.tools, &h.net.plan, file)
		if err := h.net.setRate(ctx, rate); err != nil {
			return "", "", err
		}
	}
	shown = c.show(h.tools.bin)
	fmt.Fprintf(h.log, "gompi-accuracy: calibrating: %s\n", shown)
	if err := calibrate(ctx, c, file, o.timeout); err != nil {
		return "", "", err
	}
	return file, shown, nil
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
