package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/launch"
)

// killGrace is how long processes get to exit after SIGTERM before SIGKILL.
const killGrace = 500 * time.Millisecond

// proc is one process of the job.
type proc struct {
	idx, base, n int
	host         string    // its host's name in the host list; "" without one
	hostVars     []string  // GOMPI_HOST and GOMPI_HOST_NPROCS, with a host list
	cmd          *exec.Cmd // a process of this host
	px           *proxy    // or one a proxy runs on another host
	pidv         atomic.Int64
	outDone      sync.WaitGroup // stdout and stderr forwarders
	childEnds    []*os.File     // pipe ends the child writes; closed here once it started
	exited       bool
}

// name is how messages refer to the process: by the ranks it hosts.
func (p *proc) name() string {
	if p.n == 1 {
		return fmt.Sprintf("rank %d", p.base)
	}
	return fmt.Sprintf("ranks %d-%d", p.base, p.base+p.n-1)
}

// pid is the process's id on its host; 0 while not known.
func (p *proc) pid() int {
	if p.cmd != nil && p.cmd.Process != nil {
		return p.cmd.Process.Pid
	}
	return int(p.pidv.Load())
}

// who names the process in failure messages: its ranks, pid and host.
func (p *proc) who() string {
	var in []string
	if pid := p.pid(); pid != 0 {
		in = append(in, fmt.Sprintf("pid %d", pid))
	}
	if p.host != "" {
		in = append(in, "on host "+p.host)
	}
	if len(in) == 0 {
		return p.name()
	}
	return p.name() + " (" + strings.Join(in, " ") + ")"
}

// exit is how a process ended: by signal, with a status, or err when it
// could not run or its proxy was lost.
type exit struct {
	p        *proc
	err      error
	signaled bool
	sig      syscall.Signal
	code     int
}

// localExit describes the end of a process of this host (err from Wait).
func localExit(p *proc, err error) exit {
	st := p.cmd.ProcessState
	if st == nil {
		return exit{p: p, err: err}
	}
	ws := st.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return exit{p: p, signaled: true, sig: ws.Signal()}
	}
	return exit{p: p, code: ws.ExitStatus()}
}

// failure is the first reason the job ends unsuccessfully.
type failure struct {
	msg  string
	code int
}

// job is a running job's processes and the proxies of other hosts.
type job struct {
	procs   []*proc
	proxies []*proxy
}

// run starts the job and supervises it to the end; it returns gompirun's
// exit status.
func run(o *options, exe string) int {
	sigs := signals()
	j, prefixes := newJob(o)
	if err := hostFits("this host", localProcs(j), sharesMemory(os.Environ())); err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		return 2
	}
	removeStale()
	dir, err := os.MkdirTemp("", exchangeDirPrefix())
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	token, jobID := randomHex(32), randomHex(8)
	sock := filepath.Join(dir, "exchange.sock")
	ex, err := launch.Serve(sock, token, o.np)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		return 1
	}
	defer ex.Close()
	// Should gompirun be killed (SIGKILL) once the job runs, nothing of it
	// stays in the file system: the processes unlink their segments once
	// mapped, and the exchange its socket once every process joined and
	// opened its watch connection (every process runs the agent that
	// answers deadlock and stall probes, mpi/virtual_quiesce.go).
	ex.RemoveWhenJoined(true, sock, dir)

	out := &lineWriter{}
	if o.calib != nil {
		out.stdout = &o.calib.stdout
	}
	sv := &supervisor{o: o, j: j, ex: ex, exits: make(chan exit, o.np), t0: time.Now()}
	sp := newSpawner()
	defer sp.release()
	exchange := ex.Addr()
	if len(j.proxies) > 0 {
		var f *failure
		if exchange, f = j.startProxies(o, ex, jobID, token, exe, out, prefixes, sp, sv.exits, sigs); f != nil {
			fmt.Fprintf(os.Stderr, "gompirun: %s\n", f.msg)
			j.killAll(syscall.SIGKILL)
			return f.code
		}
	}
	start := launch.Env{Job: jobID, Token: token, Exchange: exchange, Size: o.ranks, Procs: o.np}
	startSig, code := sv.startLocal(start, exe, out, prefixes, sp, sigs)
	if code != 0 {
		fmt.Fprintf(os.Stderr, "gompirun: %s\n", sv.startErr)
		j.killAll(syscall.SIGKILL)
		removeSegments(jobID)
		return code
	}
	if startSig != nil {
		sv.onSignal(startSig)
	}
	sv.supervise(sigs)
	awaitLaunchers(j.proxies, time.Second)
	sp.release()
	out.wait(j.procs, j.proxies, time.Second)
	removeSegments(jobID)
	if sv.first != nil {
		sv.finishPartial()
		fmt.Fprintf(os.Stderr, "gompirun: %s\n", sv.first.msg)
		return sv.first.code
	}
	if o.virt != nil {
		if err := o.virt.finish(ex, o.np, time.Since(sv.t0), os.Stderr, ""); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: prediction report: %v\n", err)
			return 1
		}
	}
	if o.trace != nil {
		if err := o.trace.finish(ex, o.np, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -trace: %v\n", err)
			return 1
		}
	}
	return 0
}

// supervisor watches a started job until every process has exited: it
// stops the job on the first failure, signal or timeout and keeps that
// first failure to print last, after the processes' own output.
type supervisor struct {
	o         *options
	j         *job
	ex        *launch.Server
	exits     chan exit
	t0        time.Time
	remaining int // processes (and proxies' processes) not yet exited
	first     *failure
	killTimer <-chan time.Time
	startErr  string // why startLocal failed
	asked     bool   // askPartial has run
}

// startLocal starts this host's processes. A signal while they start stops
// the start-up (-np 10000 took minutes to start, deaf to SIGTERM): it is
// returned, and the processes started so far are stopped like a running
// job. A process that cannot start makes code 1, with startErr saying why.
func (sv *supervisor) startLocal(env launch.Env, exe string, out *lineWriter, prefixes []string, sp *spawner, sigs <-chan os.Signal) (startSig os.Signal, code int) {
	o, j := sv.o, sv.j
	sv.remaining = o.np
	for i, p := range j.procs {
		if startingProcess != nil {
			startingProcess(j, i)
		}
		select {
		case startSig = <-sigs:
			sv.remaining = i
			for _, q := range j.procs[i:] {
				if q.px != nil {
					sv.remaining++ // a proxy's: reported by the proxy, started or not
				}
			}
			return startSig, 0
		default:
		}
		if p.px != nil {
			continue
		}
		env.Proc, env.RankBase, env.NRanks = p.idx, p.base, p.n
		if err := sv.startOne(p, env, exe, out, prefixes[p.idx], sp); err != nil {
			sv.startErr = err.Error()
			return nil, 1
		}
	}
	return nil, 0
}

// startOne starts local process p with the job's environment.
func (sv *supervisor) startOne(p *proc, env launch.Env, exe string, out *lineWriter, prefix string, sp *spawner) error {
	p.cmd = exec.Command(exe, sv.o.args...)
	p.cmd.Env = append(os.Environ(), env.Vars()...)
	p.cmd.Env = append(p.cmd.Env, p.hostVars...)
	p.cmd.Env = append(p.cmd.Env, sv.o.procEnv()...)
	if p.idx == 0 {
		in, err := stdinFor(p)
		if err != nil {
			return err
		}
		p.cmd.Stdin = in
	}
	if err := out.attach(p, prefix); err != nil {
		return err
	}
	err := sp.start(p.cmd)
	p.closeChildEnds()
	if err != nil {
		return fmt.Errorf("cannot start %s: %v", p.cmd.Path, err)
	}
	go func(p *proc) { sv.exits <- localExit(p, p.cmd.Wait()) }(p)
	return nil
}

// stop records f if it is the first failure and stops the job: SIGTERM
// now, SIGKILL after killGrace.
func (sv *supervisor) stop(f failure) {
	if sv.first == nil {
		sv.first = &f // printed last, after the processes' own output
	}
	if sv.killTimer == nil {
		sv.askPartial()
		sv.j.killAll(syscall.SIGTERM)
		sv.killTimer = time.After(killGrace)
	}
}

// onSignal passes a signal on to the job and stops it; a second signal
// kills it at once.
func (sv *supervisor) onSignal(sig os.Signal) {
	if sv.killTimer != nil { // a second signal: no more grace
		sv.j.killAll(syscall.SIGKILL)
		return
	}
	s := sig.(syscall.Signal)
	sv.askPartial()
	sv.j.killAll(s)
	sv.stop(failure{msg: fmt.Sprintf("received %v; stopping the job", sig), code: 128 + int(s)})
	sv.killTimer = time.After(2 * time.Second)
}

func (sv *supervisor) onReport(f launch.Failure) { sv.stop(reportedFailure(sv.j.procs[f.Proc], f)) }

func (sv *supervisor) onExit(e exit) {
	sv.remaining--
	e.p.exited = true
	// A process reports its own failure just before it exits: take the
	// report, which says why, over the bare exit status.
	for drained := false; !drained; {
		select {
		case f := <-sv.ex.Failures:
			sv.onReport(f)
		default:
			drained = true
		}
	}
	if f, bad := exitFailure(e, sv.ex, sv.first != nil); bad {
		sv.stop(f)
	}
}

// supervise waits for every process to exit, handling failures reported
// by the processes, exits, signals, the timeout and the kill grace.
func (sv *supervisor) supervise(sigs <-chan os.Signal) {
	var timeout <-chan time.Time
	if sv.o.timeout > 0 {
		timeout = time.After(sv.o.timeout - time.Since(sv.t0))
	}
	var progress <-chan time.Time
	if every := sv.o.progressEvery(); every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		progress = t.C
	}
	for sv.remaining > 0 {
		select {
		case <-progress:
			if sv.first == nil {
				go sv.showProgress()
			}
		case f := <-sv.ex.Failures:
			if sv.first == nil {
				// The failure may be the echo of a peer's death (a receive
				// from a killed process fails): that death, about to be
				// seen, is the line worth printing. The reporter itself
				// exits at once, so this waits long only when nothing else
				// happens.
				select {
				case e := <-sv.exits:
					if e.p.idx == f.Proc { // the reporter itself, exiting
						sv.onReport(f)
					}
					sv.onExit(e)
				case <-time.After(200 * time.Millisecond):
				}
			}
			sv.onReport(f)
		case e := <-sv.exits:
			sv.onExit(e)
		case sig := <-sigs:
			sv.onSignal(sig)
		case <-timeout:
			sv.stop(timedOut(sv.o.timeout, sv.ex))
		case <-sv.killTimer:
			sv.j.killAll(syscall.SIGKILL)
		}
	}
}

// killAll signals the process group of every process still running here,
// and asks the proxies of other hosts to signal theirs.
func (j *job) killAll(sig syscall.Signal) {
	for _, p := range j.procs {
		if p.cmd != nil && p.cmd.Process != nil && !p.exited {
			syscall.Kill(-p.cmd.Process.Pid, sig)
		}
	}
	for _, px := range j.proxies {
		if px.cmd != nil && px.cmd.Process != nil {
			px.signal(sig)
		}
	}
}

// partialWait bounds how long a failing job waits for its processes to
// publish their records so far.
const partialWait = time.Second

// askPartial has the processes still running publish what they predicted
// and traced so far, before they are stopped: gompirun then reports it
// (finishPartial). Only virtual or traced jobs have anything to publish.
func (sv *supervisor) askPartial() {
	if sv.asked || (sv.o.virt == nil && sv.o.trace == nil) {
		return
	}
	sv.asked = true
	sv.ex.Partial(partialWait)
}

// finishPartial prints the report and writes the trace of a job that did
// not finish, from what its processes published (askPartial, and a
// failing process before it exits), marked partial.
func (sv *supervisor) finishPartial() {
	o := sv.o
	why := strings.TrimSuffix(strings.SplitN(sv.first.msg, "\n", 2)[0], ":")
	if o.virt != nil {
		if err := o.virt.finish(sv.ex, o.np, time.Since(sv.t0), os.Stderr, why); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: no partial prediction report: %v\n", err)
		}
	}
	if o.trace != nil {
		o.trace.partial = why
		if err := o.trace.finish(sv.ex, o.np, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: -trace: %v\n", err)
		}
	}
}

// describeWait bounds how long a job that timed out waits for its processes
// to say what their ranks do.
const describeWait = time.Second

// timedOut is the failure of a job that ran past -timeout: a line saying
// so, then one per rank naming the MPI call it is blocked in (or that it
// is not blocked, or finished), as a deadlock is reported.
func timedOut(limit time.Duration, ex *launch.Server) failure {
	msg := fmt.Sprintf("job timed out after %v", limit)
	if lines := ex.Describe(describeWait); len(lines) > 0 {
		msg += "; its ranks were:\n" + launch.Indent(strings.Join(lines, "\n"))
	}
	return failure{msg: msg, code: 124}
}

func reportedFailure(p *proc, f launch.Failure) failure {
	msg := strings.TrimPrefix(f.Msg, "mpi: ")
	if f.Rank < 0 {
		msg = fmt.Sprintf("%s: %s", p.who(), msg)
	}
	code := f.Code
	if code == 0 {
		code = 1 // the job failed even if Abort was given 0
	}
	return failure{msg: msg, code: code}
}

// exitFailure decides whether a process's exit fails the job. While the job
// is already being stopped, deaths by signal are the stopping, not a cause.
func exitFailure(e exit, ex *launch.Server, stopping bool) (failure, bool) {
	p := e.p
	who := p.who()
	switch {
	case e.err != nil && p.px != nil:
		return failure{msg: fmt.Sprintf("%s: %v", p.name(), e.err), code: 1}, true
	case e.err != nil:
		return failure{msg: fmt.Sprintf("%s: %v", who, e.err), code: 1}, true
	case e.signaled:
		if stopping {
			return failure{}, false
		}
		return failure{msg: fmt.Sprintf("%s was killed by signal %d (%v)", who, int(e.sig), e.sig),
			code: 128 + int(e.sig)}, true
	case e.code != 0:
		return failure{msg: fmt.Sprintf("%s exited with status %d", who, e.code), code: e.code}, true
	}
	if joined, finalized := ex.State(p.idx); joined && !finalized {
		return failure{msg: fmt.Sprintf("%s exited (status 0) before its ranks finished", who), code: 1}, true
	}
	return failure{}, false
}

// closeChildEnds closes gompirun's copies of the child's pipe ends, so the
// forwarders see end of file when the child (and its descendants) exit.
func (p *proc) closeChildEnds() {
	for _, f := range p.childEnds {
		f.Close()
	}
	p.childEnds = nil
}

// stdinFor is what rank 0 (process p) reads. A file or pipe is handed over
// as it is. A terminal is not: rank 0 runs in a process group of its own,
// and reading the terminal from outside the foreground group would stop it
// (SIGTTIN), so gompirun reads the terminal and passes the bytes on through
// a pipe. The copier may stay blocked reading the terminal after the job;
// nothing waits for it.
func stdinFor(p *proc) (*os.File, error) {
	st, err := os.Stdin.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return os.Stdin, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.childEnds = append(p.childEnds, r)
	go func() {
		io.Copy(w, os.Stdin)
		w.Close()
	}()
	return r, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
