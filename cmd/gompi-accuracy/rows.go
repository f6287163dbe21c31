package main

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// measureRow alternates the real runs of kernel with its predictions, as
// many of each as -runs, so that both see the same load. The first run
// that fails ends the row, which then says why.
func (h *harness) measureRow(ctx context.Context, c caseSpec, kernel, machine string) row {
	o := h.opts
	r := row{Case: c.Name, Kernel: strings.ToUpper(kernel)}
	if c.Network() {
		if err := h.net.setRate(ctx, c.Rate); err != nil {
			r.Why = "failed: " + err.Error()
			return r
		}
	}
	sides := []struct {
		name  string
		cmd   command
		times *[]float64
		mops  *[]float64
	}{
		{"real", realCommand(h.tools, c, h.planOrNil(), kernel, o.class, o.np), &r.Real, &r.RealMops},
		{"predicted", predictedCommand(h.tools, c, machine, kernel, o.class, o.np), &r.Pred, &r.PredMops},
	}
	for i := 1; i <= o.runs; i++ {
		for _, s := range sides {
			res, err := h.once(ctx, s.cmd)
			h.csv.add(c, kernel, o.class, o.np, s.name, i, res, err)
			if err == errInterrupted {
				r.Why = fmt.Sprintf("interrupted during %s run %d", s.name, i)
				if n := r.keepCompletePairs(); n > 0 {
					r.Partial = true
					r.Why += fmt.Sprintf(": medians of the %d runs of each side before", n)
				}
				return r
			}
			if err != nil {
				r.Why = fmt.Sprintf("failed: %s run %d: %v", s.name, i, err)
				fmt.Fprintf(h.log, "%s %s: %s\n", c.Name, kernel, r.Why)
				return r
			}
			*s.times = append(*s.times, res.Seconds)
			*s.mops = append(*s.mops, res.Mops)
			fmt.Fprintf(h.log, "%s %s %s %d/%d: %.2f s, %.2f Mop/s\n", c.Name, kernel, s.name, i, o.runs, res.Seconds, res.Mops)
		}
	}
	return r
}

// keepCompletePairs drops a real run whose prediction did not run, so
// that an interrupted row's figures still come from alternated runs, and
// returns how many pairs are left.
func (r *row) keepCompletePairs() int {
	n := min(len(r.Real), len(r.Pred))
	r.Real, r.Pred = r.Real[:n], r.Pred[:n]
	r.RealMops, r.PredMops = r.RealMops[:min(n, len(r.RealMops))], r.PredMops[:min(n, len(r.PredMops))]
	return n
}

// once runs one job and reads its NPB time. A kernel that fails
// verification exits non-zero: the row then says that, rather than only
// the exit status.
func (h *harness) once(ctx context.Context, c command) (npbResult, error) {
	out, err := execute(ctx, c, h.opts.timeout)
	if err != nil {
		if _, perr := parseNPB(out); err != errInterrupted && perr != nil && strings.HasPrefix(perr.Error(), "Verification =") {
			return npbResult{}, perr
		}
		return npbResult{}, err
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
