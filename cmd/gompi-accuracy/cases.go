package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// caseSpec is one way of comparing a prediction with reality. The real
// side runs the job as users do: over shared memory on this host, or with
// one process per network namespace over a shaped link. The predicted side
// always runs on this host with -virtual, either pinned to one CPU (the
// ranks' computation measured one at a time) or spread like the real job.
type caseSpec struct {
	Name    string // shm-1core, shm-2core, net-RATE-1core, net-RATE-2core
	Rate    string // the link's rate (tc syntax); "" for shared memory
	OneCore bool   // the prediction pinned to one CPU with GOMAXPROCS=1
}

// Network reports whether the real side runs across the two namespaces.
func (c caseSpec) Network() bool { return c.Rate != "" }

func shmCases() []caseSpec {
	return []caseSpec{{Name: "shm-1core", OneCore: true}, {Name: "shm-2core"}}
}

func netCases(rate string) []caseSpec {
	return []caseSpec{
		{Name: "net-" + rate + "-1core", Rate: rate, OneCore: true},
		{Name: "net-" + rate + "-2core", Rate: rate},
	}
}

// parseCases reads -cases: names from shmCases and netCases (whose rate
// must be one of rates), or the groups shm, net and all.
func parseCases(list string, rates []string) ([]caseSpec, error) {
	known := shmCases()
	for _, r := range rates {
		known = append(known, netCases(r)...)
	}
	var cs []caseSpec
	add := func(c caseSpec) {
		if !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		matched := false
		for _, c := range known {
			if name == c.Name || name == "all" || name == "shm" && !c.Network() || name == "net" && c.Network() {
				add(c)
				matched = true
			}
		}
		if !matched {
			if strings.HasPrefix(name, "net-") {
				return nil, fmt.Errorf("-cases: %q: want net-RATE-1core or net-RATE-2core with RATE one of -rates %s", name, strings.Join(rates, ","))
			}
			return nil, fmt.Errorf("-cases: %q: want shm-1core, shm-2core, net-RATE-1core, net-RATE-2core, shm, net or all", name)
		}
	}
	return cs, nil
}

// command is one program invocation of the harness.
type command struct {
	Args []string // Args[0] is the executable
	Env  []string // added to the environment ("GOMAXPROCS=1")
	// Pinned starts the whole job on CPU alone by sched_setaffinity (used
	// where taskset(1) is missing).
	Pinned bool
	CPU    int
}

// tools are what commands are made of: the binaries the harness built and
// how to pin a job to one CPU.
type tools struct {
	bin     string // directory of gompirun and the kernels
	taskset bool   // taskset(1) is in PATH; else the harness pins the job itself
	cpu     int    // the CPU the one-core predictions run on
}

func (t tools) gompirun() string { return filepath.Join(t.bin, "gompirun") }

func (t tools) kernel(k, class string) []string {
	return []string{filepath.Join(t.bin, k), "-class", class}
}

// realCommand is the job whose time a case predicts: np processes on this
// host, or spread over the two namespaces of net (the proxies started with
// "ip netns exec", gompirun's exchange reached at the bridge's address).
func realCommand(t tools, c caseSpec, net *netPlan, kernel, class string, np int) command {
	args := []string{t.gompirun(), "-np", strconv.Itoa(np)}
	if c.Network() {
		args = append(args, "-hosts", net.hostList(np), "-launcher", "ip netns exec", "-iface", net.Bridge)
	}
	return command{Args: append(args, t.kernel(kernel, class)...)}
}

// predictedCommand predicts the real job's time for the target machine:
// the np ranks in one process on one CPU (OneCore), or in np processes.
func predictedCommand(t tools, c caseSpec, machine, kernel, class string, np int) command {
	procs := np
	if c.OneCore {
		procs = 1
	}
	args := []string{t.gompirun(), "-np", strconv.Itoa(procs), "-virtual", strconv.Itoa(np), "-machine", machine}
	cmd := command{Args: append(args, t.kernel(kernel, class)...)}
	if c.OneCore {
		cmd.Env = []string{"GOMAXPROCS=1"}
		if t.taskset {
			cmd.Args = append([]string{"taskset", "-c", strconv.Itoa(t.cpu)}, cmd.Args...)
		} else {
			cmd.Pinned, cmd.CPU = true, t.cpu
		}
	}
	return cmd
}

// calibrateCommand asks gompirun to measure this host (net == nil) or the
// link between the namespaces, and to write the machine file to file.
func calibrateCommand(t tools, net *netPlan, file string) command {
	args := []string{t.gompirun(), "-calibrate", file}
	if net != nil {
		args = append(args, "-hosts", net.hostList(2), "-launcher", "ip netns exec", "-iface", net.Bridge)
	}
	return command{Args: args}
}

// show writes the command as a shell would take it, the harness's
// temporary directory written $BIN.
func (c command) show(bin string) string {
	var parts []string
	if c.Pinned {
		parts = append(parts, fmt.Sprintf("(pinned to CPU %d by sched_setaffinity)", c.CPU))
	}
	parts = append(parts, c.Env...)
	for _, a := range c.Args {
		if bin != "" && strings.HasPrefix(a, bin+string(filepath.Separator)) {
			parts = append(parts, "$BIN"+shellQuote(a[len(bin):]))
		} else {
			parts = append(parts, shellQuote(a))
		}
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes a word for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
