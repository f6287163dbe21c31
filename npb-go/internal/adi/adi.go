// Package adi is what NPB's BT and SP pseudo-applications (NPB 3.4, MPI
// version) share: both solve the 3-D compressible Navier-Stokes equations
// by alternating-direction implicit factorization on the same
// multi-partition decomposition (ncells = sqrt(p) cells per rank, one in
// every plane of cells along each axis), with the same initial field,
// forcing, right-hand side, face exchange (copy_faces), verification and
// timers. They differ only in their factors: 5x5 block-tridiagonal
// systems for BT (bt_*.go), scalar pentadiagonal ones for SP (sp_*.go).
// The commands npb-go/bt and npb-go/sp run them through Run.
//
// Derived from the NAS Parallel Benchmarks 3.4 (NASA Advanced
// Supercomputing Division, NASA Ames Research Center; NAS Technical Reports
// 95-020 and 02-007).
package adi

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// Timer indices, the reference's t_* (bt_data.f; sp_data.f has no i/o
// timer and prints the others in the same order).
const (
	tTotal = iota
	tIO
	tRHS
	tXsolve
	tYsolve
	tZsolve
	tBpack
	tExch
	tXcomm
	tYcomm
	tZcomm
	tLast
)

var timerNames = [tLast]string{"total", "i/o", "rhs", "xsolve", "ysolve", "zsolve", "bpack", "exch", "xcomm", "ycomm", "zcomm"}

// Benchmark is what BT and SP do differently. BT and SP are the two.
type Benchmark struct {
	name    string // "BT" or "SP"
	classes map[byte]params
	// lhsPerPoint is the size of a point's left-hand side; solveBuffer
	// the values per cell face of the solves' messages (alloc_space's
	// buffer size, per mcd^2); speed says that compute_rhs also computes
	// the speed of sound (SP); lineScratch that the solves need BT's
	// Jacobian lines.
	lhsPerPoint, solveBuffer int
	speed, lineScratch       bool
	// txinvr: SP's steps end compute_rhs with txinvr, in the pass of the
	// loop before it (sp_rhs.go).
	txinvr        bool
	ioTimer       bool // the timer report has the i/o timer
	printLastStep bool // "Time step" is printed for the last step too
	// mops is the operation count per step in millions (the reference's
	// fitted polynomial in n3 = points and ta = mean edge).
	mops func(n3, ta float64) float64
	// lhsInit prepares the left-hand sides once (SP's lhsinit); solve
	// runs the three factored solves of a step between the right-hand
	// side (inside copy_faces) and the update.
	lhsInit func(s *State)
	solve   func(s *State) error
}

// params are the per-class values of the reference's setparams and
// verify.f: grid size, time steps, time step, and the published RMS norms
// of the residual (xcrref) and of the solution error (xceref).
type params struct {
	size, niter int
	dt          float64
	xcr, xce    [5]float64
}

// Message tags of copy_faces (bt_data.f, sp_data.f) and of the line solves
// (DEFAULT_TAG).
const (
	tagEast   = 2000
	tagWest   = 3000
	tagNorth  = 4000
	tagSouth  = 5000
	tagBottom = 6000
	tagTop    = 7000
	tagSolve  = 0
)

// Result is what a run reports. The norms are every rank's; Verified,
// Time (the maximum over ranks) and Mops are rank 0's.
type Result struct {
	Class    byte
	Nprocs   int
	Xcr, Xce [5]float64 // RMS norms of the residual and of the solution error
	Verified bool
	Time     float64
	Mops     float64
}

// Options are run-time knobs the reference takes from files.
type Options struct {
	// Timers prints the per-phase timers (the reference's timer.flag);
	// rank 0's value is broadcast to the others.
	Timers bool
}

// Run runs the benchmark (BT or SP) of the given class on the ranks of c
// and writes the reference's report to out on rank 0. The number of ranks must be a
// square, p = ncells^2: each rank owns ncells cells of the ncells^3
// multi-partition. Other counts are rejected with an error on every rank
// (NPB 3.4's setup_mpi would instead leave the ranks beyond the largest
// square idle); so are counts whose cells would be smaller than 3 points.
func Run(b *Benchmark, c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	lower := strings.ToLower(b.name)
	p, ok := b.classes[class]
	if !ok {
		return Result{}, fmt.Errorf("%s: unknown class %q (want S, W, A, B or C)", lower, class)
	}
	total := c.Size()
	nc := int(math.Sqrt(float64(total) + 0.00001))
	if nc*nc != total {
		return Result{}, fmt.Errorf("%s: %d processes: %s needs a square number of processes (1, 4, 9, 16, ...)", lower, total, b.name)
	}
	if p.size/nc <= 2 {
		return Result{}, fmt.Errorf("%s: class %c (%d^3) cannot be split over %d processes: cell size too small, min size is 3", lower, class, p.size, total)
	}
	// comm_setup, and the duplicates the solves and the face exchange use
	// (setup_mpi.f).
	setup, err := c.Split(0, c.Rank())
	if err != nil {
		return Result{}, err
	}
	defer setup.Free()
	solve, err := setup.Dup()
	if err != nil {
		return Result{}, err
	}
	defer solve.Free()
	rhsComm, err := setup.Dup()
	if err != nil {
		return Result{}, err
	}
	defer rhsComm.Free()

	s := &State{b: b, setup: setup, solve: solve, rhsComm: rhsComm, node: setup.Rank(), noNodes: setup.Size(), ncells: nc}
	s.t = newTimers(setup, false)
	res, err := s.bench(class, p, total, opt, out)
	if err != nil {
		return res, err
	}
	if err := c.Barrier(); err != nil {
		return res, err
	}
	if s.node == 0 && !res.Verified {
		return res, errors.New(lower + ": verification failed")
	}
	return res, nil
}

// bench is the reference's main program (bt.f, sp.f) after setup_mpi.
func (s *State) bench(class byte, p params, total int, opt Options, out io.Writer) (Result, error) {
	root := s.node == 0
	say := func(format string, args ...any) {
		if root {
			fmt.Fprintf(out, format, args...)
		}
	}
	niter, dt := p.niter, p.dt
	grid := [3]int{p.size, p.size, p.size}
	timeron := 0
	if root {
		say("\n\n NAS Parallel Benchmarks 3.4 -- %s Benchmark\n\n", s.b.name)
		if opt.Timers {
			timeron = 1
		}
		say(" No input file input%s.data. Using compiled defaults\n", strings.ToLower(s.b.name))
		say(" Size: %4dx%4dx%4d  (class %c)\n", grid[0], grid[1], grid[2], class)
		say(" Iterations: %4d    dt: %11.7f\n", niter, dt)
		say(" Total number of processes: %5d\n\n", total)
	}
	// Rank 0's inputs reach the others as in the reference: niter, dt,
	// grid_points(3), timeron.
	ib := []int32{int32(niter)}
	if err := mpi.Bcast(s.setup, ib, 0); err != nil {
		return Result{}, err
	}
	niter = int(ib[0])
	db := []float64{dt}
	if err := mpi.Bcast(s.setup, db, 0); err != nil {
		return Result{}, err
	}
	dt = db[0]
	gb := []int32{int32(grid[0]), int32(grid[1]), int32(grid[2])}
	if err := mpi.Bcast(s.setup, gb, 0); err != nil {
		return Result{}, err
	}
	grid = [3]int{int(gb[0]), int(gb[1]), int(gb[2])}
	tb := []int32{int32(timeron)}
	if err := mpi.Bcast(s.setup, tb, 0); err != nil {
		return Result{}, err
	}
	s.t.enabled = tb[0] != 0
	s.grid = grid
	s.dt = dt

	s.allocSpace(p.size)
	s.makeSet()
	for i := 0; i < tLast; i++ {
		s.t.Clear(i)
	}
	s.setConstants()
	s.initialize()
	if s.b.lhsInit != nil {
		s.b.lhsInit(s)
	}
	s.exactRHS()
	s.computeBufferSize(5)

	// One time step to touch all code, then reinitialize.
	if err := s.adi(); err != nil {
		return Result{}, err
	}
	s.initialize()

	for i := 0; i < tLast; i++ {
		s.t.Clear(i)
	}
	if err := s.setup.Barrier(); err != nil {
		return Result{}, err
	}
	s.t.Clear(tTotal)
	s.t.Start(tTotal)
	for step := 1; step <= niter; step++ {
		if step%20 == 0 || step == 1 || (s.b.printLastStep && step == niter) {
			say(" Time step %4d\n", step)
		}
		if err := s.adi(); err != nil {
			return Result{}, err
		}
	}
	s.t.Stop(tTotal)
	t := s.t.Read(tTotal)

	res := Result{Class: class, Nprocs: s.noNodes}
	verified, err := s.verify(class, p, out, &res)
	if err != nil {
		return res, err
	}
	tmax := []float64{0}
	if err := mpi.Reduce(s.setup, []float64{t}, tmax, mpi.Max, 0); err != nil {
		return res, err
	}
	res.Time = tmax[0]
	res.Verified = verified
	if root {
		if res.Time != 0 {
			n3 := float64(grid[0]) * float64(grid[1]) * float64(grid[2])
			ta := float64(grid[0]+grid[1]+grid[2]) / 3
			res.Mops = 1e-6 * float64(niter) * s.b.mops(n3, ta) / res.Time
		}
		err := npb.Results{
			Name: s.b.name, Class: class, N1: grid[0], N2: grid[1], N3: grid[2],
			Iterations: niter, Seconds: res.Time, Procs: total, ActiveProc: s.noNodes,
			Mops: res.Mops, OpType: "floating point", Verified: res.Verified,
		}.Print(out)
		if err != nil {
			return res, err
		}
	}
	if err := s.t.report(out, s.b.ioTimer); err != nil {
		return res, err
	}
	return res, nil
}

func f32(v float32) float64 { return float64(v) }

// adi is one time step: the face exchange and right-hand side, the three
// factored solves and the update (done by the last solve).
func (s *State) adi() error {
	// SP's txinvr is done in compute_rhs's last pass over each row, while
	// the row is in cache (sp_rhs.go); the right-hand side of the
	// verification is compute_rhs's alone.
	s.txinvrInRHS = s.b.txinvr
	err := s.copyFaces()
	s.txinvrInRHS = false
	if err != nil {
		return err
	}
	if err := s.b.solve(s); err != nil {
		return err
	}
	// The last solve has added the update to u (add.f): BT's z back
	// substitution, SP's tzetar.
	return nil
}
