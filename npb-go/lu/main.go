// Command lu is the NAS Parallel Benchmarks LU pseudo-application (NPB 3.4,
// MPI version) on gompi: a symmetric successive over-relaxation (SSOR)
// solver for the 3-D compressible Navier-Stokes equations, whose lower and
// upper block-triangular sweeps run as a wavefront pipeline over a 2-D
// (xdim x ydim) process grid, with the reference's point-to-point
// exchanges (exchange_1 in the sweeps, exchange_3 in the right-hand side,
// exchange_4/5/6 in the surface integral) and Allreduce'd norms.
//
// Derived from the NAS Parallel Benchmarks 3.4 (NASA Advanced
// Supercomputing Division, NASA Ames Research Center; NAS Technical Reports
// 95-020 and 02-007; https://www.nas.nasa.gov/software/npb.html).
package main

import (
	"os"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

func main() {
	mpi.Main(func(c *mpi.Comm) error {
		f, err := npb.ParseFlags("lu", os.Args[1:])
		if err != nil {
			return err
		}
		_, err = Run(c, f.Class, os.Stdout, Options{Timers: npb.TimerFlagSet()})
		return err
	})
}
