package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one (case, kernel) of the table.
type row struct {
	Case, Kernel string
	Real, Pred   []float64 // NPB "Time in seconds" of each run, in order
	// Mop/s total of each run (0 where a run printed none): the precise
	// measure of its time (precise.go).
	RealMops, PredMops []float64
	Why                string // set when the row has no figure: why ("failed: ...", "interrupted ..."), or is Partial
	// Partial: interrupted after some runs of each side; the figures are
	// those runs' and Why says so.
	Partial bool
}

// shownCase is a case's two commands, as the report prints them.
type shownCase struct{ Name, Real, Pred string }

// report is everything the harness prints: the table and what it takes
// to repeat it.
type report struct {
	Start                 time.Time
	LoadBefore, LoadAfter string
	Host                  string
	Class                 string
	NP, Runs              int
	Build                 string
	Network               []string // the ip and tc commands that made the link
	Calibrations          []string
	Commands              []shownCase
	Notes                 []string // skipped cases, with why
	Rows                  []row
}

// verdict is the error the harness exits with: interrupted, failed rows,
// or no row at all.
func (r *report) verdict(ctx context.Context) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	failed := 0
	for _, row := range r.Rows {
		if row.Why != "" {
			failed++
		}
	}
	switch {
	case len(r.Rows) == 0:
		return errors.New("nothing measured: every case was skipped")
	case failed > 0:
		return fmt.Errorf("%d of %d rows failed", failed, len(r.Rows))
	}
	return nil
}

// cells are a row's printed figures: median real, median predicted, RE,
// and the two spreads; all "-" when the row has none.
func (row row) cells() [5]string {
	realT, predT, digits := row.times()
	real, pred := summarize(realT), summarize(predT)
	if (row.Why != "" && !row.Partial) || real.N == 0 || pred.N == 0 {
		return [5]string{"-", "-", "-", "-", "-"}
	}
	re := "n/a"
	if v, ok := relativeError(pred.Median, real.Median); ok {
		re = fmt.Sprintf("%+.1f%%", 100*v)
	}
	f := "%." + strconv.Itoa(digits) + "f"
	return [5]string{
		fmt.Sprintf(f, real.Median), fmt.Sprintf(f, pred.Median), re,
		fmt.Sprintf(f+"-"+f, real.Min, real.Max), fmt.Sprintf(f+"-"+f, pred.Min, pred.Max),
	}
}

var header = [...]string{"case", "kernel", "real s", "predicted s", "RE", "real min-max", "predicted min-max"}

func (r *report) title() string {
	return fmt.Sprintf("NPB class %s, %d ranks: medians of %d real runs alternated with %d predictions, RE = predicted / real - 1",
		r.Class, r.NP, r.Runs, r.Runs)
}

func (r *report) write(w io.Writer, format string) {
	if format == "markdown" {
		r.writeMarkdown(w)
		return
	}
	fmt.Fprintf(w, "gompi-accuracy: %s\n", r.title())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	line("date", r.Start.Format("2006-01-02 15:04:05 MST"))
	line("host", r.Host)
	line("load average", "before "+r.LoadBefore+", after "+r.LoadAfter)
	line("built", r.Build)
	line("environment", "GOMAXPROCS and GOMPI_* unset (gompi's defaults) unless a command sets them")
	for i, s := range r.Network {
		line(firstOnly(i, "network"), s)
	}
	for i, s := range r.Calibrations {
		line(firstOnly(i, "calibrated"), s)
	}
	for _, c := range r.Commands {
		line(c.Name+" real", c.Real)
		line(c.Name+" predicted", c.Pred)
	}
	for _, n := range r.Notes {
		line("note", n)
	}
	tw.Flush()
	if len(r.Rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cols := header[:]
	if r.anyWhy() {
		cols = append(cols, "note")
	}
	line(cols...)
	for _, row := range r.Rows {
		c := row.cells()
		cells := []string{row.Case, row.Kernel, c[0], c[1], c[2], c[3], c[4]}
		if row.Why != "" {
			cells = append(cells, row.Why)
		}
		line(cells...)
	}
	tw.Flush()
}

func (r *report) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "%s.\nMeasured %s on %s, load average %s before and %s after.\n\n",
		r.title(), r.Start.Format("2006-01-02 15:04 MST"), r.Host, r.LoadBefore, r.LoadAfter)
	if len(r.Rows) == 0 {
		fmt.Fprintf(w, "No row measured.\n")
	}
	notes := r.anyWhy()
	cols := header[:]
	if notes {
		cols = append(cols, "note")
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cols, " | "))
	sep := "|---|---|" + strings.Repeat("---:|", len(header)-2) // figures align right
	if notes {
		sep += "---|"
	}
	fmt.Fprintln(w, sep)
	for _, row := range r.Rows {
		c := row.cells()
		cells := []string{row.Case, row.Kernel, c[0], c[1], c[2], c[3], c[4]}
		if notes {
			cells = append(cells, strings.ReplaceAll(row.Why, "|", `\|`))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	built := "what `" + r.Build + "` built"
	if dir, ok := strings.CutPrefix(r.Build, "given by -bin: "); ok {
		built = "the binaries given by `-bin " + dir + "`"
	}
	fmt.Fprintf(w, "\nCommands (K is the kernel; `$BIN` holds %s; GOMAXPROCS and GOMPI_* unset unless shown):\n\n", built)
	for _, s := range r.Network {
		fmt.Fprintf(w, "    %s\n", s)
	}
	for _, s := range r.Calibrations {
		fmt.Fprintf(w, "    %s\n", s)
	}
	for _, c := range r.Commands {
		fmt.Fprintf(w, "    %s    # %s, real\n    %s    # %s, predicted\n", c.Real, c.Name, c.Pred, c.Name)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%s", n)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
}

// firstOnly labels the first line of a group, leaving the others blank.
func firstOnly(i int, label string) string {
	if i == 0 {
		return label
	}
	return ""
}

// anyWhy tells whether a row has no figures or partial ones, so the
// table needs a note column to say why.
func (r *report) anyWhy() bool {
	for _, row := range r.Rows {
		if row.Why != "" {
			return true
		}
	}
	return false
}
