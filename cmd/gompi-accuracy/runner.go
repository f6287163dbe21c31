package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// maxOutput bounds what the harness keeps of one run's output, its end
// (where the NPB result block and gompirun's failure line are): a few
// kilobytes are expected.
const maxOutput = 1 << 20

// killGrace is how long a run has, after SIGTERM (timeout or interrupt),
// to take its job down before it is killed.
const killGrace = 10 * time.Second

// runEnv is the environment of every run: the harness's own, less what
// would move a run off gompi's defaults (the calibrated machine files
// describe the defaults), plus the command's own additions.
func runEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GOMPI_") || strings.HasPrefix(kv, "GOMAXPROCS=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// errInterrupted is a run cut short because the harness was told to stop.
var errInterrupted = errors.New("interrupted")

// execute runs c to its end or for at most timeout and returns its output
// (standard output and error together). The error says in one line why
// the run failed: its exit status and the line of output that explains
// it, the timeout, or errInterrupted when ctx ended.
func execute(ctx context.Context, c command, timeout time.Duration) ([]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, c.Args[0], c.Args[1:]...)
	cmd.Env = runEnv(c.Env)
	out := &tailBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group keeps a terminal's ^C from reaching gompirun
	// besides the harness's SIGTERM (a second signal makes gompirun kill
	// its job at once); Pdeathsig ends it should the harness be killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = killGrace
	var err error
	if c.Pinned {
		err = startPinned(cmd, c.CPU)
	} else {
		err = cmd.Start()
	}
	if err == nil {
		err = cmd.Wait()
	}
	switch {
	case ctx.Err() != nil:
		return out.Bytes(), errInterrupted
	case rctx.Err() != nil:
		return out.Bytes(), fmt.Errorf("timed out after %v", timeout)
	case err != nil:
		if why := failureLine(out.Bytes()); why != "" {
			return out.Bytes(), fmt.Errorf("%v: %s", err, why)
		}
		return out.Bytes(), err
	}
	return out.Bytes(), nil
}

// tailBuffer keeps at least the last max bytes written to it (at most
// twice that) and drops what came before.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte { return t.b }
