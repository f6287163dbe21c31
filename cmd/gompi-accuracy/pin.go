package main

import (
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startPinned starts cmd with its CPU affinity set to cpu alone. A new
// process inherits the affinity of the thread that forked it, so the
// thread is locked, pinned for the fork, and given its old mask back
// before it serves other goroutines again. The job's other processes and
// threads inherit it in turn, and Go's runtime.NumCPU (hence gompirun's
// GOMAXPROCS) counts only that CPU.
func startPinned(cmd *exec.Cmd, cpu int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return err
	}
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return err
	}
	defer unix.SchedSetaffinity(0, &old)
	return cmd.Start()
}

// firstCPU is the lowest CPU this process may run on: where the one-core
// predictions go.
func firstCPU() int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		for i := 0; i < 1024; i++ { // the most a CPUSet holds
			if set.IsSet(i) {
				return i
			}
		}
	}
	return 0
}
