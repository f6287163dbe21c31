package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport/shm"
	"github.com/gompi/gompi/vtime"
)

// gompirun -calibrate FILE measures the machine the job runs on and writes
// a machine file describing it. It runs gompirun's own executable, in a
// hidden mode (calibrate_ranks.go), as jobs of two processes launched as
// any job is: one on the first host (shared memory), and, given another
// host, one across the first two hosts (TCP). A job of exactly the ranks
// measured makes the choices gompi makes for two ranks (spinning, shared
// memory's polling), whatever else the host list holds. Rank 0 prints its
// measurements on standard output, which gompirun keeps instead of
// forwarding, and gompirun fits them (vtime.FitMachine).

// calibrateEnv selects the ranks' hidden mode; its value is the job's
// phase, "shm" or "net", with ",quick" for few repetitions (tests:
// -calibrate-quick).
const calibrateEnv = "GOMPIRUN_CALIBRATE"

// calibrationMark starts the line on which rank 0 reports its measurements.
const calibrationMark = "gompirun-calibration "

// calibration is what -calibrate adds to a job.
type calibration struct {
	file   string // where the machine goes; "-" is standard output
	kernel string // -contention-kernel
	quick  bool
	phase  string       // of the job running: shm or net
	net    []int        // -hosts: the hosts of the network job (indexes in options.hosts); nil: none
	stdout bytes.Buffer // the ranks' standard output
}

// prepareCalibration checks -calibrate's options and makes the job's own
// executable the program. set tells which flags were given.
func prepareCalibration(o *options, set map[string]bool) error {
	if o.calib == nil {
		for _, f := range []string{"contention-kernel", "calibrate-quick"} {
			if set[f] {
				return fmt.Errorf("-%s needs -calibrate FILE", f)
			}
		}
		return nil
	}
	cl := o.calib
	switch {
	case cl.file == "":
		return errors.New("-calibrate: empty file name (use - for standard output)")
	case o.prog != "":
		return errors.New("-calibrate runs its own measurements: no PROGRAM")
	case set["ranks"] || set["virtual"] || set["machine"] || set["cpu-scale"] || set["report"]:
		return errors.New("-calibrate runs one rank per process: not with -ranks, -virtual, -machine, -cpu-scale or -report")
	case !slices.Contains(vtime.ContentionKernels, cl.kernel):
		return fmt.Errorf("-contention-kernel %q: want compute, memory or mixed", cl.kernel)
	case os.Getenv(launch.EnvTransport) == "tcp":
		return fmt.Errorf("-calibrate measures the transports gompi chooses: unset %s=tcp", launch.EnvTransport)
	}
	if (set["np"] || set["n"]) && o.np != 2 {
		return fmt.Errorf("-calibrate runs jobs of two processes: not -np %d", o.np)
	}
	if o.hosts != nil {
		// The first host, and the first host of the list that is not
		// the same machine (this machine counts once, whatever the list
		// calls it, as in setHostVars).
		key := func(h launch.Host) string {
			if isLocal(h.Name) {
				return ""
			}
			return h.Name
		}
		for i, h := range o.hosts {
			if key(h) != key(o.hosts[0]) {
				cl.net = []int{0, i}
				break
			}
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("-calibrate: cannot find gompirun's own executable: %v", err)
	}
	o.prog = exe
	return nil
}

// calibrate runs the calibration jobs and writes the machine file; it
// returns gompirun's exit status.
func calibrate(o *options, exe string) int {
	jobs := []struct {
		phase  string
		hostOf []int
	}{{"shm", nil}}
	if o.hosts != nil {
		jobs[0].hostOf = []int{0, 0}
	}
	if o.calib.net != nil {
		jobs = append(jobs, struct {
			phase  string
			hostOf []int
		}{"net", o.calib.net})
	}
	for _, j := range jobs {
		job := *o
		job.np, job.ranks, job.hostOf = 2, 2, j.hostOf
		o.calib.phase = j.phase
		if code := run(&job, exe); code != 0 {
			return code
		}
	}
	if err := o.calib.finish(os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: -calibrate: %v\n", err)
		return 1
	}
	return 0
}

// env is what every process of the job gets. The ping-pong measures a
// large payload copied once, by the receiver, as the model charges it
// (docs/model.md) and as exchanges move it: shared memory's split copies
// (both ends copying half each, docs/transports-shm.md), which a one-way
// message gets, stay off (-x or -genv can still turn them on).
func (cl *calibration) env() []string {
	mode := cl.phase
	if cl.quick {
		mode += ",quick"
	}
	return []string{calibrateEnv + "=" + mode, shm.SplitEnv + "=0"}
}

// finish fits the measurements the jobs' rank 0 reported (the shm job's
// has everything but the network's), prints the fits on w and writes the
// machine file.
func (cl *calibration) finish(w io.Writer) error {
	var c *vtime.Calibration
	var net []vtime.PingPong
	shared := false
	var stream *vtime.Stream
	sc := bufio.NewScanner(&cl.stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// After the -tag-output prefix, if any.
		if _, s, ok := strings.Cut(sc.Text(), calibrationMark); ok {
			var got vtime.Calibration
			if err := json.Unmarshal([]byte(s), &got); err != nil {
				return fmt.Errorf("rank 0's measurements: %v", err)
			}
			if got.Net != nil {
				net, shared, stream = got.Net, got.NetHostsShareMachine, got.NetStream
			} else {
				c = &got
			}
		}
	}
	if c == nil || (cl.net != nil && net == nil) {
		return errors.New("rank 0 reported no measurements")
	}
	c.Net, c.NetHostsShareMachine, c.NetStream = net, shared, stream
	res, err := vtime.FitMachine(c, cl.kernel)
	if err != nil {
		// What was measured, to see why it does not fit.
		for _, set := range []struct {
			link string
			pp   []vtime.PingPong
		}{{"shm", c.Shm}, {"net", c.Net}} {
			for _, p := range set.pp {
				fmt.Fprintf(w, "gompirun -calibrate: measured %s %10d B one way %s\n", set.link, p.Size, formatSeconds(p.OneWay))
			}
		}
		return err
	}
	printCalibration(w, c, res, cl.kernel)
	data := append(res.Machine.JSON(), '\n')
	if cl.file == "-" {
		_, err = os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(cl.file, data, 0o644)
}

// printCalibration shows every fit with its residuals, the measurements
// beside the model, and the contention factors.
func printCalibration(w io.Writer, c *vtime.Calibration, res *vtime.Calibrated, kernel string) {
	m := res.Machine
	node, net := m.EagerLimits()
	fmt.Fprintf(w, "gompirun -calibrate: machine %s, %d cores per node, eager limits %d B (shared memory), %d B (network)\n",
		m.Name, m.CoresPerNode, node, net)
	fmt.Fprintf(w, "  %-34s %6s %8s %8s   %s\n", "fit (relative residuals)", "points", "rms", "max", "parameters")
	for _, f := range res.Fits {
		var ps []string
		for _, p := range f.Params {
			ps = append(ps, p.Name+" = "+formatParam(p))
		}
		fmt.Fprintf(w, "  %-34s %6d %7.2f%% %7.2f%%   %s\n", f.Name, f.Points, 100*f.RMS, 100*f.Max, strings.Join(ps, ", "))
	}
	fmt.Fprintf(w, "  model: o(s) = a (b = 0); one way, h = 0: eager a + 3 s/bmem, rendezvous 3 a + 3 s/bmem")
	if len(c.Net) > 0 {
		fmt.Fprintf(w, ";\n         h > 0: eager a + l + 2 s/bmem + s/bandwidth, rendezvous 3 (a + l) + 2 s/bmem + s/bandwidth\n")
	} else {
		fmt.Fprintf(w, "\n  one host: no network measured; the machine is one node of %d cores (-hosts a,b measures a network)\n", m.CoresPerNode)
	}
	fmt.Fprintf(w, "  %-5s %10s %-10s %12s %12s %8s\n", "link", "size", "protocol", "measured", "model", "error")
	for _, p := range res.Points {
		link, proto := "shm", "eager"
		if p.Net {
			link = "net"
		}
		if p.Rendezvous {
			proto = "rendezvous"
		}
		fmt.Fprintf(w, "  %-5s %10d %-10s %12s %12s %+7.1f%%\n", link, p.Size, proto,
			formatSeconds(p.Measured), formatSeconds(p.Model), 100*(p.Model-p.Measured)/p.Measured)
	}
	fmt.Fprintf(w, "  contention (thread CPU time with k computing at once / alone)\n  %-8s", "k")
	for k := range res.Compute {
		fmt.Fprintf(w, " %6d", k+1)
	}
	fmt.Fprintln(w)
	for _, row := range []struct {
		name string
		f    []float64
	}{{"compute", res.Compute}, {"memory", res.Memory}, {"mixed", res.Mixed}} {
		fmt.Fprintf(w, "  %-8s", row.name)
		for _, f := range row.f {
			fmt.Fprintf(w, " %6.3f", f)
		}
		if row.name == kernel {
			fmt.Fprint(w, "   (written)")
		}
		fmt.Fprintln(w)
	}
}

func formatParam(p vtime.Param) string {
	switch p.Unit {
	case "s":
		return formatSeconds(p.Value)
	case "B/s":
		return fmt.Sprintf("%.4g GB/s", p.Value/1e9)
	case "s/B":
		if p.Value > 0 {
			return fmt.Sprintf("1/(%.4g GB/s)", 1/p.Value/1e9)
		}
	}
	return fmt.Sprintf("%.4g %s", p.Value, p.Unit)
}

func formatSeconds(s float64) string {
	switch a := max(s, -s); {
	case a >= 1e-3:
		return fmt.Sprintf("%.4g ms", s*1e3)
	case a >= 1e-6 || a == 0:
		return fmt.Sprintf("%.4g us", s*1e6)
	}
	return fmt.Sprintf("%.4g ns", s*1e9)
}
