package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gompi/gompi/vtime"
)

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
