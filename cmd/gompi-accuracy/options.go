package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gompi/gompi/vtime"
)

const usageLine = "usage: gompi-accuracy [-kernels ep,is,cg,mg,ft] [-class A] [-runs 5] [-np 2] [-cases LIST] [-rates 1gbit,200mbit] [-machine FILE] [-net-machine RATE=FILE]... [-machine-dir DIR] [-bin DIR] [-timeout 10m] [-format text|markdown] [-o FILE.csv]"

// allKernels are the NAS kernels of npb-go, in the order rows are printed:
// the default of -kernels. The pseudo-applications (extraKernels) need
// square rank counts, so they run only when named, with such a -np.
var (
	allKernels   = []string{"ep", "is", "cg", "mg", "ft"}
	extraKernels = []string{"lu", "sp", "bt"}
)

// options are the parsed command line.
type options struct {
	kernels    []string
	class      string
	runs       int
	np         int
	rates      []string
	cases      []caseSpec
	machine    string            // -machine: the shared-memory target; "" = calibrate it
	netMachine map[string]string // rate -> machine file; a missing rate is calibrated
	machineDir string            // where calibrated machine files go; "" = the temp dir
	bin        string            // -bin: gompirun and the kernels, built elsewhere; "" = build them
	timeout    time.Duration     // per run (and per calibration)
	format     string            // text or markdown
	csvPath    string            // -o: the raw per-run times
}

// rateSyntax is a tc(8) rate in bits or bytes per second ("1gbit",
// "200mbit", "12.5mbps"); no "-", since the rate is part of a case name.
var rateSyntax = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([kmgt]?(bit|bps))$`)

// netMachineFlag collects -net-machine RATE=FILE, given once per rate or
// as a comma-separated list.
type netMachineFlag map[string]string

func (f netMachineFlag) String() string { return "" }

func (f netMachineFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		rate, file, ok := strings.Cut(item, "=")
		if !ok || rate == "" || file == "" {
			return fmt.Errorf("%q: want RATE=FILE", item)
		}
		if _, dup := f[rate]; dup {
			return fmt.Errorf("rate %s given twice", rate)
		}
		f[rate] = file
	}
	return nil
}

func parseOptions(args []string) (*options, error) {
	o := &options{netMachine: map[string]string{}}
	fs := flag.NewFlagSet("gompi-accuracy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kernels := fs.String("kernels", strings.Join(allKernels, ","), "NAS kernels to measure")
	fs.StringVar(&o.class, "class", "A", "NPB problem class: S, W, A, B or C")
	fs.IntVar(&o.runs, "runs", 5, "real runs and predictions per row (alternated)")
	fs.IntVar(&o.np, "np", 2, "ranks of the measured job")
	cases := fs.String("cases", "all", "cases to run: shm-1core, shm-2core, net-RATE-1core, net-RATE-2core, shm, net or all")
	rates := fs.String("rates", "1gbit,200mbit", "link rates of the network cases (tc syntax)")
	fs.StringVar(&o.machine, "machine", "", "machine file (or preset) for the shared-memory cases; default: gompirun -calibrate")
	fs.Var(netMachineFlag(o.netMachine), "net-machine", "RATE=FILE: machine file for the network cases at RATE; default: gompirun -calibrate")
	fs.StringVar(&o.machineDir, "machine-dir", "", "keep the calibrated machine files in this directory")
	fs.StringVar(&o.bin, "bin", "", "use gompirun and the kernels already built in this directory (for a host without Go)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "limit for each run; a run past it fails its row")
	fs.StringVar(&o.format, "format", "text", "table format: text or markdown")
	fs.StringVar(&o.csvPath, "o", "", "also write every run's time to this CSV file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.kernels, err = parseKernels(*kernels); err != nil {
		return nil, err
	}
	o.class = strings.ToUpper(o.class)
	if len(o.class) != 1 || !strings.Contains("SWABC", o.class) {
		return nil, fmt.Errorf("-class %q: want S, W, A, B or C", o.class)
	}
	if o.runs < 1 {
		return nil, fmt.Errorf("-runs %d: need at least one run", o.runs)
	}
	if err := checkRanks(o.np, o.kernels); err != nil {
		return nil, err
	}
	if o.rates, err = parseRates(*rates); err != nil {
		return nil, err
	}
	if o.cases, err = parseCases(*cases, o.rates); err != nil {
		return nil, err
	}
	for _, c := range o.cases {
		if c.Network() && o.np%2 != 0 {
			return nil, fmt.Errorf("-np %d: the network cases need an even number of ranks (half in each namespace)", o.np)
		}
	}
	for rate := range o.netMachine {
		if !slices.Contains(o.rates, rate) {
			return nil, fmt.Errorf("-net-machine %s: rate not in -rates %s", rate, strings.Join(o.rates, ","))
		}
	}
	if err := checkMachines(o); err != nil {
		return nil, err
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("-timeout %v: must be positive", o.timeout)
	}
	if o.format != "text" && o.format != "markdown" {
		return nil, fmt.Errorf("-format %q: want text or markdown", o.format)
	}
	return o, nil
}

func parseKernels(list string) ([]string, error) {
	var ks []string
	for _, k := range strings.Split(list, ",") {
		k = strings.ToLower(strings.TrimSpace(k))
		switch {
		case !slices.Contains(allKernels, k) && !slices.Contains(extraKernels, k):
			return nil, fmt.Errorf("-kernels: %q is not one of %s", k, strings.Join(append(slices.Clone(allKernels), extraKernels...), ","))
		case slices.Contains(ks, k):
			return nil, fmt.Errorf("-kernels: %s given twice", k)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// checkRanks rejects rank counts a kernel would refuse only after the
// build: IS, CG and FT need a power of two, SP a square.
func checkRanks(np int, kernels []string) error {
	if np < 2 {
		return fmt.Errorf("-np %d: need at least 2 ranks (a prediction of one rank has no communication)", np)
	}
	if s := int(math.Sqrt(float64(np))); s*s != np {
		for _, k := range []string{"sp", "bt"} {
			if slices.Contains(kernels, k) {
				return fmt.Errorf("-np %d: %s needs a square number of ranks (4, 9, 16, ...)", np, k)
			}
		}
	}
	if !luGrid(np) && slices.Contains(kernels, "lu") {
		return fmt.Errorf("-np %d: lu needs a count that factors as x*y with y <= x <= 2y (2, 4, 6, 8, 9, ...)", np)
	}
	if np&(np-1) != 0 {
		for _, k := range kernels {
			if k == "is" || k == "cg" || k == "ft" {
				return fmt.Errorf("-np %d: %s needs a power of two", np, k)
			}
		}
	}
	return nil
}

// luGrid reports whether NPB 3.4 LU can lay np ranks out (its proc_grid).
func luGrid(np int) bool {
	for y := 1; y*y <= np; y++ {
		if np%y == 0 && np/y <= 2*y {
			return true
		}
	}
	return false
}

func parseRates(list string) ([]string, error) {
	var rs []string
	for _, r := range strings.Split(list, ",") {
		r = strings.TrimSpace(r)
		switch {
		case !rateSyntax.MatchString(r) || !positiveRate(r):
			return nil, fmt.Errorf("-rates: %q is not a rate like 1gbit or 200mbit", r)
		case slices.Contains(rs, r):
			return nil, fmt.Errorf("-rates: %s given twice", r)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// positiveRate tells whether the number of a rate that matches rateSyntax
// is above zero (tc refuses a rate of 0).
func positiveRate(r string) bool {
	v, err := strconv.ParseFloat(strings.TrimRight(r, "kmgtbips"), 64)
	return err == nil && v > 0
}

// checkMachines loads every machine file given, so that a bad one is a
// usage error before anything is built.
func checkMachines(o *options) error {
	if o.machine != "" {
		if _, err := vtime.LoadMachine(o.machine); err != nil {
			return fmt.Errorf("-machine: %v", err)
		}
	}
	for rate, file := range o.netMachine {
		if _, err := vtime.LoadMachine(file); err != nil {
			return fmt.Errorf("-net-machine %s: %v", rate, err)
		}
	}
	return nil
}
