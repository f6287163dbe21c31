package mpi

import (
	"fmt"
	"math"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/internal/wireup"
	"github.com/gompi/gompi/transport/shm"
	"github.com/gompi/gompi/vtime"
)

// setting is one GOMPI_* variable gompi reads: its default, who reads it,
// and the check of a value.
type setting struct {
	name   string
	def    string // what holds when it is unset
	reader string // where it is read
	check  func(string) error
}

// settings is the one list of the GOMPI_* variables a user may set (and
// gompirun sets: GOMPI_HOST, GOMPI_HOST_NPROCS, GOMPI_VMACHINE,
// GOMPI_VCPU_SCALE). docs/gompirun.md, ENVIRONMENT, describes each
// (TestSettingsDocumented holds the two together). Not in it: the
// variables of a process's part of the job (launch.Env, checked by
// launch.FromEnv) and GOMPI_COLL_* (collNames, checked by parseCollEnv).
var settings = []setting{
	{launch.EnvTransport, "shared memory within a host, TCP between hosts", "mpi readJobSettings", oneOf("tcp", "shm")},
	{launch.EnvListen, "127.0.0.1:0, only where a peer needs TCP", "internal/wireup listenTCP", func(v string) error {
		_, port, err := net.SplitHostPort(v)
		if err != nil {
			return fmt.Errorf("want HOST:PORT (port 0: any free one)")
		}
		if _, err = strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("port %q: want a number up to 65535", port)
		}
		return nil
	}},
	{launch.EnvHost, "the machine's host name", "internal/wireup hostName", func(v string) error {
		if strings.ContainsAny(v, "\t\n") {
			return fmt.Errorf("a host name has no tab or newline")
		}
		return nil
	}},
	{launch.EnvHostProcs, "unknown: the process may share its host", "internal/wireup aloneOnHost", atLeast(1)},
	{SpinEnv, "4000 checks, then up to 100ms in real runs; 0 with more ranks than cores", "internal/wireup spinFor", func(v string) error {
		_, err := wireup.ParseSpin(v)
		return err
	}},
	{GateRanksEnv, "64 ranks", "mpi readJobSettings", atLeast(0)},
	{EagerLimitEnv, "131072 bytes between processes over shared memory, 65536 otherwise", "mpi newConfig", atLeast(0)},
	{launch.EnvHostConcurrency, "counted by each process from its machine", "mpi setHostConcurrency", atLeast(1)},
	{launch.EnvMachine, "none: set by gompirun -virtual", "mpi virtualFromEnv", func(v string) error {
		_, err := vtime.ParseMachine([]byte(v))
		return err
	}},
	{launch.EnvCPUScale, "1, set by gompirun -virtual", "mpi virtualFromEnv", func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0) || math.IsInf(f, 1) {
			return fmt.Errorf("want a number >= 0")
		}
		return nil
	}},
	{launch.EnvRecord, "none: set by gompirun -record", "mpi virtualFromEnv", func(v string) error {
		if v == "" {
			return fmt.Errorf("want a directory")
		}
		return nil
	}},
	{launch.EnvTrace, "none: set by gompirun -trace", "mpi traceFromEnv", func(v string) error {
		_, err := traceFromEnv(v, math.MaxInt32)
		return err
	}},
	{ProfileEnv, "none: no profiles", "mpi startProfile", func(v string) error {
		if v == "" {
			return fmt.Errorf("want a path prefix")
		}
		return nil
	}},
	{shm.RingEnv, "sized by the processes of the host", "transport/shm Open", shmCheck},
	{shm.SpinEnv, "1ms, only with no more ranks than processors", "transport/shm Open", shmCheck},
	{shm.CMAEnv, "1 where the kernel allows it", "transport/shm Open", shmCheck},
	{shm.SplitEnv, "1 in real runs where the kernel allows writes", "transport/shm Open", shmCheck},
}

// settingNamed is the setting called name, if gompi has one.
func settingNamed(name string) (setting, bool) {
	for _, st := range settings {
		if st.name == name {
			return st, true
		}
	}
	return setting{}, false
}

// shmCheck is the shared-memory transport's own check of its settings.
func shmCheck(string) error { return shm.CheckEnv() }

func oneOf(values ...string) func(string) error {
	return func(v string) error {
		for _, w := range values {
			if v == w {
				return nil
			}
		}
		return fmt.Errorf("want one of %s, or unset", strings.Join(values, ", "))
	}
}

func atLeast(min int) func(string) error {
	return func(v string) error {
		if n, err := strconv.Atoi(v); err != nil || n < min {
			return fmt.Errorf("want a whole number >= %d", min)
		}
		return nil
	}
}

// CheckSettings validates every GOMPI_* variable of the environment: a known setting with a bad value, or a GOMPI_* name
// that gompi does not know (a typo), is an error naming it. gompirun calls
// it before starting a job, and each process of a job again, so that a
// mistyped setting stops the job instead of being ignored or changing its
// transport behind the user's back.
func CheckSettings() error { return CheckSettingsIn(os.Environ()) }

// CheckSettingsIn is CheckSettings for the environment env (NAME=VALUE
// entries; of duplicate names the last counts, as for a process started
// with it): gompirun checks what its -x and -genv add.
func CheckSettingsIn(env []string) error {
	last := map[string]string{}
	var order []string
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if _, seen := last[name]; !seen {
			order = append(order, name)
		}
		last[name] = val
	}
	job := map[string]bool{}
	for _, kv := range (&launch.Env{}).Vars() {
		name, _, _ := strings.Cut(kv, "=")
		job[name] = true
	}
	var unknown []string
	for _, name := range order {
		val := last[name]
		if !strings.HasPrefix(name, "GOMPI_") || job[name] || val == "" { // empty: unset
			continue
		}
		if rest, ok := strings.CutPrefix(name, CollEnvPrefix); ok {
			k := collKindNamed(rest)
			if k < 0 {
				unknown = append(unknown, name)
				continue
			}
			if err := parseCollEnv(func(n string) string { return map[string]string{name: val}[n] }).err[k]; err != nil {
				return err
			}
			continue
		}
		st, ok := settingNamed(name)
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		if err := st.check(val); err != nil {
			if strings.HasPrefix(err.Error(), "shm: ") {
				return err
			}
			return fmt.Errorf("%s=%q: %v", name, val, err)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("unknown setting %s (known: %s)", strings.Join(unknown, ", "), knownSettings())
	}
	return nil
}

// collKindNamed is the collective of a GOMPI_COLL_ suffix, or -1.
func collKindNamed(name string) collKind {
	for k, n := range collNames {
		if n == name {
			return collKind(k)
		}
	}
	return -1
}

// knownSettings lists the settings' names, for the unknown-name error.
func knownSettings() string {
	var names []string
	for _, st := range settings {
		names = append(names, st.name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ") + ", " + CollEnvPrefix + "{" + strings.Join(collNames[:], ",") + "}"
}

// SpinEnv names GOMPI_SPIN: how a waiting rank spins before it sleeps, a
// count of checks or a Go duration (docs/gompirun.md, ENVIRONMENT). Launched
// processes and the in-process worlds of Run honour it.
const SpinEnv = wireup.SpinEnv
