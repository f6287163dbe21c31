package main

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// spawner starts processes from one goroutine locked to its OS thread:
// Pdeathsig fires when the thread that forked a child ends, so that thread
// must live as long as the job. release ends it once the job is over.
type spawner struct {
	req  chan func()
	once sync.Once
}

func newSpawner() *spawner {
	s := &spawner{req: make(chan func())}
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread exits with this goroutine, after the job.
		for f := range s.req {
			f()
		}
	}()
	return s
}

// start starts cmd in a process group of its own (terminal signals reach
// gompirun only, which forwards them, and a kill of the group reaches what
// the process started) that gets SIGKILL should its parent die, even by
// SIGKILL.
func (s *spawner) start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	done := make(chan error)
	s.req <- func() { done <- cmd.Start() }
	return <-done
}

func (s *spawner) release() { s.once.Do(func() { close(s.req) }) }
