package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// harness is one measurement: what it built and set up, removed by close
// on every way out.
type harness struct {
	opts  *options
	log   io.Writer // progress, one line per run
	tmp   string    // binaries and calibrated machine files
	net   *network  // nil without network cases (or where they cannot run)
	csv   *csvLog
	tools tools
}

// close removes what the harness made: the network first (it must not
// outlive the harness), then the temporary directory.
func (h *harness) close() {
	if h.net != nil {
		if left := h.net.tearDown(); len(left) > 0 {
			fmt.Fprintf(h.log, "gompi-accuracy: could not remove %s\n", strings.Join(left, ", "))
		}
	}
	if h.csv != nil {
		if err := h.csv.close(); err != nil {
			fmt.Fprintf(h.log, "gompi-accuracy: -o %s: %v\n", h.opts.csvPath, err)
		}
	}
	if h.tmp != "" {
		os.RemoveAll(h.tmp)
	}
}

// measure builds, sets up and runs every row. It returns the report
// whenever rows were attempted, and an error when something failed.
func (h *harness) measure(ctx context.Context) (*report, error) {
	o := h.opts
	rep := &report{Start: time.Now().UTC(), Class: o.class, NP: o.np, Runs: o.runs,
		Host: fmt.Sprintf("%d CPUs (%s/%s)", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)}
	var root string
	var err error
	if o.bin == "" {
		if root, err = moduleRoot(ctx); err != nil {
			return nil, err
		}
	}
	if h.tmp, err = os.MkdirTemp("", "gompi-accuracy-"); err != nil {
		return nil, err
	}
	h.tools = tools{bin: h.tmp, cpu: firstCPU()}
	_, err = exec.LookPath("taskset")
	h.tools.taskset = err == nil
	if o.bin != "" {
		if h.tools.bin, err = prebuilt(o.bin, o.kernels); err != nil {
			return nil, err
		}
		rep.Build = "given by -bin: " + h.tools.bin
	} else if rep.Build, err = h.build(ctx, root); err != nil {
		return nil, err
	}
	if o.csvPath != "" {
		if h.csv, err = createCSV(o.csvPath); err != nil {
			return nil, fmt.Errorf("-o: %v", err)
		}
	}
	skip := map[string]string{} // case name -> why it is skipped
	h.setUpNetwork(ctx, skip)
	machines := h.machines(ctx, rep, skip)
	if ctx.Err() != nil {
		return nil, errInterrupted
	}
	rep.LoadBefore = loadAverage()
	for _, c := range o.cases {
		if ctx.Err() != nil {
			break
		}
		if why, ok := skip[c.Name]; ok {
			rep.Notes = append(rep.Notes, c.Name+": skipped: "+why)
			continue
		}
		real := realCommand(h.tools, c, h.planOrNil(), "K", o.class, o.np)
		pred := predictedCommand(h.tools, c, machines[c.Rate], "K", o.class, o.np)
		rep.Commands = append(rep.Commands, shownCase{c.Name, real.show(h.tools.bin), pred.show(h.tools.bin)})
		for _, k := range o.kernels {
			if ctx.Err() != nil {
				break
			}
			rep.Rows = append(rep.Rows, h.measureRow(ctx, c, k, machines[c.Rate]))
		}
	}
	rep.LoadAfter = loadAverage()
	if h.net != nil {
		rep.Network = h.net.log
	}
	return rep, rep.verdict(ctx)
}

// moduleRoot is the directory of the gompi module the harness runs in.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", errors.New("run me inside the gompi repository (go env GOMOD finds no go.mod)")
	}
	data, err := os.ReadFile(gomod)
	if err != nil || !strings.HasPrefix(string(data), "module github.com/gompi/gompi\n") {
		return "", fmt.Errorf("%s is not gompi's go.mod: run me inside the gompi repository", gomod)
	}
	return filepath.Dir(gomod), nil
}

// build compiles gompirun and the kernels once, into the temporary
// directory, and returns the command as the report shows it.
func (h *harness) build(ctx context.Context, root string) (string, error) {
	args := []string{"build", "-o", h.tmp + string(filepath.Separator), "./cmd/gompirun"}
	for _, k := range h.opts.kernels {
		args = append(args, "./npb-go/"+k)
	}
	fmt.Fprintf(h.log, "gompi-accuracy: building gompirun and %s\n", strings.Join(h.opts.kernels, ", "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); ctx.Err() != nil {
		return "", errInterrupted
	} else if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return command{Args: append([]string{"go"}, args...)}.show(h.tmp), nil
}

// prebuilt checks that dir (-bin) holds gompirun and every kernel as
// executable files, and returns it as an absolute path.
func prebuilt(dir string, kernels []string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("-bin %s: %v", dir, err)
	}
	for _, name := range append([]string{"gompirun"}, kernels...) {
		fi, err := os.Stat(filepath.Join(abs, name))
		switch {
		case err != nil:
			return "", fmt.Errorf("-bin %s: %v (build it with: go build -o DIR/ ./cmd/gompirun ./npb-go/K ...)", dir, err)
		case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
			return "", fmt.Errorf("-bin %s: %s is not an executable file", dir, name)
		}
	}
	return abs, nil
}

// setUpNetwork makes the namespaces' network when a case needs it; where
// it cannot, those cases are skipped with the reason.
func (h *harness) setUpNetwork(ctx context.Context, skip map[string]string) {
	var netCases []string
	for _, c := range h.opts.cases {
		if c.Network() {
			netCases = append(netCases, c.Name)
		}
	}
	if len(netCases) == 0 {
		return
	}
	var err error
	if os.Geteuid() != 0 {
		err = errors.New("needs root to create network namespaces")
	} else {
		h.net, err = setUpNetwork(ctx)
	}
	if err != nil {
		fmt.Fprintf(h.log, "gompi-accuracy: network cases skipped: %v\n", err)
		for _, name := range netCases {
			skip[name] = err.Error()
		}
	}
}

func (h *harness) planOrNil() *netPlan {
	if h.net == nil {
		return nil
	}
	return &h.net.plan
}
