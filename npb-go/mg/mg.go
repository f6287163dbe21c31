// Command mg is the NAS Parallel Benchmarks MG kernel (NPB 3.4, MPI
// version) on gompi: a V-cycle multigrid solver for the 3-D Poisson
// equation on a periodic grid, distributed in blocks over a power-of-two
// process grid with the reference's halo exchange and reductions.
package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// Timer indices, the reference's t_* (t_init is kept across the reset
// before the timed section).
const (
	tBench = iota
	tInit
	tPsinv
	tResid
	tRprj3
	tInterp
	tNorm2u3
	tComm3
	tRcomm
	tLast
)

var timerNames = [tLast]string{"total", "init", "psinv", "resid", "rprj3", "interp", "norm2u3", "comm3", "rcomm"}

// params are the per-class problem sizes of the reference's setparams.
type params struct {
	size, nit int
	verify    float64 // reference L2 norm of the final residual
	// The smoother's coefficients differ from class B on.
	bigClass bool
}

var classes = map[byte]params{
	'S': {32, 4, 0.5307707005734e-04, false},
	'W': {128, 4, 0.6467329375339e-05, false},
	'A': {256, 4, 0.2433365309069e-05, false},
	'B': {256, 20, 0.1800564401355e-05, true},
	'C': {512, 20, 0.5706732285740e-06, true},
}

// Result is what a run reports (on every rank; Verified and Time are the
// root's verdict and the maximum over ranks).
type Result struct {
	Class    byte
	Nprocs   int // active (power-of-two) ranks
	L2Norm   float64
	Err      float64
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

// mgState is one rank's benchmark state: everything the reference keeps in
// module variables.
type mgState struct {
	comm       *mpi.Comm // comm_work: the power-of-two active ranks
	me, nprocs int
	lt, lb     int

	nx, ny, nz     []int // global grid size per level 1..lt
	m1, m2, m3, ir []int // local block size and offset in u/r per level
	dead           []bool
	giveEx, takeEx [3][]bool
	nbr            [3][2][]int // neighbour per axis, direction (-1, +1), level
	msgType        [3][2]int
	msgID          [3][2]*mpi.Request

	is1, is2, is3, ie1, ie2, ie3 int
	n1, n2, n3                   int

	buff    [4][]float64
	u, v, r []float64
	a, c    [4]float64

	sum1, sum2 []float64 // the AVX2 lines' neighbour sums (stencil_avx2.go)

	t timers
}

// sums returns the two scratch lines of n values for the AVX2 stencils.
func (s *mgState) sums(n int) ([]float64, []float64) {
	if len(s.sum1) < n {
		s.sum1, s.sum2 = make([]float64, n), make([]float64, n)
	}
	return s.sum1[:n], s.sum2[:n]
}

// Run runs MG of the given class on the ranks of c and writes the
// reference's report to out on rank 0. The largest power of two of ranks
// take part; the others wait for them, as in the reference.
func Run(c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	p, ok := classes[class]
	if !ok {
		return Result{}, fmt.Errorf("mg: unknown class %q (want S, W, A, B or C)", class)
	}
	total := c.Size()
	nprocs := 1 << (ilog2(total+1) - 1) // the largest power of two <= total
	color := 0
	if c.Rank() >= nprocs {
		color = 1
	}
	work, err := c.Split(color, c.Rank())
	if err != nil {
		return Result{}, err
	}
	defer work.Free()
	if color == 1 {
		return Result{Class: class, Nprocs: nprocs}, nil
	}
	lt := ilog2(p.size)
	// The largest process-grid factor, 2**ceil(logp/3), must fit in the grid.
	if (ilog2(nprocs)+2)/3 > lt {
		return Result{}, fmt.Errorf("mg: class %c (%d^3) cannot be split over %d ranks", class, p.size, nprocs)
	}
	s := newState(work, lt, nprocs)
	s.nx[lt], s.ny[lt], s.nz[lt] = p.size, p.size, p.size
	s.a = [4]float64{-8.0 / 3.0, 0, 1.0 / 6.0, 1.0 / 12.0}
	if p.bigClass {
		s.c = [4]float64{-3.0 / 17.0, +1.0 / 33.0, -1.0 / 61.0, 0}
	} else {
		s.c = [4]float64{-3.0 / 8.0, +1.0 / 32.0, -1.0 / 64.0, 0}
	}
	root := s.me == 0
	say := func(format string, args ...any) {
		if root {
			fmt.Fprintf(out, format, args...)
		}
	}
	return s.bench(class, p, total, opt, out, say)
}

func newState(work *mpi.Comm, lt, nprocs int) *mgState {
	s := &mgState{comm: work, me: work.Rank(), nprocs: nprocs, lt: lt, lb: 1}
	s.t = newTimers(work, false)
	levels := lt + 2
	for _, p := range []*[]int{&s.nx, &s.ny, &s.nz, &s.m1, &s.m2, &s.m3, &s.ir} {
		*p = make([]int, levels)
	}
	s.dead = make([]bool, levels)
	for ax := 0; ax < 3; ax++ {
		s.giveEx[ax] = make([]bool, levels)
		s.takeEx[ax] = make([]bool, levels)
		for d := 0; d < 2; d++ {
			s.nbr[ax][d] = make([]int, levels)
		}
	}
	// Array sizes as in alloc_space.
	logp := ilog2(nprocs)
	lm := lt - logp/3
	ndim1, ndim2, ndim3 := lm, lt-(logp+1)/3, lt-(logp+2)/3
	nm := 2 + 1<<lm
	nv := (2 + 1<<ndim1) * (2 + 1<<ndim2) * (2 + 1<<ndim3)
	nm2 := 2 * nm * nm
	nr := (8 * (nv + nm*nm + 5*nm + 14*lt - 7*lm)) / 7
	for i := range s.buff {
		s.buff[i] = make([]float64, nm2)
	}
	s.u, s.v, s.r = make([]float64, nr), make([]float64, nv), make([]float64, nr)
	return s
}

// bench is the reference's main program after argument handling.
func (s *mgState) bench(class byte, p params, total int, opt Options, out io.Writer, say func(string, ...any)) (Result, error) {
	lt := s.lt
	for i := 0; i < tLast; i++ {
		s.t.Clear(i)
	}
	if err := s.comm.Barrier(); err != nil {
		return Result{}, err
	}
	s.t.startAlways(tInit)
	say("\n\n NAS Parallel Benchmarks 3.4 -- MG Benchmark\n\n")
	say(" No input file. Using compiled defaults \n")
	// Rank 0's parameters reach the others by broadcast, one value (or
	// the debug vector) per call, as in the reference.
	nit, timeron := p.nit, 0
	if opt.Timers {
		timeron = 1
	}
	debug := make([]int32, 8)
	for _, v := range []*int{&s.lt, &nit, &s.nx[lt], &s.ny[lt], &s.nz[lt]} {
		if err := bcastInt(s.comm, v); err != nil {
			return Result{}, err
		}
	}
	if err := mpi.Bcast(s.comm, debug, 0); err != nil {
		return Result{}, err
	}
	if err := bcastInt(s.comm, &timeron); err != nil {
		return Result{}, err
	}
	s.t.enabled = timeron != 0

	s.setup()
	n1, n2, n3 := s.n1, s.n2, s.n3
	dn := float64(s.nx[lt]) * float64(s.ny[lt]) * float64(s.nz[lt])
	zero3(s.u, n1, n2, n3)
	if err := s.zran3(s.v, n1, n2, n3, s.nx[lt], s.ny[lt], lt); err != nil {
		return Result{}, err
	}
	if _, _, err := s.norm2u3(s.v, n1, n2, n3, dn); err != nil {
		return Result{}, err
	}
	say(" Size: %4dx%4dx%4d  (class %c)\n", s.nx[lt], s.ny[lt], s.nz[lt], class)
	say(" Iterations: %4d\n", nit)
	if s.nprocs != total {
		say(" WARNING: The benchmark requires power-of-two processes.\n Number of active processes: %6d\n", s.nprocs)
	}
	say(" Total number of processes: %6d\n\n", total)

	// One untimed iteration touches all data, as in the reference.
	if err := s.resid(s.u, s.v, s.r, n1, n2, n3, lt); err != nil {
		return Result{}, err
	}
	if _, _, err := s.norm2u3(s.r, n1, n2, n3, dn); err != nil {
		return Result{}, err
	}
	if err := s.mg3P(n1, n2, n3); err != nil {
		return Result{}, err
	}
	if err := s.resid(s.u, s.v, s.r, n1, n2, n3, lt); err != nil {
		return Result{}, err
	}
	s.setup()
	zero3(s.u, n1, n2, n3)
	if err := s.zran3(s.v, n1, n2, n3, s.nx[lt], s.ny[lt], lt); err != nil {
		return Result{}, err
	}
	s.t.stopAlways(tInit)
	say("\n Initialization time: %15.3f seconds\n\n", s.t.Read(tInit))

	for i := 0; i < tLast; i++ {
		if i != tInit {
			s.t.Clear(i)
		}
	}
	if err := s.comm.Barrier(); err != nil {
		return Result{}, err
	}
	s.t.startAlways(tBench)
	if err := s.resid(s.u, s.v, s.r, n1, n2, n3, lt); err != nil {
		return Result{}, err
	}
	if _, _, err := s.norm2u3(s.r, n1, n2, n3, dn); err != nil {
		return Result{}, err
	}
	for it := 1; it <= nit; it++ {
		if it == 1 || it == nit || it%5 == 0 {
			say("  iter %4d\n", it)
		}
		if err := s.mg3P(n1, n2, n3); err != nil {
			return Result{}, err
		}
		if err := s.resid(s.u, s.v, s.r, n1, n2, n3, lt); err != nil {
			return Result{}, err
		}
	}
	rnm2, _, err := s.norm2u3(s.r, n1, n2, n3, dn)
	if err != nil {
		return Result{}, err
	}
	s.t.stopAlways(tBench)
	tmax := []float64{0}
	if err := mpi.Reduce(s.comm, []float64{s.t.Read(tBench)}, tmax, mpi.Max, 0); err != nil {
		return Result{}, err
	}

	res := Result{Class: class, Nprocs: s.nprocs, L2Norm: rnm2, Time: tmax[0]}
	if s.me == 0 {
		say("\n Benchmark completed \n")
		res.Err, res.Verified = verifyNorm(rnm2, p.verify)
		if res.Verified {
			say(" VERIFICATION SUCCESSFUL \n")
			say(" L2 Norm is %s\n", fortranE(rnm2, 20, 13))
			say(" Error is   %s\n", fortranE(res.Err, 20, 13))
		} else {
			say(" VERIFICATION FAILED\n")
			say(" L2 Norm is             %s\n", fortranE(rnm2, 20, 13))
			say(" The correct L2 Norm is %s\n", fortranE(p.verify, 20, 13))
		}
		if res.Time != 0 {
			res.Mops = 58.0 * 1e-6 * float64(nit) * dn / res.Time
		}
		err := npb.Results{
			Name: "MG", Class: class, N1: s.nx[lt], N2: s.ny[lt], N3: s.nz[lt],
			Iterations: nit, Seconds: res.Time, Procs: total, ActiveProc: s.nprocs,
			Mops: res.Mops, OpType: "floating point", Verified: res.Verified,
		}.Print(out)
		if err != nil {
			return res, err
		}
	}
	if err := s.t.report(out); err != nil {
		return res, err
	}
	if s.me == 0 && !res.Verified {
		return res, errors.New("mg: verification failed")
	}
	return res, nil
}

// mg3P is one V-cycle: restrict the residual down to the coarsest level,
// solve there approximately, then interpolate and smooth back up.
// verifyNorm compares the final residual norm with the published one: the
// relative error and whether it is within the reference's 1e-8 (a NaN
// norm never is).
func verifyNorm(rnm2, want float64) (relErr float64, ok bool) {
	relErr = math.Abs(rnm2-want) / want
	return relErr, !math.IsNaN(relErr) && relErr <= 1e-8
}

func (s *mgState) mg3P(n1, n2, n3 int) error {
	lt, lb := s.lt, s.lb
	lvl := func(a []float64, k int) []float64 { return a[s.ir[k]:] }
	for k := lt; k >= lb+1; k-- {
		j := k - 1
		if err := s.rprj3(lvl(s.r, k), s.m1[k], s.m2[k], s.m3[k], lvl(s.r, j), s.m1[j], s.m2[j], s.m3[j], k); err != nil {
			return err
		}
	}
	k := lb
	zero3(lvl(s.u, k), s.m1[k], s.m2[k], s.m3[k])
	if err := s.psinv(lvl(s.r, k), lvl(s.u, k), s.m1[k], s.m2[k], s.m3[k], k); err != nil {
		return err
	}
	for k := lb + 1; k <= lt-1; k++ {
		j := k - 1
		zero3(lvl(s.u, k), s.m1[k], s.m2[k], s.m3[k])
		if err := s.interp(lvl(s.u, j), s.m1[j], s.m2[j], s.m3[j], lvl(s.u, k), s.m1[k], s.m2[k], s.m3[k], k); err != nil {
			return err
		}
		if err := s.resid(lvl(s.u, k), lvl(s.r, k), lvl(s.r, k), s.m1[k], s.m2[k], s.m3[k], k); err != nil {
			return err
		}
		if err := s.psinv(lvl(s.r, k), lvl(s.u, k), s.m1[k], s.m2[k], s.m3[k], k); err != nil {
			return err
		}
	}
	j, k := lt-1, lt
	if err := s.interp(lvl(s.u, j), s.m1[j], s.m2[j], s.m3[j], s.u, n1, n2, n3, k); err != nil {
		return err
	}
	if err := s.resid(s.u, s.v, s.r, n1, n2, n3, k); err != nil {
		return err
	}
	return s.psinv(s.r, s.u, n1, n2, n3, k)
}

// bcastInt broadcasts one integer from rank 0 (an MPI_INTEGER).
func bcastInt(c *mpi.Comm, v *int) error {
	b := []int32{int32(*v)}
	err := mpi.Bcast(c, b, 0)
	*v = int(b[0])
	return err
}
