package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The two lines of NPB's result block (print_results) the harness reads;
// every kernel of npb-go prints them on rank 0, with the same layout as the
// Fortran reference.
var (
	timeLine   = regexp.MustCompile(`^\s*Time in seconds\s*=\s*(\S+)\s*$`)
	verifyLine = regexp.MustCompile(`^\s*Verification\s*=\s*(\S+)\s*$`)
	mopsLine   = regexp.MustCompile(`^\s*Mop/s total\s*=\s*(\S+)\s*$`)
)

// npbResult is what one run's result block says: its time, which NPB
// prints to two decimals, and its Mop/s total, which NPB computes from the
// same time unrounded (the kernel's operation count over that time) and
// prints to six or more significant digits; 0 when the line is missing.
type npbResult struct{ Seconds, Mops float64 }

// parseNPB returns the "Time in seconds" and "Mop/s total" of a kernel's
// output, or why the run does not count: no result block, or a
// verification that did not say SUCCESSFUL. In a prediction the kernel's
// timers run on virtual clocks, so the same lines hold the predicted time.
func parseNPB(out []byte) (npbResult, error) {
	seconds, verdict, mops := "", "", ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := timeLine.FindStringSubmatch(line); m != nil && seconds == "" {
			seconds = m[1]
		}
		if m := verifyLine.FindStringSubmatch(line); m != nil && verdict == "" {
			verdict = m[1]
		}
		if m := mopsLine.FindStringSubmatch(line); m != nil && mops == "" {
			mops = m[1]
		}
	}
	if seconds == "" {
		return npbResult{}, errors.New(`no "Time in seconds" line in the output`)
	}
	switch verdict {
	case "SUCCESSFUL":
	case "":
		return npbResult{}, errors.New(`no "Verification" line in the output`)
	default:
		return npbResult{}, fmt.Errorf("Verification = %s", verdict)
	}
	t, err := strconv.ParseFloat(seconds, 64)
	if err != nil || t < 0 || math.IsInf(t, 0) || math.IsNaN(t) {
		return npbResult{}, fmt.Errorf("Time in seconds = %q is not a time", seconds)
	}
	r := npbResult{Seconds: t}
	if v, err := strconv.ParseFloat(mops, 64); err == nil && v > 0 && !math.IsInf(v, 0) {
		r.Mops = v
	}
	return r, nil
}

// failureLine picks the line of a failed run's output that says why:
// gompirun's own one-line report when there is one, else the last
// non-blank line.
func failureLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "gompirun: ") {
			return strings.TrimSpace(lines[i])
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
