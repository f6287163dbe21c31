package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// Timer indices, the reference's t_* (lu_data.f's timing module). The
// reference never starts t_jacld and t_jacu (jacld and jacu run inside
// the blts and buts timers) and does not print them.
const (
	tTotal = iota
	tRHS
	tBlts
	tButs
	tJacld
	tJacu
	tExch
	tLcomm
	tUcomm
	tRcomm
	tLast
)

// timerNames are the reference's t_recs; a leading '#' marks a timer that
// is not printed.
var timerNames = [tLast + 2]string{"total", "rhs", "blts", "buts", "#jacld", "#jacu",
	"exch", "lcomm", "ucomm", "rcomm", " totcomp", " totcomm"}

// Message tags (lu_data.f: from_s, from_n, from_e, from_w).
const (
	fromS = 1
	fromN = 2
	fromE = 3
	fromW = 4
)

// params are the per-class values of the reference's setparams (grid size,
// pseudo-time steps, time step) and verify.f (the published RMS norms of
// the residual, xcr, and of the solution error, xce, and the surface
// integral xci).
type params struct {
	size, itmax int
	dt          float64
	xcr, xce    [5]float64
	xci         float64
}

var classes = map[byte]params{
	'S': {12, 50, 0.5,
		[5]float64{1.6196343210976702e-02, 2.1976745164821318e-03, 1.5179927653399185e-03, 1.5029584435994323e-03, 3.4264073155896461e-02},
		[5]float64{6.4223319957960924e-04, 8.4144342047347926e-05, 5.8588269616485186e-05, 5.8474222595157350e-05, 1.3103347914111294e-03},
		7.8418928865937083e+00},
	'W': {33, 300, 1.5e-3,
		[5]float64{0.1236511638192e+02, 0.1317228477799e+01, 0.2550120713095e+01, 0.2326187750252e+01, 0.2826799444189e+02},
		[5]float64{0.4867877144216e+00, 0.5064652880982e-01, 0.9281818101960e-01, 0.8570126542733e-01, 0.1084277417792e+01},
		0.1161399311023e+02},
	'A': {64, 250, 2.0,
		[5]float64{7.7902107606689367e+02, 6.3402765259692870e+01, 1.9499249727292479e+02, 1.7845301160418537e+02, 1.8384760349464247e+03},
		[5]float64{2.9964085685471943e+01, 2.8194576365003349e+00, 7.3473412698774742e+00, 6.7139225687777051e+00, 7.0715315688392578e+01},
		2.6030925604886277e+01},
	'B': {102, 250, 2.0,
		[5]float64{3.5532672969982736e+03, 2.6214750795310692e+02, 8.8333721850952190e+02, 7.7812774739425265e+02, 7.3087969592545314e+03},
		[5]float64{1.1401176380212709e+02, 8.1098963655421574e+00, 2.8480597317698308e+01, 2.5905394567832939e+01, 2.6054907504857413e+02},
		4.7887162703308227e+01},
	'C': {162, 250, 2.0,
		[5]float64{1.03766980323537846e+04, 8.92212458801008552e+02, 2.56238814582660871e+03, 2.19194343857831427e+03, 1.78078057261061185e+04},
		[5]float64{2.15986399716949279e+02, 1.55789559239863600e+01, 5.41318863077207766e+01, 4.82262643154045421e+01, 4.55902910043250358e+02},
		6.66404553572181300e+01},
}

// The reference's defaults for what inputlu.data could override.
const (
	omegaDefault  = 1.2
	tolrsdDefault = 1.0e-08
	ipr           = 1
)

// Result is what a run reports (on every rank; Verified is rank 0's
// verdict, Time the maximum over ranks).
type Result struct {
	Class      byte
	Nprocs     int
	Xdim, Ydim int        // the process grid
	Xcr, Xce   [5]float64 // RMS norms of the residual and of the solution error
	Xci        float64    // surface integral
	Verified   bool
	Time       float64
	Mops       float64
}

// Options are run-time knobs the reference takes from the environment.
type Options struct {
	// Timers prints the per-phase timers (NPB_TIMER_FLAG); rank 0's value
	// is broadcast to the others.
	Timers bool
}

// Run runs LU of the given class on the ranks of c and writes the
// reference's report to out on rank 0. The ranks form the reference's
// xdim x ydim grid (proc_grid): powers of two, squares and other counts
// whose factorisation is close enough to square are accepted, others
// rejected with an error, as is a grid that leaves a rank fewer than 3
// points along an axis.
func Run(c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	p, ok := classes[class]
	if !ok {
		return Result{}, fmt.Errorf("lu: unknown class %q (want S, W, A, B or C)", class)
	}
	s := &luState{comm: c, id: c.Rank(), num: c.Size()}
	s.t = newTimers(c, false)
	res, err := s.bench(class, p, opt, out)
	if err != nil {
		return res, err
	}
	if s.id == 0 && !res.Verified {
		return res, errors.New("lu: verification failed")
	}
	return res, nil
}

// bench is the reference's main program (lu.f).
func (s *luState) bench(class byte, p params, opt Options, out io.Writer) (Result, error) {
	root := s.id == 0
	say := func(format string, args ...any) {
		if root {
			fmt.Fprintf(out, format, args...)
		}
	}
	res := Result{Class: class, Nprocs: s.num}

	// read_input: rank 0 takes the compiled defaults (there is no
	// inputlu.data here) and broadcasts them one by one (bcast_inputs).
	s.inorm, s.itmax = p.itmax, p.itmax
	s.dt, s.omega = p.dt, omegaDefault
	for m := range s.tolrsd {
		s.tolrsd[m] = tolrsdDefault
	}
	s.nx0, s.ny0, s.nz0 = p.size, p.size, p.size
	timeron := 0
	if opt.Timers {
		timeron = 1
	}
	say("\n\n NAS Parallel Benchmarks 3.4 -- LU Benchmark\n\n")
	say(" Size: %4dx%4dx%4d  (class %c)\n", s.nx0, s.ny0, s.nz0, class)
	say(" Iterations: %4d\n", s.itmax)
	say(" Total number of processes: %5d\n\n", s.num)
	iprv := ipr
	for _, v := range []*int{&iprv, &s.inorm, &s.itmax} {
		if err := bcastInt(s.comm, v); err != nil {
			return res, err
		}
	}
	for _, v := range []*float64{&s.dt, &s.omega} {
		if err := bcastFloat(s.comm, v); err != nil {
			return res, err
		}
	}
	tol := s.tolrsd[:]
	if err := mpi.Bcast(s.comm, tol, 0); err != nil {
		return res, err
	}
	for _, v := range []*int{&s.nx0, &s.ny0, &s.nz0, &timeron} {
		if err := bcastInt(s.comm, v); err != nil {
			return res, err
		}
	}
	s.t.enabled = timeron != 0
	for i := 0; i < tLast; i++ {
		s.t.Clear(i)
	}

	if err := s.procGrid(); err != nil {
		say(" %v\n", err)
		return res, fmt.Errorf("lu: %w", err)
	}
	res.Xdim, res.Ydim = s.xdim, s.ydim
	if s.num != 1<<nodedim(s.num) {
		say(" Proc_grid for nprocs =%6d:%5d x%5d\n\n", s.num, s.xdim, s.ydim)
	}
	s.neighbors()
	if err := s.subdomain(); err != nil {
		say(" %v\n", err)
		return res, fmt.Errorf("lu: %w", err)
	}
	s.allocSpace()
	s.setcoeff()
	s.setbv()
	s.setiv()
	if err := s.erhs(); err != nil {
		return res, err
	}
	// One SSOR iteration touches all data and code, then the boundary and
	// initial values are reset.
	if err := s.ssor(1, out); err != nil {
		return res, err
	}
	s.setbv()
	s.setiv()
	if err := s.ssor(s.itmax, out); err != nil {
		return res, err
	}
	if err := s.errorNorm(); err != nil {
		return res, err
	}
	if err := s.pintgr(); err != nil {
		return res, err
	}
	res.Xcr, res.Xce, res.Xci, res.Time = s.rsdnm, s.errnm, s.frc, s.maxtime
	if root {
		var b strings.Builder
		res.Verified = verify(&b, class, p, s.dt, s.rsdnm, s.errnm, s.frc)
		if _, err := io.WriteString(out, b.String()); err != nil {
			return res, err
		}
		n0 := float64(s.nx0) * float64(s.ny0) * float64(s.nz0)
		avg := float64(s.nx0+s.ny0+s.nz0) / 3
		if s.maxtime != 0 {
			// The reference's coefficients are default (single precision)
			// REAL constants.
			res.Mops = 1.0e-6 * float64(s.itmax) * (f32(1984.77)*n0 - f32(10923.3)*avg*avg +
				f32(27770.9)*avg - f32(144010.)) / s.maxtime
		}
		err := npb.Results{
			Name: "LU", Class: class, N1: s.nx0, N2: s.ny0, N3: s.nz0,
			Iterations: s.itmax, Seconds: s.maxtime, Procs: s.num, ActiveProc: s.num,
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

// f32 widens a single precision constant, as Fortran does with a default
// REAL literal in a double precision expression.
func f32(v float32) float64 { return float64(v) }

// bcastInt broadcasts one integer from rank 0 (an MPI_INTEGER).
func bcastInt(c *mpi.Comm, v *int) error {
	b := []int32{int32(*v)}
	err := mpi.Bcast(c, b, 0)
	*v = int(b[0])
	return err
}

// bcastFloat broadcasts one double from rank 0.
func bcastFloat(c *mpi.Comm, v *float64) error {
	b := []float64{*v}
	err := mpi.Bcast(c, b, 0)
	*v = b[0]
	return err
}
