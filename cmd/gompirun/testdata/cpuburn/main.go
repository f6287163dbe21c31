// Command cpuburn is a test program for virtual-time CPU measurement: each
// rank burns -ms milliseconds of its own thread's CPU time in a busy loop,
// measures what it burned with the thread CPU clock, and prints it in
// nanoseconds ("rank R burned N ns"), so the test can compare the report's
// computation with the program's own measurement whatever the host load.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gompi/gompi/mpi"
	"golang.org/x/sys/unix"
)

func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		fmt.Fprintln(os.Stderr, "cpuburn:", err)
		os.Exit(1)
	}
	return time.Duration(ts.Nano())
}

var sink uint64

func main() {
	ms := flag.Int("ms", 200, "CPU milliseconds to burn per rank")
	flag.Parse()
	mpi.Main(func(c *mpi.Comm) error {
		// The thread CPU clock is only this goroutine's if it stays on
		// one thread.
		runtime.LockOSThread()
		t0 := threadCPU()
		x := uint64(c.Rank() + 1)
		for threadCPU()-t0 < time.Duration(*ms)*time.Millisecond {
			for i := 0; i < 10000; i++ {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}
		burned := threadCPU() - t0
		runtime.UnlockOSThread()
		sink += x
		fmt.Printf("rank %d burned %d ns\n", c.Rank(), burned.Nanoseconds())
		return c.Barrier()
	})
}
