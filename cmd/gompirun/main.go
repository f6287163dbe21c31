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
	"runtime/debug"
	"strings"
	"time"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/internal/record"
	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/vtime"
)

// defaultMachine is the target of -virtual without -machine.
var defaultMachine = vtime.DefaultPreset

const usageLine = "usage: gompirun -np N [-ranks P | -virtual P[,P...] [-machine M] [-cpu-scale F] [-report FILE] [-plot FILE] [-progress D] [-record DIR]] [-trace FILE] [-timeline FILE] [-trace-ranks R] [-trace-max N] [-hosts H[:N],... | -hostfile F] [-launcher ssh|fork|CMD] [-iface I] [-tag-output] [-timeout D] [-x VAR[=VALUE]]... [-genv VAR VALUE]... PROGRAM [ARGS...]" +
	" | gompirun -calibrate FILE [-contention-kernel compute|memory|mixed] [-hosts H[:N],... | -hostfile F] [-launcher L] [-iface I]" +
	" | gompirun -replay DIR [-machine M[,M...]] [-cpu-scale F] [-report FILE] | gompirun -compact DIR [-tolerance F] [-stretches N] | gompirun -print-machine NAME|FILE"

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
	sweep       []int // -virtual P1,P2,...: one prediction each (sweep.go); nil for one P
	machine     string
	cpuScale    float64
	cpuScaleSet bool
	report      string
	plot        string
	virt        *virtualRun

	// -record DIR: the processes record their ranks' calls there;
	// -replay DIR: predict that record instead of running a program
	// (replay.go).
	record string
	replay string
	rep    *replayRun
	// -compact DIR [-tolerance F] [-stretches N]: group a record's alike
	// ranks (compact.go).
	compact   string
	tolerance float64
	stretches int

	// -trace FILE: the timeline (trace.go); nil otherwise.
	traceFile string
	timeline  string // -timeline FILE (timeline.go)
	// -progress (progress.go): the interval of progress lines, and
	// whether it was given (the default depends on the terminal).
	progress    time.Duration
	progressSet bool
	trace       *traceRun

	version bool     // -version: print it and exit
	env     []string // -x and -genv: NAME=VALUE for every process (userenv.go)

	// -print-machine NAME|FILE: print that machine as a file and exit.
	printMachine    string
	printMachineSet bool

	// Jobs spanning hosts (-hosts, -hostfile): hostOf[i] indexes hosts
	// for process i; nil without a host list (everything local).
	hosts    []launch.Host
	hostOf   []int
	launcher string
	iface    string

	// -calibrate FILE: measure this machine and write its machine file
	// (calibrate.go); nil otherwise.
	calib *calibration
}

// helpText is the -h / --help output: the usage line and every option, a
// line or two each.
var helpText string

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("gompirun", flag.ContinueOnError)
	defer func() { helpText = usageText(fs) }()
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.np, "np", 1, "number of processes")
	fs.IntVar(&o.np, "n", 1, "same as -np")
	fs.IntVar(&o.ranks, "ranks", 0, "total ranks, placed in contiguous blocks over the processes (default: one per process)")
	fs.BoolVar(&o.tag, "tag-output", false, "prefix every output line with the rank(s) that wrote it")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the job after this long (0: no limit)")
	virtual := fs.String("virtual", "", "virtual time: P ranks over the processes, execution time predicted for -machine; a list P1,P2,... predicts each and prints a table")
	fs.StringVar(&o.machine, "machine", "", "target machine: a preset name or a JSON machine file (default "+defaultMachine+")")
	fs.Float64Var(&o.cpuScale, "cpu-scale", 1, "multiply measured computation by this (0: ignore it)")
	fs.StringVar(&o.report, "report", "", "also write the prediction report as JSON to this file")
	fs.StringVar(&o.record, "record", "", "-virtual: record each rank's MPI calls and computation into this directory, for -replay")
	fs.StringVar(&o.compact, "compact", "", "group the ranks of this record (-record) whose computation is alike within -tolerance, keeping one computation vector per group")
	fs.Float64Var(&o.tolerance, "tolerance", defaultTolerance, "-compact: how far, relative, a rank's computation may be from its group leader's")
	fs.IntVar(&o.stretches, "stretches", record.DefaultStretches, "-compact: stretches of the run over which computation is compared, and kept per member")
	fs.StringVar(&o.replay, "replay", "", "predict the program recorded in this directory (-record) on -machine, without running it; -machine A,B,... compares machines")
	fs.StringVar(&o.traceFile, "trace", "", "write the timeline of the run to this file in the Chrome trace event format (virtual or host time)")
	fs.DurationVar(&o.progress, "progress", 0, "-virtual: print how far the run has got at this interval (default 10s when stderr is a terminal; 0: never)")
	fs.StringVar(&o.timeline, "timeline", "", "draw the timeline of the traced ranks (at most 64) to this .svg or .png file")
	traceRanks := fs.String("trace-ranks", "all", "-trace: the ranks traced, such as 0-15,32")
	traceMax := fs.Int("trace-max", defaultTraceMax, "-trace: the most events kept (shared by the traced ranks); past it the trace is truncated")
	fs.StringVar(&o.plot, "plot", "", "also draw the prediction to this .svg or .png file: a sweep's time and breakdown against P, or one run's ranks")
	var xs, genvs envList
	fs.Var(&xs, "x", "VAR or VAR=VALUE: set VAR in every rank's environment, on every host (repeatable)")
	fs.Var(&genvs, "genv", "VAR VALUE: set VAR to VALUE in every rank's environment, on every host (repeatable)")
	fs.BoolVar(&o.version, "version", false, "print gompirun's version (module version, commit, Go) and exit")
	fs.StringVar(&o.printMachine, "print-machine", "", "print a machine preset or file as a machine file, every default spelt out, and exit")
	hostList := fs.String("hosts", "", "hosts to run on: host[:slots],...")
	hostfile := fs.String("hostfile", "", "file of hosts to run on, one host[:slots] or 'host slots=N' a line")
	fs.StringVar(&o.launcher, "launcher", "ssh", "how to start the proxy on other hosts: ssh, fork, or a command prefix")
	fs.StringVar(&o.iface, "iface", "", "interface (or IP address) at which other hosts reach gompirun")
	calib := &calibration{}
	fs.StringVar(&calib.file, "calibrate", "", "measure this machine and write its machine file here (- for standard output)")
	fs.StringVar(&calib.kernel, "contention-kernel", "mixed", "-calibrate: contention factors written: compute, memory or mixed")
	fs.BoolVar(&calib.quick, "calibrate-quick", false, "") // tests: few repetitions
	args, err := joinGenv(fs, args)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.env, err = userEnv(xs, genvs); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["version"] {
		if len(set) > 1 || fs.NArg() > 0 {
			return nil, errors.New("-version prints the version and exits: it takes no other option and no program")
		}
		return o, nil
	}
	if set["compact"] {
		return o, checkCompact(o, set, fs.NArg())
	}
	if set["tolerance"] || set["stretches"] {
		return nil, errors.New("-tolerance and -stretches go with -compact DIR")
	}
	if set["replay"] {
		if o.replay == "" {
			return nil, errors.New("-replay: empty directory name")
		}
		if o.rep, err = parseReplay(o, set, fs.NArg()); err != nil {
			return nil, err
		}
		return o, nil
	}
	if set["virtual"] {
		var err error
		if o.virtual, o.sweep, err = parseVirtual(*virtual); err != nil {
			return nil, fmt.Errorf("-virtual %s: %v", *virtual, err)
		}
	}
	o.cpuScaleSet = set["cpu-scale"]
	if o.progressSet = set["progress"]; o.progressSet {
		if o.progress < 0 {
			return nil, fmt.Errorf("-progress %v: want an interval, or 0 for none", o.progress)
		}
		if !set["virtual"] {
			return nil, errors.New("-progress reports a virtual run: it needs -virtual")
		}
	}
	if o.printMachineSet = set["print-machine"]; o.printMachineSet {
		if len(set) > 1 || fs.NArg() > 0 {
			return nil, errors.New("-print-machine prints a machine and exits: it takes no other option and no program")
		}
		return o, nil
	}
	if err := parseHosts(o, *hostList, *hostfile, set); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		o.prog, o.args = fs.Arg(0), fs.Args()[1:]
	}
	if set["calibrate"] {
		o.calib = calib
	}
	if err := prepareCalibration(o, set); err != nil {
		return nil, err
	}
	if o.prog == "" {
		return nil, errors.New("no program given")
	}
	if err := sizeJob(o, set); err != nil {
		return nil, err
	}
	if o.trace, err = prepareTrace(o, *traceRanks, *traceMax, set); err != nil {
		return nil, err
	}
	if err := prepareRecord(o, set); err != nil {
		return nil, err
	}
	if o.timeout < 0 {
		return nil, fmt.Errorf("-timeout %v: must not be negative", o.timeout)
	}
	return o, nil
}

// sizeJob checks -np, -ranks and -virtual against each other and this
// host, and sets o.ranks (and o.virt for a virtual run).
func sizeJob(o *options, set map[string]bool) error {
	if o.np < 1 {
		return fmt.Errorf("-np %d: need at least one process", o.np)
	}
	if o.hosts == nil {
		if err := checkProcs(o.np, 1, hostMemory()); err != nil {
			return err
		}
	}
	switch {
	case set["ranks"] && o.ranks < 1:
		return fmt.Errorf("-ranks %d: need at least one rank", o.ranks)
	}
	if set["virtual"] {
		if set["ranks"] {
			return fmt.Errorf("-ranks and -virtual both given: -virtual P sets the number of ranks")
		}
		for _, p := range append([]int{o.virtual}, o.sweep...) {
			if p < o.np {
				return fmt.Errorf("-virtual %d: need at least one rank per process (-np %d)", p, o.np)
			}
		}
		o.ranks = o.virtual
	}
	if o.ranks == 0 {
		o.ranks = o.np
	}
	largest := o.ranks
	for _, p := range o.sweep {
		largest = max(largest, p) // a sweep must fit at its largest P
	}
	if err := checkSizes(largest, o.np, hostMemory()); err != nil {
		return err
	}
	var err error
	if o.virt, err = prepareVirtual(o); err != nil {
		return err
	}
	if o.ranks < o.np {
		return fmt.Errorf("-ranks %d: need at least one rank per process (-np %d)", o.ranks, o.np)
	}
	return nil
}

// parseHosts reads -hosts or -hostfile into o. Without -np, the job has
// one process per slot (as Open MPI does).
func parseHosts(o *options, list, file string, set map[string]bool) error {
	var err error
	switch {
	case list == "" && file == "" && (set["launcher"] || set["iface"]):
		return errors.New("-launcher and -iface need -hosts or -hostfile")
	case list != "" && file != "":
		return errors.New("-hosts and -hostfile both given: use one")
	case list != "":
		o.hosts, err = launch.ParseHosts(list)
	case file != "":
		o.hosts, err = launch.ReadHostfile(file)
	default:
		return nil
	}
	if err != nil {
		return err
	}
	if strings.TrimSpace(o.launcher) == "" {
		return errors.New("-launcher: empty; want ssh, fork or a command prefix")
	}
	if !set["np"] && !set["n"] {
		o.np = launch.TotalSlots(o.hosts)
	}
	if err := checkProcs(o.np, len(o.hosts), hostMemory()); err != nil {
		return err
	}
	if o.np >= 1 {
		if o.hostOf, err = launch.AssignHosts(o.hosts, o.np); err != nil {
			return err
		}
	}
	return nil
}

// versionLine is gompirun's version: the module's (or "(devel)" when built
// in its own tree), the commit and its date when the build recorded them
// (with "+changes" for a modified tree), and the Go toolchain.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gompirun (unknown version)"
	}
	v := "gompirun " + bi.Main.Version
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+changes"
			}
		}
	}
	if rev != "" {
		v += " commit " + rev[:min(12, len(rev))] + dirty
		if when != "" {
			v += " (" + when + ")"
		}
	}
	return v + ", " + bi.GoVersion
}

// usageText lists fs's options (all but the test-only ones, whose
// description is empty) under the usage line.
func usageText(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(usageLine + "\n\noptions:\n")
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage == "" {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  -%s", f.Name)
		if name != "" {
			fmt.Fprintf(&b, " %s", name)
		}
		fmt.Fprintf(&b, "\n        %s", usage)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
		b.WriteString("\n")
	})
	b.WriteString("\nSee docs/gompirun.md (man ./docs/gompirun.1) for the details.\n")
	return b.String()
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == proxyArg {
		os.Exit(runProxy(os.Stdin, os.Stdout))
	}
	if mode := os.Getenv(calibrateEnv); mode != "" && len(os.Args) == 1 {
		runCalibrationRanks(mode) // a rank of gompirun -calibrate; does not return
	}
	o, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Print(helpText)
		os.Exit(0)
	}
	if err != nil {
		// One line a user can read: the usage line alone is longer than a
		// screen's width; -h prints it with every option.
		fmt.Fprintf(os.Stderr, "gompirun: %v (gompirun -h lists the options)\n", err)
		os.Exit(2)
	}
	if o.version {
		fmt.Println(versionLine())
		os.Exit(0)
	}
	// Every process would refuse a bad GOMPI_* setting; say so once, before
	// anything starts.
	if err := mpi.CheckSettingsIn(append(os.Environ(), o.env...)); err != nil && !o.printMachineSet {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		os.Exit(2)
	}
	if o.printMachineSet {
		if err := printMachine(o.printMachine, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	if o.rep != nil {
		os.Exit(runReplay(o.rep, os.Stderr))
	}
	if o.compact != "" {
		os.Exit(runCompact(o.compact, o.tolerance, o.stretches, os.Stdout))
	}
	signals() // from here on, SIGINT and SIGTERM stop whatever stage runs
	exe, err := resolve(o.prog)
	if err != nil {
		var be *buildError
		if errors.As(err, &be) {
			os.Stderr.Write(be.output)
		}
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		var se *signalError
		if errors.As(err, &se) {
			os.Exit(128 + int(se.sig))
		}
		os.Exit(2)
	}
	if o.calib != nil {
		os.Exit(calibrate(o, exe))
	}
	if o.sweep != nil {
		os.Exit(runSweep(o, exe, os.Stderr))
	}
	os.Exit(run(o, exe))
}
