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
)

// parseNPB returns the "Time in seconds" of a kernel's output, or why the
// run does not count: no result block, or a verification that did not say
// SUCCESSFUL. In a prediction the kernel's timers run on virtual clocks, so
// the same line holds the predicted time.
func parseNPB(out []byte) (float64, error) {
	seconds, verdict := "", ""
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
	}
	if seconds == "" {
		return 0, errors.New(`no "Time in seconds" line in the output`)
	}
	switch verdict {
	case "SUCCESSFUL":
	case "":
		return 0, errors.New(`no "Verification" line in the output`)
	default:
		return 0, fmt.Errorf("Verification = %s", verdict)
	}
	t, err := strconv.ParseFloat(seconds, 64)
	if err != nil || t < 0 || math.IsInf(t, 0) || math.IsNaN(t) {
		return 0, fmt.Errorf("Time in seconds = %q is not a time", seconds)
	}
	return t, nil
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
