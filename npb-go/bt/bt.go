package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// Timer indices, the reference's t_* (bt_data.f).
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

// params are the per-class values of the reference's setparams and
// verify.f: grid size, time steps, time step, and the published RMS norms
// of the residual (xcrref) and of the solution error (xceref).
type params struct {
	size, niter int
	dt          float64
	xcr, xce    [5]float64
}

var classes = map[byte]params{
	'S': {12, 60, 0.010,
		[5]float64{1.7034283709541311e-01, 1.2975252070034097e-02, 3.2527926989486055e-02, 2.6436421275166801e-02, 1.9211784131744430e-01},
		[5]float64{4.9976913345811579e-04, 4.5195666782961927e-05, 7.3973765172921357e-05, 7.3821238632439731e-05, 8.9269630987491446e-04}},
	'W': {24, 200, 0.0008,
		[5]float64{0.1125590409344e+03, 0.1180007595731e+02, 0.2710329767846e+02, 0.2469174937669e+02, 0.2638427874317e+03},
		[5]float64{0.4419655736008e+01, 0.4638531260002e+00, 0.1011551749967e+01, 0.9235878729944e+00, 0.1018045837718e+02}},
	'A': {64, 200, 0.0008,
		[5]float64{1.0806346714637264e+02, 1.1319730901220813e+01, 2.5974354511582465e+01, 2.3665622544678910e+01, 2.5278963211748344e+02},
		[5]float64{4.2348416040525025e+00, 4.4390282496995698e-01, 9.6692480136345650e-01, 8.8302063039765474e-01, 9.7379901770829278e+00}},
	'B': {102, 200, 0.0003,
		[5]float64{1.4233597229287254e+03, 9.9330522590150238e+01, 3.5646025644535285e+02, 3.2485447959084092e+02, 3.2707541254659363e+03},
		[5]float64{5.2969847140936856e+01, 4.4632896115670668e+00, 1.3122573342210174e+01, 1.2006925323559144e+01, 1.2459576151035986e+02}},
	'C': {162, 200, 0.0001,
		[5]float64{0.62398116551764615e+04, 0.50793239190423964e+03, 0.15423530093013596e+04, 0.13302387929291190e+04, 0.11604087428436455e+05},
		[5]float64{0.16462008369091265e+03, 0.11497107903824313e+02, 0.41207446207461508e+02, 0.37087651059694167e+02, 0.36211053051841265e+03}},
}

// Message tags of copy_faces (bt_data.f) and of the line solves
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

// Run runs BT of the given class on the ranks of c and writes the
// reference's report to out on rank 0. The number of ranks must be a
// square, p = ncells^2: each rank owns ncells cells of the ncells^3
// multi-partition. Other counts are rejected with an error on every rank
// (NPB 3.4's setup_mpi would instead leave the ranks beyond the largest
// square idle); so are counts whose cells would be smaller than 3 points.
func Run(c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	p, ok := classes[class]
	if !ok {
		return Result{}, fmt.Errorf("bt: unknown class %q (want S, W, A, B or C)", class)
	}
	total := c.Size()
	nc := int(math.Sqrt(float64(total) + 0.00001))
	if nc*nc != total {
		return Result{}, fmt.Errorf("bt: %d processes: BT needs a square number of processes (1, 4, 9, 16, ...)", total)
	}
	if p.size/nc <= 2 {
		return Result{}, fmt.Errorf("bt: class %c (%d^3) cannot be split over %d processes: cell size too small, min size is 3", class, p.size, total)
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

	s := &btState{setup: setup, solve: solve, rhsComm: rhsComm, node: setup.Rank(), noNodes: setup.Size(), ncells: nc}
	s.t = newTimers(setup, false)
	res, err := s.bench(class, p, total, opt, out)
	if err != nil {
		return res, err
	}
	if err := c.Barrier(); err != nil {
		return res, err
	}
	if s.node == 0 && !res.Verified {
		return res, errors.New("bt: verification failed")
	}
	return res, nil
}

// bench is the reference's main program (bt.f) after setup_mpi.
func (s *btState) bench(class byte, p params, total int, opt Options, out io.Writer) (Result, error) {
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
		say("\n\n NAS Parallel Benchmarks 3.4 -- BT Benchmark\n\n")
		if opt.Timers {
			timeron = 1
		}
		say(" No input file inputbt.data. Using compiled defaults\n")
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
		if step%20 == 0 || step == niter || step == 1 {
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
			res.Mops = 1e-6 * float64(niter) * (f32(3478.8)*n3 - f32(17655.7)*ta*ta + f32(28023.7)*ta) / res.Time
		}
		err := npb.Results{
			Name: "BT", Class: class, N1: grid[0], N2: grid[1], N3: grid[2],
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
func (s *btState) adi() error {
	if err := s.copyFaces(); err != nil {
		return err
	}
	for d := 0; d < 3; d++ {
		if err := s.solveDir(d); err != nil {
			return err
		}
	}
	s.add()
	return nil
}
