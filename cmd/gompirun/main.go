// Command gompirun runs an MPI program written with gompi as a job of
// several processes:
//
//	gompirun -np N [options] PROGRAM [ARGS...]
//
// PROGRAM is an executable, a command in PATH, or a Go package (a directory
// such as ./samples/ring, or an import path) that gompirun builds first.
// See docs/gompirun.md (the man page source) for every option.
//
//go:generate go run ../../internal/mangen ../../docs/gompirun.md ../../docs/gompirun.1
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gompi/gompi/vtime"
)

// defaultMachine is the target of -virtual without -machine.
var defaultMachine = vtime.DefaultPreset

const usageLine = "usage: gompirun -np N [-ranks P | -virtual P [-machine M] [-cpu-scale F] [-report FILE]] [-tag-output] [-timeout D] PROGRAM [ARGS...]"

// options are the parsed command line.
type options struct {
	np      int
	ranks   int
	tag     bool
	timeout time.Duration
	prog    string
	args    []string

	// Virtual time (-virtual P): P ranks over the np processes, the
	// execution time predicted for a target machine.
	virtual     int
	machine     string
	cpuScale    float64
	cpuScaleSet bool
	report      string
	virt        *virtualRun
}

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("gompirun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.np, "np", 1, "number of processes")
	fs.IntVar(&o.np, "n", 1, "same as -np")
	fs.IntVar(&o.ranks, "ranks", 0, "total ranks, placed in contiguous blocks over the processes (default: one per process)")
	fs.BoolVar(&o.tag, "tag-output", false, "prefix every output line with the rank(s) that wrote it")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the job after this long (0: no limit)")
	fs.IntVar(&o.virtual, "virtual", 0, "virtual time: P ranks over the processes, execution time predicted for -machine")
	fs.StringVar(&o.machine, "machine", "", "target machine: a preset name or a JSON machine file (default "+defaultMachine+")")
	fs.Float64Var(&o.cpuScale, "cpu-scale", 1, "multiply measured computation by this (0: ignore it)")
	fs.StringVar(&o.report, "report", "", "also write the prediction report as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "cpu-scale" {
			o.cpuScaleSet = true
		}
	})
	if fs.NArg() == 0 {
		return nil, errors.New("no program given")
	}
	o.prog, o.args = fs.Arg(0), fs.Args()[1:]
	if o.np < 1 {
		return nil, fmt.Errorf("-np %d: need at least one process", o.np)
	}
	if o.virtual != 0 {
		if o.ranks != 0 {
			return nil, fmt.Errorf("-ranks and -virtual both given: -virtual P sets the number of ranks")
		}
		if o.virtual < o.np {
			return nil, fmt.Errorf("-virtual %d: need at least one rank per process (-np %d)", o.virtual, o.np)
		}
		o.ranks = o.virtual
	}
	if o.ranks == 0 {
		o.ranks = o.np
	}
	var err error
	if o.virt, err = prepareVirtual(o); err != nil {
		return nil, err
	}
	if o.ranks < o.np {
		return nil, fmt.Errorf("-ranks %d: need at least one rank per process (-np %d)", o.ranks, o.np)
	}
	if o.timeout < 0 {
		return nil, fmt.Errorf("-timeout %v: must not be negative", o.timeout)
	}
	return o, nil
}

func main() {
	o, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Println(usageLine)
		fmt.Println("see docs/gompirun.md or man gompirun")
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v (%s)\n", err, usageLine)
		os.Exit(2)
	}
	exe, err := resolve(o.prog)
	if err != nil {
		var be *buildError
		if errors.As(err, &be) {
			os.Stderr.Write(be.output)
		}
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		os.Exit(2)
	}
	os.Exit(run(o, exe))
}
