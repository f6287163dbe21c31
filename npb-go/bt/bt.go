package main

import (
	"io"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/adi"
)

// Result is what a run reports (adi.Result).
type Result = adi.Result

// Options are run-time knobs the reference takes from files (adi.Options).
type Options = adi.Options

// Run runs BT of the given class on the ranks of c and writes the
// reference's report to out on rank 0; the number of ranks must be a
// square (adi.Run).
func Run(c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	return adi.Run(adi.BT, c, class, out, opt)
}
