package mpi

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/shm"
	"github.com/gompi/gompi/vtime"
)

// virtualFromEnv builds the virtual-time setup of a process of a
// `gompirun -virtual` job, or returns nil in a real run.
func virtualFromEnv(size int) (*Virtual, error) {
	spec := os.Getenv(launch.EnvMachine)
	if spec == "" {
		return nil, nil
	}
	m, err := vtime.ParseMachine([]byte(spec))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", launch.EnvMachine, err)
	}
	scale := 1.0
	if s := os.Getenv(launch.EnvCPUScale); s != "" {
		if scale, err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("%s=%q: not a number", launch.EnvCPUScale, s)
		}
	}
	return NewVirtual(m, size, scale)
}

// publishVirtual hands this process's per-rank records to gompirun.
func publishVirtual(client *launch.Client, proc int, v *Virtual) error {
	b, err := json.Marshal(v.Results())
	if err != nil {
		return err
	}
	return client.Put(launch.VirtualKey(proc), string(b))
}

// watchStalls sets up the job-wide stall detection of a virtual world
// spread over processes (virtual_quiesce.go): routes to other processes
// count what they carry, and an agent reports to gompirun. Without it
// (gompirun does not answer) stalls are resolved speculatively, as the
// report will say.
func watchStalls(env *launch.Env, w *world, table *transport.Table, local transport.Transport, sh *shm.Transport) *quiesceAgent {
	var completions func() (int64, int64)
	if sh != nil {
		completions = sh.Completions
	}
	a, err := startQuiesce(env, w, completions)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi: process %d: no job-wide stall detection: %v\n", env.Proc, err)
		return nil
	}
	countRoutes(w, table, local)
	return a
}
