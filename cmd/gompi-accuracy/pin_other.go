//go:build !linux

package main

import (
	"errors"
	"os/exec"
)

// startPinned needs Linux's sched_setaffinity; elsewhere taskset(1) must do.
func startPinned(cmd *exec.Cmd, cpu int) error {
	return errors.New("pinning a job to one CPU needs Linux (or taskset)")
}

func firstCPU() int { return 0 }
