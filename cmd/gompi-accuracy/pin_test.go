package main

import (
	"context"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestStartPinnedChild: a child started pinned may run on that one CPU
// only, and the thread that started it gets its CPUs back.
func TestStartPinnedChild(t *testing.T) {
	runtime.LockOSThread() // startPinned's thread is then this test's
	defer runtime.UnlockOSThread()
	var mask, after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	cpu := firstCPU()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "cat", "/proc/self/status")
	cmd.Stdout = &tailBuffer{max: 1 << 16}
	if err := startPinned(cmd, cpu); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Cpus_allowed_list:\s*(\S+)$`).FindSubmatch(cmd.Stdout.(*tailBuffer).Bytes())
	if m == nil || string(m[1]) != strconv.Itoa(cpu) {
		t.Errorf("child's Cpus_allowed_list %q, want %d", m, cpu)
	}
	if err := unix.SchedGetaffinity(0, &after); err != nil || after != mask {
		t.Errorf("the starting thread's CPUs are %d after, %d before (%v)", after.Count(), mask.Count(), err)
	}
}
