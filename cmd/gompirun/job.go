package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/launch"
)

// killGrace is how long processes get to exit after SIGTERM before SIGKILL.
const killGrace = 500 * time.Millisecond

// proc is one process of the job.
type proc struct {
	idx, base, n int
	cmd          *exec.Cmd
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

type exit struct {
	p   *proc
	err error // from Wait
}

// failure is the first reason the job ends unsuccessfully.
type failure struct {
	msg  string
	code int
}

// run starts the job and supervises it to the end; it returns gompirun's
// exit status.
func run(o *options, exe string) int {
	dir, err := os.MkdirTemp("", "gompirun-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	token, job := randomHex(32), randomHex(8)
	ex, err := launch.Serve(filepath.Join(dir, "exchange.sock"), token, o.np)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		return 1
	}
	defer ex.Close()

	// Signals are caught before any process starts so none is missed.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	out := &lineWriter{}
	bases := launch.Placement(o.ranks, o.np)
	procs := make([]*proc, o.np)
	for i := range procs {
		p := &proc{idx: i, base: bases[i], n: bases[i+1] - bases[i]}
		env := launch.Env{Job: job, Token: token, Exchange: ex.Addr(), Size: o.ranks,
			Procs: o.np, Proc: i, RankBase: p.base, NRanks: p.n}
		p.cmd = exec.Command(exe, o.args...)
		p.cmd.Env = append(os.Environ(), env.Vars()...)
		if o.virt != nil {
			p.cmd.Env = append(p.cmd.Env, o.virt.env()...)
		}
		if i == 0 {
			in, err := stdinFor(p)
			if err != nil {
				fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
				return 1
			}
			p.cmd.Stdin = in
		}
		// Own process group: terminal signals reach gompirun only, which
		// forwards them; and a kill of the group reaches what the rank
		// started. Pdeathsig: if gompirun dies, even by SIGKILL, so do they.
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		prefix := ""
		if o.tag {
			prefix = "[" + strings.TrimPrefix(strings.TrimPrefix(p.name(), "ranks "), "rank ") + "] "
		}
		if err := out.attach(p, prefix); err != nil {
			fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
			return 1
		}
		procs[i] = p
	}

	exits := make(chan exit, o.np)
	t0 := time.Now()
	started, release := spawn(procs, exits)
	if err := <-started; err != nil {
		fmt.Fprintf(os.Stderr, "gompirun: %v\n", err)
		killAll(procs, syscall.SIGKILL)
		release()
		return 1
	}

	var timeout <-chan time.Time
	if o.timeout > 0 {
		timeout = time.After(o.timeout)
	}
	var first *failure
	var killTimer <-chan time.Time
	stop := func(f failure) {
		if first == nil {
			first = &f // printed last, after the processes' own output
		}
		if killTimer == nil {
			killAll(procs, syscall.SIGTERM)
			killTimer = time.After(killGrace)
		}
	}
	remaining := o.np
	onReport := func(f launch.Failure) { stop(reportedFailure(procs[f.Proc], f)) }
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
			if killTimer != nil { // a second signal: no more grace
				killAll(procs, syscall.SIGKILL)
				continue
			}
			s := sig.(syscall.Signal)
			killAll(procs, s)
			stop(failure{msg: fmt.Sprintf("received %v; stopping the job", sig), code: 128 + int(s)})
			killTimer = time.After(2 * time.Second)
		case <-timeout:
			stop(failure{msg: fmt.Sprintf("job timed out after %v", o.timeout), code: 124})
		case <-killTimer:
			killAll(procs, syscall.SIGKILL)
		}
	}
	release()
	out.wait(procs, time.Second)
	removeSegments(job)
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

// spawn starts every process from one goroutine locked to its OS thread:
// Pdeathsig fires when the thread that forked a child ends, so that thread
// must live as long as the job. release ends it once the job is over.
func spawn(procs []*proc, exits chan<- exit) (started <-chan error, release func()) {
	done := make(chan error, 1)
	hold := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread exits with this goroutine, after the job.
		for _, p := range procs {
			err := p.cmd.Start()
			p.closeChildEnds()
			if err != nil {
				done <- fmt.Errorf("cannot start %s: %v", p.cmd.Path, err)
				<-hold
				return
			}
			go func(p *proc) { exits <- exit{p: p, err: p.cmd.Wait()} }(p)
		}
		done <- nil
		<-hold
	}()
	var once sync.Once
	return done, func() { once.Do(func() { close(hold) }) }
}

// killAll signals the process group of every process still running.
func killAll(procs []*proc, sig syscall.Signal) {
	for _, p := range procs {
		if p.cmd.Process != nil && !p.exited {
			syscall.Kill(-p.cmd.Process.Pid, sig)
		}
	}
}

func reportedFailure(p *proc, f launch.Failure) failure {
	msg := strings.TrimPrefix(f.Msg, "mpi: ")
	if f.Rank < 0 {
		msg = fmt.Sprintf("%s (pid %d): %s", p.name(), p.cmd.Process.Pid, msg)
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
	st := p.cmd.ProcessState
	who := fmt.Sprintf("%s (pid %d)", p.name(), p.cmd.Process.Pid)
	if st == nil {
		return failure{msg: fmt.Sprintf("%s: %v", who, e.err), code: 1}, true
	}
	ws := st.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		if stopping {
			return failure{}, false
		}
		return failure{msg: fmt.Sprintf("%s was killed by signal %d (%v)", who, int(ws.Signal()), ws.Signal()),
			code: 128 + int(ws.Signal())}, true
	case ws.ExitStatus() != 0:
		return failure{msg: fmt.Sprintf("%s exited with status %d", who, ws.ExitStatus()), code: ws.ExitStatus()}, true
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

// removeSegments deletes shared-memory segments of the job that a killed
// process could not remove itself (transport/shm names them by job id).
func removeSegments(job string) {
	files, _ := filepath.Glob(filepath.Join("/dev/shm", "gompi-"+job+"-*.shm"))
	for _, f := range files {
		os.Remove(f)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
