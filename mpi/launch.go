package mpi

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/internal/wireup"
	"github.com/gompi/gompi/transport"
)

// joinJob is Main under gompirun: it builds this process's part of the job
// (its block of ranks, the transports to every other rank), meets the other
// processes at the init barrier, runs the ranks, and meets them again at
// the finalize barrier so no process exits while a peer may still need it.
// A failing rank reports itself to gompirun and exits the process at once;
// gompirun then takes the rest of the job down.
func joinJob(fn func(c *Comm) error) (handled bool, exit int) {
	env, ok, err := launch.FromEnv()
	if !ok {
		return false, 0
	}
	if err == nil {
		err = CheckSettings()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi: %v\n", err)
		return true, 2
	}
	if err := runJob(env, fn); err != nil {
		fmt.Fprintf(os.Stderr, "gompi: process %d: %v\n", env.Proc, err)
		return true, 1
	}
	return true, 0
}

// runJob runs this process's part of a launched job: its settings, the
// world of its ranks, the transports wireup builds, the job watcher, the
// ranks, and the finalize.
func runJob(env *launch.Env, fn func(c *Comm) error) error {
	js, err := readJobSettings(env)
	if err != nil {
		return err
	}
	client, err := launch.Dial(env)
	if err != nil {
		return err
	}
	defer client.Close()

	w := newWorld(env.Size, env.RankBase, env.NRanks, js.cfg)
	w.local = env.Procs == 1
	var pg *procGate
	if w.bulk != nil && env.Procs > 1 && env.Size >= js.gateRanks && env.NRanks > 0 {
		// Before the transports start: a gate frame may come before
		// this process's ranks run (coll_bulk_procs.go).
		pg = newProcGate(w, js.bases, env.Proc)
	}
	inboxes := make([]*transport.Inbox, len(w.ranks))
	for i, r := range w.ranks {
		inboxes[i] = r.inbox
	}
	w.exitFn = func(code int) { exitJob(w, client, code) }
	part, err := wireup.Wire(env, client, inboxes, wireup.Options{
		Virtual: js.virt != nil,
		Force:   js.force,
		OnTransportError: func(err error) {
			w.fail(&Error{Class: ClassOther, Msg: "transport failed", Err: err})
		},
	})
	if err != nil {
		return err
	}
	defer part.Close()
	if js.virt != nil {
		if err := setHostConcurrency(js.virt, part.MachineRanks); err != nil { // launch_virtual.go
			return err
		}
	}
	w.partial = &partialPublisher{client: client, proc: env.Proc, w: w, virt: js.virt}
	if pg != nil {
		pg.connect(part.Routes) // before the agent reads w.bulk.procs, and before countRoutes
		w.bulk.procs = pg
	}
	w.agent = watchJob(env, w, part)
	if pg != nil && w.agent == nil {
		countRoutes(w, part.Routes, part.Local) // the agreement compares the counts
	}
	w.countCross = w.agent != nil || pg != nil
	w.out = part.Routes
	w.copier = part.Routes
	if js.virt == nil {
		w.small, w.smallMax = smallRoutes(part.Routes) // p2p_small.go; the routes are final
	}
	w.overTCP = part.OverTCP()
	stopProfile, err := startProfile(env.Proc) // profile.go
	if err != nil {
		return err
	}
	if err := w.run(fn); err != nil {
		return err // not reached: exitFn ends the process on failure
	}
	if err := stopProfile(); err != nil {
		return fmt.Errorf("%s: %v", ProfileEnv, err)
	}
	return finishJob(env, client, w, js.virt)
}

// jobSettings is what a process of a launched job reads before it talks to
// anyone: the placement, GOMPI_TRANSPORT, the virtual run and the config.
type jobSettings struct {
	bases  []int  // launch.Placement: process p hosts ranks bases[p] .. bases[p+1]-1
	force  string // GOMPI_TRANSPORT: "", "tcp" or "shm"
	virt   *Virtual
	cfg    *config
	traced bool // GOMPI_TRACE: ranks record a timeline (trace.go)
	// gateRanks (GOMPI_GATE_RANKS): the fewest ranks for which a job of
	// several processes computes collectives at the gate.
	gateRanks int
}

func readJobSettings(env *launch.Env) (*jobSettings, error) {
	js := &jobSettings{bases: launch.Placement(env.Size, env.Procs), force: os.Getenv(launch.EnvTransport)}
	if js.bases[env.Proc] != env.RankBase || js.bases[env.Proc+1]-js.bases[env.Proc] != env.NRanks {
		return nil, fmt.Errorf("ranks %d+%d do not match the job's placement", env.RankBase, env.NRanks)
	}
	if f := js.force; f != "" && f != "tcp" && f != "shm" {
		return nil, fmt.Errorf("%s=%q: want tcp, shm or nothing", launch.EnvTransport, f)
	}
	var err error
	if js.virt, err = virtualFromEnv(env.Size); err != nil {
		return nil, err
	}
	var opts []Option
	if js.virt != nil {
		opts = append(opts, WithVirtual(js.virt))
	}
	if spec := os.Getenv(launch.EnvTrace); spec != "" {
		o, err := traceFromEnv(spec, env.Size)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
		js.traced = true
	}
	if js.cfg, err = newConfig(opts); err != nil {
		return nil, err
	}
	js.gateRanks = defaultGateRanks
	if v := os.Getenv(GateRanksEnv); v != "" {
		if js.gateRanks, err = strconv.Atoi(v); err != nil || js.gateRanks < 0 {
			return nil, fmt.Errorf("%s=%q: want a count >= 0", GateRanksEnv, v)
		}
	}
	return js, nil
}

// finishJob reports a finished world: the agent's last sample, the virtual
// records, and the finalize barrier.
func finishJob(env *launch.Env, client *launch.Client, w *world, virt *Virtual) error {
	if w.agent != nil {
		w.agent.finish()
	}
	if virt != nil {
		if err := virt.Err(); err != nil {
			return err
		}
		if err := publishVirtual(client, env.Proc, virt); err != nil {
			return err
		}
	}
	if w.traced() {
		rec, err := w.traceRecord()
		if err != nil {
			return err
		}
		if err := client.Put(launch.TraceKey(env.Proc), string(rec)); err != nil {
			return err
		}
	}
	_, err := client.Barrier(launch.BarrierFinalize)
	return err
}

// watchJob sets up the job-wide quiescence detection (virtual_quiesce.go):
// routes to other processes count what they carry, and an agent reports to
// gompirun, which resolves the stalls of virtual runs and detects
// deadlocks. Without it (gompirun does not answer) the job runs on:
// virtual stalls are resolved speculatively, as the report will say, and
// a deadlock waits for -timeout.
func watchJob(env *launch.Env, w *world, part *wireup.Part) *quiesceAgent {
	a, err := startQuiesce(env, w, part.Completions)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi: process %d: no job-wide deadlock detection: %v\n", env.Proc, err)
		return nil
	}
	countRoutes(w, part.Routes, part.Local)
	if part.Spin.Counted {
		// A virtual rank spinning on its process's only processor would
		// keep gompirun's probes and orders from the agent for up to the
		// runtime's network poll interval (launch.Watch.Pending).
		for _, r := range w.ranks {
			r.inbox.AddBystander(a.watch)
		}
	}
	return a
}

// exitJob is the process-level end of a failed job: tell gompirun which
// rank failed and why, then exit with the job's code.
func exitJob(w *world, client *launch.Client, code int) {
	err := w.failure
	rank := -1
	var re *RankError
	var ae *AbortError
	switch {
	case errors.As(err, &ae):
		rank = ae.Rank
	case errors.As(err, &re):
		rank = re.Rank
		if re.Panic {
			// The stack is worth the lines: print it here, the one-line
			// cause goes to gompirun.
			fmt.Fprintf(os.Stderr, "gompi: %v\n", err)
		}
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	var de *DeadlockError
	if errors.As(err, &de) {
		// As gompirun reports one over processes; the lines name the
		// ranks, so no rank is named as the one that failed.
		msg = launch.DeadlockReport(strings.Join(de.Blocked, "\n"))
		rank = w.base
	}
	w.partial.publish() // what the job predicted and traced so far, for gompirun's partial report
	client.Fail(rank, code, msg)
	wireup.CloseShm() // deferred closes do not run past os.Exit; remove the segment
	os.Exit(code)
}
