// Command bt is the NAS Parallel Benchmarks BT pseudo-application (NPB 3.4,
// MPI version) on gompi: an ADI solver for the 3-D compressible
// Navier-Stokes equations whose factors are block-tridiagonal systems (5x5
// blocks), on a multi-partition decomposition (ncells = sqrt(p) cells per
// rank, one in every plane of cells along each axis) with the reference's
// face exchange (copy_faces), pipelined block solves between cells and
// Allreduce'd error norms.
//
// Derived from the NAS Parallel Benchmarks 3.4 (NASA Advanced
// Supercomputing Division, NASA Ames Research Center; NAS Technical Reports
// 95-020 and 02-007).
package main

import (
	"os"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

func main() {
	mpi.Main(func(c *mpi.Comm) error {
		f, err := npb.ParseFlags("bt", os.Args[1:])
		if err != nil {
			return err
		}
		_, err = Run(c, f.Class, os.Stdout, Options{Timers: npb.TimerFlagSet()})
		return err
	})
}
