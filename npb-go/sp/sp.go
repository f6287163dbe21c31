package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// Timer indices, the reference's t_* (sp_data.f).
const (
	tTotal = iota
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

var timerNames = [tLast]string{"total", "rhs", "xsolve", "ysolve", "zsolve", "bpack", "exch", "xcomm", "ycomm", "zcomm"}

// params are the per-class values of the reference's setparams and
// verify.f: grid size, time steps, time step, and the published RMS norms
// of the residual (xcrref) and of the solution error (xceref).
type params struct {
	size, niter int
	dt          float64
	xcr, xce    [5]float64
}

var classes = map[byte]params{
	'S': {12, 100, 0.015,
		[5]float64{2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02, 1.5840557224455615e-02, 3.4849040609362460e-02},
		[5]float64{2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05, 1.5750704994480102e-05, 3.4177666183390531e-05}},
	'W': {36, 400, 0.0015,
		[5]float64{0.1893253733584e-02, 0.1717075447775e-03, 0.2778153350936e-03, 0.2887475409984e-03, 0.3143611161242e-02},
		[5]float64{0.7542088599534e-04, 0.6512852253086e-05, 0.1049092285688e-04, 0.1128838671535e-04, 0.1212845639773e-03}},
	'A': {64, 400, 0.0015,
		[5]float64{2.4799822399300195, 1.1276337964368832, 1.5028977888770491, 1.4217816211695179, 2.1292113035138280},
		[5]float64{1.0900140297820550e-04, 3.7343951769282091e-05, 5.0092785406541633e-05, 4.7671093939528255e-05, 1.3621613399213001e-04}},
	'B': {102, 400, 0.001,
		[5]float64{0.6903293579998e+02, 0.3095134488084e+02, 0.4103336647017e+02, 0.3864769009604e+02, 0.5643482272596e+02},
		[5]float64{0.9810006190188e-02, 0.1022827905670e-02, 0.1720597911692e-02, 0.1694479428231e-02, 0.1847456263981e-01}},
	'C': {162, 400, 0.00067,
		[5]float64{0.5881691581829e+03, 0.2454417603569e+03, 0.3293829191851e+03, 0.3081924971891e+03, 0.4597223799176e+03},
		[5]float64{0.2598120500183e+00, 0.2590888922315e-01, 0.5132886416320e-01, 0.4806073419454e-01, 0.5483377491301e+00}},
}

// Message tags of copy_faces (sp_data.f) and of the line solves
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

// Run runs SP of the given class on the ranks of c and writes the
// reference's report to out on rank 0. The number of ranks must be a
// square, p = ncells^2: each rank owns ncells cells of the ncells^3
// multi-partition. Other counts are rejected with an error on every rank
// (NPB 3.4's setup_mpi would instead leave the ranks beyond the largest
// square idle); so are counts whose cells would be smaller than 3 points.
func Run(c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	p, ok := classes[class]
	if !ok {
		return Result{}, fmt.Errorf("sp: unknown class %q (want S, W, A, B or C)", class)
	}
	total := c.Size()
	nc := int(math.Sqrt(float64(total) + 0.00001))
	if nc*nc != total {
		return Result{}, fmt.Errorf("sp: %d processes: SP needs a square number of processes (1, 4, 9, 16, ...)", total)
	}
	if p.size/nc <= 2 {
		return Result{}, fmt.Errorf("sp: class %c (%d^3) cannot be split over %d processes: cell size too small, min size is 3", class, p.size, total)
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

	s := &spState{setup: setup, solve: solve, rhsComm: rhsComm, node: setup.Rank(), noNodes: setup.Size(), ncells: nc}
	s.t = newTimers(setup, false)
	res, err := s.bench(class, p, total, opt, out)
	if err != nil {
		return res, err
	}
	if err := c.Barrier(); err != nil {
		return res, err
	}
	if s.node == 0 && !res.Verified {
		return res, errors.New("sp: verification failed")
	}
	return res, nil
}

// bench is the reference's main program (sp.f) after setup_mpi.
func (s *spState) bench(class byte, p params, total int, opt Options, out io.Writer) (Result, error) {
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
		say("\n\n NAS Parallel Benchmarks 3.4 -- SP Benchmark\n\n")
		if opt.Timers {
			timeron = 1
		}
		say(" No input file inputsp.data. Using compiled defaults\n")
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
	s.lhsinit()
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
		if step%20 == 0 || step == 1 {
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
			// The reference's coefficients are default (single precision)
			// REAL constants.
			res.Mops = 1e-6 * float64(niter) * (f32(881.174)*n3 - f32(4683.91)*ta*ta + f32(11484.5)*ta - f32(19272.4)) / res.Time
		}
		err := npb.Results{
			Name: "SP", Class: class, N1: grid[0], N2: grid[1], N3: grid[2],
			Iterations: niter, Seconds: res.Time, Procs: total, ActiveProc: s.noNodes,
			Mops: res.Mops, OpType: "floating point", Verified: res.Verified,
		}.Print(out)
		if err != nil {
			return res, err
		}
	}
	if err := s.t.report(out); err != nil {
		return res, err
	}
	return res, nil
}

func f32(v float32) float64 { return float64(v) }

// adi is one time step: the face exchange and right-hand side, the three
// factored solves and the update.
func (s *spState) adi() error {
	if err := s.copyFaces(); err != nil {
		return err
	}
	s.txinvr()
	for d := 0; d < 3; d++ {
		if err := s.solveDir(d); err != nil {
			return err
		}
	}
	s.add()
	return nil
}
