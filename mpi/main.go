package mpi

import (
	"fmt"
	"os"
)

// Main is the entry point of an MPI program: it calls fn once for every rank
// this process hosts, each in its own goroutine with that rank's world
// communicator, and exits the process when all have returned. Run under
// gompirun it joins the job gompirun started; run directly it is a world of
// size 1 (MPI's singleton init). A rank whose fn returns an error makes the
// process exit with status 1 after printing the error.
func Main(fn func(c *Comm) error) {
	if handled, code := joinJob(fn); handled { // launch.go
		os.Exit(code)
	}
	err := Run(1, fn)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gompi: %v\n", err)
		os.Exit(exitCodeFor(err))
	}
	os.Exit(0)
}
