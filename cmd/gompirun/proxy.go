package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport/shm"
	"github.com/vmihailenco/msgpack/v5"
)

// probeTimeout bounds each attempt to reach gompirun's exchange from a
// proxy: an unreachable network fails at once, a dropped SYN takes this.
const probeTimeout = 2 * time.Second

// runProxy is gompirun's hidden proxy mode (like MPICH's hydra_pmi_proxy):
// started on another host by the launcher, it reads the spec on stdin,
// starts this host's processes of the job, forwards their output and exits
// up and signals and input down. When its stdin ends (gompirun died, or the
// connection broke) it kills its processes' groups and exits: no orphans.
func runProxy(in io.Reader, out io.Writer) int {
	up := newMsgWriter(out)
	dec := msgpack.NewDecoder(bufio.NewReader(in))
	var first downMsg
	if err := dec.Decode(&first); err != nil || first.Op != downSpec || first.Spec == nil {
		fmt.Fprintf(os.Stderr, "gompirun proxy: no job spec on standard input (%v); this mode is for gompirun's own use\n", err)
		return 2
	}
	// This host's part of the job must fit it, as gompirun checks its own;
	// and what jobs killed here during start-up left goes first.
	shared := sharesMemory(first.Spec.Env)
	for _, p := range first.Spec.Procs {
		shared = shared && sharesMemory(p.Env)
	}
	if err := hostFits("host "+first.Spec.Host, len(first.Spec.Procs), shared); err != nil {
		up.send(&upMsg{Op: upError, Err: err.Error()})
		return 1
	}
	shm.RemoveStale("")
	px := &proxyRun{spec: first.Spec, up: up, sp: newSpawner(), done: make(chan struct{})}
	defer px.sp.release()
	addr, err := px.reachExchange()
	if err != nil {
		up.send(&upMsg{Op: upError, Err: err.Error()})
		return 1
	}
	up.send(&upMsg{Op: upReady, Addr: addr})
	px.startAll(net.JoinHostPort(addr, strconv.Itoa(px.spec.Port)))

	downs := make(chan downMsg)
	go func() {
		defer close(downs)
		for {
			var m downMsg
			if dec.Decode(&m) != nil {
				return
			}
			downs <- m
		}
	}()
	defer px.removeSegments()
	for {
		select {
		case m, ok := <-downs:
			if !ok {
				px.signalAll(syscall.SIGKILL) // gompirun is gone
				return 1
			}
			px.handle(m)
		case <-px.done:
			return 0
		}
	}
}

// removeSegments deletes the shared-memory segments of this host's
// processes that a killed process could not remove itself (gompirun does
// the same on its own host; transport/shm names them by job and process).
// Only this proxy's own: with -launcher fork other "hosts" share /dev/shm.
func (px *proxyRun) removeSegments() {
	if px.spec.Job == "" || strings.ContainsAny(px.spec.Job, "/\x00") {
		return
	}
	for _, p := range px.spec.Procs {
		shm.RemoveProcess("", px.spec.Job, p.Idx)
	}
}

// proxyRun is one proxy's state.
type proxyRun struct {
	spec  *proxySpec
	up    *msgWriter
	sp    *spawner
	input inputQueue // process 0's input, when it is here

	mu      sync.Mutex
	cmds    []*exec.Cmd // started, not yet waited for
	running int
	done    chan struct{} // closed once every process has ended and was reported
}

// reachExchange returns the first of gompirun's candidate addresses at
// which its exchange answers with this job's token.
func (px *proxyRun) reachExchange() (string, error) {
	var errs []string
	for _, a := range px.spec.Addrs {
		err := launch.Probe(net.JoinHostPort(a, strconv.Itoa(px.spec.Port)), px.spec.Token, probeTimeout)
		if err == nil {
			return a, nil
		}
		errs = append(errs, err.Error())
	}
	return "", fmt.Errorf("host %s cannot reach gompirun at any of %v (port %d): %v",
		px.spec.Host, px.spec.Addrs, px.spec.Port, errs)
}

// startAll starts the processes in order; the first that cannot start is
// reported as its exit, and the rest are reported as not started.
func (px *proxyRun) startAll(exchange string) {
	dir := px.spec.Dir
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = "" // not on this host: the proxy's own directory
	}
	px.running = len(px.spec.Procs)
	if px.running == 0 {
		close(px.done)
		return
	}
	var failed error
	for _, pp := range px.spec.Procs {
		if failed != nil {
			px.exited(pp.Idx, &upMsg{Op: upExit, Proc: pp.Idx, Err: "not started: " + failed.Error()})
			continue
		}
		cmd := exec.Command(pp.Exe, pp.Args...)
		cmd.Dir = dir
		cmd.Env = append(append(append(os.Environ(), px.spec.Env...), pp.Env...),
			launch.EnvExchange+"=tcp:"+exchange, launch.EnvHost+"="+px.spec.Host)
		if err := px.start(cmd, pp.Idx); err != nil {
			failed = fmt.Errorf("cannot start %s on host %s: %v", pp.Exe, px.spec.Host, err)
			px.exited(pp.Idx, &upMsg{Op: upExit, Proc: pp.Idx, Err: failed.Error()})
		}
	}
}

func (px *proxyRun) start(cmd *exec.Cmd, idx int) error {
	var ends []*os.File // the child's pipe ends, closed here once it started
	defer func() {
		for _, f := range ends {
			f.Close()
		}
	}()
	if idx == 0 && px.spec.Stdin {
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		cmd.Stdin = r
		ends = append(ends, r)
		px.input.taken = func(n int) { px.up.send(&upMsg{Op: upInput, Taken: n}) }
		go px.input.copyTo(w)
	}
	var fwd sync.WaitGroup
	for stream := 1; stream <= 2; stream++ {
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		ends = append(ends, w)
		if stream == 1 {
			cmd.Stdout = w
		} else {
			cmd.Stderr = w
		}
		fwd.Add(1)
		go func() {
			defer fwd.Done()
			defer r.Close()
			px.forward(r, idx, stream)
		}()
	}
	if err := px.sp.start(cmd); err != nil {
		return err
	}
	px.mu.Lock()
	px.cmds = append(px.cmds, cmd)
	px.mu.Unlock()
	px.up.send(&upMsg{Op: upStarted, Proc: idx, Pid: cmd.Process.Pid})
	go func() {
		cmd.Wait()
		// The output goes up before the exit; a descendant still holding
		// the pipes open is not waited for long.
		drained := make(chan struct{})
		go func() { fwd.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(time.Second):
		}
		m := &upMsg{Op: upExit, Proc: idx}
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			m.Signal = int(ws.Signal())
		} else {
			m.Code = ws.ExitStatus()
		}
		px.mu.Lock()
		for i, c := range px.cmds {
			if c == cmd {
				px.cmds = append(px.cmds[:i], px.cmds[i+1:]...)
				break
			}
		}
		px.mu.Unlock()
		px.exited(idx, m)
	}()
	return nil
}

// forward sends what process idx writes on stream up, a line at a time.
func (px *proxyRun) forward(r io.Reader, idx, stream int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			px.up.send(&upMsg{Op: upOut, Proc: idx, Stream: stream, Data: line})
		}
		if err != nil {
			return
		}
	}
}

// exited reports one process's end; after the last, the proxy is done.
func (px *proxyRun) exited(idx int, m *upMsg) {
	px.up.send(m)
	px.mu.Lock()
	px.running--
	last := px.running == 0
	px.mu.Unlock()
	if last {
		close(px.done)
	}
}

func (px *proxyRun) handle(m downMsg) {
	switch m.Op {
	case downStdin:
		px.input.push(m.Data, false)
	case downStdinEOF:
		px.input.push(nil, true)
	case downSignal:
		if m.Sig > 0 && m.Sig < 65 {
			px.signalAll(syscall.Signal(m.Sig))
		}
	}
}

// signalAll signals the process group of every process still running.
func (px *proxyRun) signalAll(sig syscall.Signal) {
	px.mu.Lock()
	defer px.mu.Unlock()
	for _, c := range px.cmds {
		syscall.Kill(-c.Process.Pid, sig)
	}
}

// inputQueue holds input for process 0 until it reads it, so that a rank
// not reading its input never blocks the proxy's handling of signals and
// of gompirun's end.
// It holds at most inputWindow bytes: gompirun sends more only as the
// proxy reports input taken (upInput).
type inputQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	chunks [][]byte
	eof    bool
	taken  func(n int) // reports bytes written to process 0
}

func (q *inputQueue) init() {
	if q.cond == nil {
		q.cond = sync.NewCond(&q.mu)
	}
}

func (q *inputQueue) push(b []byte, eof bool) {
	q.mu.Lock()
	q.init()
	if len(b) > 0 {
		q.chunks = append(q.chunks, b)
	}
	q.eof = q.eof || eof
	q.cond.Signal()
	q.mu.Unlock()
}

// copyTo writes the queued input to w and closes it at the end of input;
// a rank that stopped reading loses the rest.
func (q *inputQueue) copyTo(w io.WriteCloser) {
	defer w.Close()
	for {
		q.mu.Lock()
		q.init()
		for len(q.chunks) == 0 && !q.eof {
			q.cond.Wait()
		}
		if len(q.chunks) == 0 {
			q.mu.Unlock()
			return
		}
		b := q.chunks[0]
		q.chunks = q.chunks[1:]
		q.mu.Unlock()
		if _, err := w.Write(b); err != nil {
			return
		}
		if q.taken != nil {
			q.taken(len(b))
		}
	}
}
