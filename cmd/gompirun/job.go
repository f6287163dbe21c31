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
	exits := make(chan exit, o.np)
	sp := newSpawner()
	defer sp.release()
	t0 := time.Now()
	exchange := ex.Addr()
	if len(j.proxies) > 0 {
		var f *failure
		if exchange, f = j.startProxies(o, ex, jobID, token, exe, out, prefixes, sp, exits, sigs); f != nil {
			fmt.Fprintf(os.Stderr, "gompirun: %s\n", f.msg)
			j.killAll(syscall.SIGKILL)
			return f.code
		}
	}
	// cannotStart ends a start-up that failed: what started is killed.
	cannotStart := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "gompirun: "+format+"\n", args...)
		j.killAll(syscall.SIGKILL)
		removeSegments(jobID)
		return 1
	}
	// A signal while processes start stops the start-up: those started so
	// far are stopped below like a running job (-np 10000 took minutes to
	// start, deaf to SIGTERM).
	remaining := o.np
	var startSig os.Signal
starting:
	for i, p := range j.procs {
		if startingProcess != nil {
			startingProcess(j, i)
		}
		select {
		case startSig = <-sigs:
			remaining = i
			for _, q := range j.procs[i:] {
				if q.px != nil {
					remaining++ // a proxy's: reported by the proxy, started or not
				}
			}
			break starting
		default:
		}
		if p.px != nil {
			continue
		}
		env := launch.Env{Job: jobID, Token: token, Exchange: exchange, Size: o.ranks,
			Procs: o.np, Proc: p.idx, RankBase: p.base, NRanks: p.n}
		p.cmd = exec.Command(exe, o.args...)
		p.cmd.Env = append(os.Environ(), env.Vars()...)
		p.cmd.Env = append(p.cmd.Env, p.hostVars...)
		p.cmd.Env = append(p.cmd.Env, o.procEnv()...)
		if p.idx == 0 {
			in, err := stdinFor(p)
			if err != nil {
				return cannotStart("%v", err)
			}
			p.cmd.Stdin = in
		}
		if err := out.attach(p, prefixes[p.idx]); err != nil {
			return cannotStart("%v", err)
		}
		err := sp.start(p.cmd)
		p.closeChildEnds()
		if err != nil {
			return cannotStart("cannot start %s: %v", p.cmd.Path, err)
		}
		go func(p *proc) { exits <- localExit(p, p.cmd.Wait()) }(p)
	}

	var timeout <-chan time.Time
	if o.timeout > 0 {
		timeout = time.After(o.timeout - time.Since(t0))
	}
	var first *failure
	var killTimer <-chan time.Time
	stop := func(f failure) {
		if first == nil {
			first = &f // printed last, after the processes' own output
		}
		if killTimer == nil {
			j.killAll(syscall.SIGTERM)
			killTimer = time.After(killGrace)
		}
	}
	onSignal := func(sig os.Signal) {
		if killTimer != nil { // a second signal: no more grace
			j.killAll(syscall.SIGKILL)
			return
		}
		s := sig.(syscall.Signal)
		j.killAll(s)
		stop(failure{msg: fmt.Sprintf("received %v; stopping the job", sig), code: 128 + int(s)})
		killTimer = time.After(2 * time.Second)
	}
	if startSig != nil {
		onSignal(startSig)
	}
	onReport := func(f launch.Failure) { stop(reportedFailure(j.procs[f.Proc], f)) }
	onExit := func(e exit) {
		remaining--
		e.p.exited = true
		// A process reports its own failure just before it exits: take the
		// report, which says why, over the bare exit status.
		for drained := false; !drained; {
			select {
			case f := <-ex.Failures:
				onReport(f)
			default:
				drained = true
			}
		}
		if f, bad := exitFailure(e, ex, first != nil); bad {
			stop(f)
		}
	}
	for remaining > 0 {
		select {
		case f := <-ex.Failures:
			if first == nil {
				// The failure may be the echo of a peer's death (a receive
				// from a killed process fails): that death, about to be
				// seen, is the line worth printing. The reporter itself
				// exits at once, so this waits long only when nothing else
				// happens.
				select {
				case e := <-exits:
					if e.p.idx == f.Proc { // the reporter itself, exiting
						onReport(f)
					}
					onExit(e)
				case <-time.After(200 * time.Millisecond):
				}
			}
			onReport(f)
		case e := <-exits:
			onExit(e)
		case sig := <-sigs:
			onSignal(sig)
		case <-timeout:
			stop(timedOut(o.timeout, ex))
		case <-killTimer:
			j.killAll(syscall.SIGKILL)
		}
	}
	awaitLaunchers(j.proxies, time.Second)
	sp.release()
	out.wait(j.procs, j.proxies, time.Second)
	removeSegments(jobID)
	if first != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %s\n", first.msg)
		return first.code
	}
	if o.virt != nil {
		if err := o.virt.finish(ex, o.np, time.Since(t0), os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: prediction report: %v\n", err)
			return 1
		}
	}
	return 0
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
