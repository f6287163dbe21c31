package vtime

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadID is the calling thread's id.
func threadID() int { return unix.Gettid() }

// threadCPUOf is thread tid's CPU time, read from any thread: the clock
// Linux names MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), which is what
// pthread_getcpuclockid returns for it.
func threadCPUOf(tid int) (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^tid<<3|6), &ts); err != nil {
		return 0, err
	}
	return time.Duration(ts.Nano()), nil
}

// threadNow is the calling thread's CPU time.
func threadNow() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, err
	}
	return time.Duration(ts.Nano()), nil
}
