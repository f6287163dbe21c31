// Command cg is the NAS Parallel Benchmarks CG kernel: inverse power
// iteration estimating the smallest eigenvalue of a large sparse symmetric
// matrix, each step solved by 25 conjugate-gradient iterations. Ranks form
// an nprows x npcols grid over the matrix; partial products are summed
// along process rows by recursive doubling and vectors are moved by a
// transpose exchange, all with point-to-point messages as in NPB 3.4 MPI CG
// (cg.f).
package main

import (
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// params are a class's problem parameters and published zeta (cg.f).
type params struct {
	na, nonzer, niter int
	shift             float64
	zeta              float64
}

var classes = map[byte]params{
	'S': {1400, 7, 15, 10, 8.5971775078648},
	'W': {7000, 8, 15, 12, 10.362595087124},
	'A': {14000, 11, 15, 20, 17.130235054029},
	'B': {75000, 13, 75, 60, 22.712745482631},
	'C': {150000, 15, 75, 110, 28.973605592845},
}

const (
	rcond   = 0.1
	epsilon = 1e-10
)

// Run runs CG of the given class on c, whose size must be a power of two.
// Rank 0 writes the NPB report to out and its Results carry the verdict.
func Run(c *mpi.Comm, class byte, out io.Writer) (npb.Results, error) {
	p, ok := classes[class]
	if !ok {
		return npb.Results{}, fmt.Errorf("cg: unknown class %q", class)
	}
	me, nprocs := c.Rank(), c.Size()
	g, err := newGrid(me, nprocs, p.na)
	if err != nil {
		return npb.Results{}, err
	}
	timeron, err := npb.BcastTimerFlag(c)
	if err != nil {
		return npb.Results{}, err
	}
	if me == 0 {
		fmt.Fprintf(out, "\n\n NAS Parallel Benchmarks 3.4 -- CG Benchmark\n\n")
		fmt.Fprintf(out, " Size: %10d  (class %c)\n", p.na, class)
		fmt.Fprintf(out, " Iterations: %5d\n", p.niter)
		fmt.Fprintf(out, " Number of processes: %5d\n", nprocs)
		fmt.Fprintf(out, " Number of nonzeroes per row: %8d\n", p.nonzer)
		fmt.Fprintf(out, " Eigenvalue shift: %9.3f\n", p.shift)
	}

	gen := &generator{tran: 314159265.0, amult: 1220703125.0}
	npb.Randlc(&gen.tran, gen.amult)
	m, err := makea(p.na, p.nonzer, rcond, p.shift, g, gen)
	if err != nil {
		return npb.Results{}, err
	}
	s := newSolver(c, g, m, p.na)
	s.timeron = timeron

	// One untimed iteration first, to touch all code and data pages.
	if _, _, err := s.powerStep(p.shift); err != nil {
		return npb.Results{}, err
	}
	for i := range s.x[:s.naa+1] {
		s.x[i] = 1
	}
	tm := s.tm
	for i := range tLast {
		tm.Clear(i)
	}
	if err := c.Barrier(); err != nil {
		return npb.Results{}, err
	}
	tm.Start(tTotal)
	var zeta float64
	for it := 1; it <= p.niter; it++ {
		rnorm, z, err := s.powerStep(p.shift)
		if err != nil {
			return npb.Results{}, err
		}
		zeta = z
		if me == 0 {
			if it == 1 {
				fmt.Fprintf(out, "\n   iteration           ||r||                 zeta\n")
			}
			fmt.Fprintf(out, "    %5d      %s%20.13f\n", it, npb.FortranE(rnorm, 21, 14), zeta)
		}
	}
	tm.Stop(tTotal)
	tmax := []float64{0}
	if err := mpi.Reduce(c, []float64{tm.Read(tTotal)}, tmax, mpi.Max, 0); err != nil {
		return npb.Results{}, err
	}
	t := tmax[0]
	nz := float64(p.nonzer)
	flops := 2 * float64(p.niter) * float64(p.na) *
		(3 + nz*(nz+1) + 25*(5+nz*(nz+1)) + 3)
	res := npb.Results{Name: "CG", Class: class, N1: p.na, Iterations: p.niter,
		Seconds: t, Procs: nprocs, ActiveProc: nprocs, Mops: npb.Mops(flops, t),
		OpType: "          floating point"}
	if me == 0 {
		res.Verified = report(out, zeta, p.zeta)
		if err := res.Print(out); err != nil {
			return res, err
		}
	}
	if timeron {
		t := []float64{tm.Read(tTotal), tm.Read(tConjg) - tm.Read(tRcomm), tm.Read(tRcomm), tm.Read(tNcomm), 0, 0}
		t[5] = t[2] + t[3]
		t[4] = t[0] - t[5]
		names := []string{"total", "conjg", "rcomm", "ncomm", " totcomp", " totcomm"}
		if err := npb.ReportTimers(c, t, names, out); err != nil {
			return res, err
		}
	}
	return res, nil
}

// report writes the verification lines and returns the verdict.
func report(out io.Writer, zeta, want float64) bool {
	fmt.Fprintf(out, " Benchmark completed \n")
	relErr := math.Abs(zeta-want) / want
	verified := relErr <= epsilon // false for NaN too
	if verified {
		fmt.Fprintf(out, " VERIFICATION SUCCESSFUL \n")
		fmt.Fprintf(out, " Zeta is    %s\n", npb.FortranE(zeta, 20, 13))
		fmt.Fprintf(out, " Error is   %s\n", npb.FortranE(relErr, 20, 13))
	} else {
		fmt.Fprintf(out, " VERIFICATION FAILED\n")
		fmt.Fprintf(out, " Zeta                %s\n", npb.FortranE(zeta, 20, 13))
		fmt.Fprintf(out, " The correct zeta is %s\n", npb.FortranE(want, 20, 13))
	}
	return verified
}

// powerStep is one step of the inverse power method: solve A z = x by CG,
// normalise z into x, and return the residual norm and the eigenvalue
// estimate zeta = shift + 1/(x.z).
func (s *solver) powerStep(shift float64) (rnorm, zeta float64, err error) {
	if rnorm, err = s.conjGrad(); err != nil {
		return 0, 0, err
	}
	ncols := s.g.lastCol - s.g.firstCol + 1
	xc, zc := s.x[:ncols], s.z[:ncols]
	s.two[0], s.two[1] = 0, 0
	for j, v := range zc {
		s.two[0] += xc[j] * v
		s.two[1] += v * v
	}
	if err := s.rowSum(s.two, s.two2, tNcomm); err != nil {
		return 0, 0, err
	}
	norm := 1 / math.Sqrt(s.two[1])
	zeta = shift + 1/s.two[0]
	for j, v := range zc {
		xc[j] = norm * v
	}
	return rnorm, zeta, nil
}
