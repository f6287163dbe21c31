package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/gompi/gompi/internal/launch"
)

// Environment for every rank, as mpirun takes it: -x VAR (Open MPI: pass
// gompirun's value of VAR; gompirun passes its whole environment anyway,
// so this only insists that VAR is set), -x VAR=VALUE and -genv VAR VALUE
// (MPICH: set VAR to VALUE in every process, on every host).

// envList is a repeatable -x.
type envList []string

func (l *envList) String() string { return strings.Join(*l, " ") }

func (l *envList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// joinGenv rewrites each "-genv VAR VALUE" among gompirun's own options
// (before the program) as "-genv=VAR=VALUE", which the flag package reads
// as one value. It walks the options as fs will: a flag other than a
// boolean one takes the next argument as its value unless it has "=".
func joinGenv(fs *flag.FlagSet, args []string) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return append(out, args[i:]...), nil // the program and its arguments
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "genv" && !hasValue {
			if i+2 >= len(args) {
				return nil, fmt.Errorf("-genv needs a name and a value: -genv VAR VALUE")
			}
			out = append(out, "-genv="+args[i+1]+"="+args[i+2])
			i += 2
			continue
		}
		out = append(out, a)
		if f := fs.Lookup(name); f != nil && !hasValue && !isBool(f) && i+1 < len(args) {
			i++
			out = append(out, args[i]) // the flag's value
		}
	}
	return out, nil
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// userEnv turns -x and -genv into NAME=VALUE entries for every process,
// checking the names: a GOMPI_ variable gompirun sets itself (the job's
// description, -virtual's and -trace's) cannot be given.
func userEnv(xs, genvs []string) ([]string, error) {
	reserved := map[string]string{}
	for _, kv := range (&launch.Env{}).Vars() {
		name, _, _ := strings.Cut(kv, "=")
		reserved[name] = "the job's description"
	}
	reserved[launch.EnvMachine], reserved[launch.EnvCPUScale] = "-virtual", "-cpu-scale"
	reserved[launch.EnvTrace] = "-trace"
	reserved[launch.EnvRecord] = "-record"
	var env []string
	add := func(opt, name, value string) error {
		if !envName.MatchString(name) {
			return fmt.Errorf("%s %s: not a variable name", opt, name)
		}
		if what, ok := reserved[name]; ok {
			return fmt.Errorf("%s %s: gompirun sets it (%s)", opt, name, what)
		}
		env = append(env, name+"="+value)
		return nil
	}
	for _, x := range xs {
		name, value, set := strings.Cut(x, "=")
		if !set {
			v, ok := os.LookupEnv(name)
			if !ok {
				return nil, fmt.Errorf("-x %s: not set in gompirun's environment (use -x %s=VALUE)", name, name)
			}
			value = v
		}
		if err := add("-x", name, value); err != nil {
			return nil, err
		}
	}
	for _, g := range genvs {
		name, value, _ := strings.Cut(g, "=")
		if err := add("-genv", name, value); err != nil {
			return nil, err
		}
	}
	return env, nil
}
