// Command ft is the NAS Parallel Benchmarks FT kernel (NPB 3.4, MPI
// version) on gompi: a 3-D heat equation solved spectrally with forward and
// inverse 3-D FFTs, the grid distributed in slabs (1-D layout) or pencils
// (2-D layout) and transposed with all-to-all exchanges as in the
// reference.
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/cmplx"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

// Timer indices, the reference's T_* (minus one).
const (
	tTotal = iota
	tSetup
	tFft
	tEvolve
	tChecksum
	tFftlow
	tFftcopy
	tTranspose
	tTransxzloc
	tTransxzglo
	tTransxzfin
	tTransxyloc
	tTransxyglo
	tTransxyfin
	tSynch
	tInit
	tMax
)

var timerNames = [tMax]string{"total", "setup", "fft", "evolve", "checksum", "fftlow", "fftcopy",
	"transpose", "transpose1_loc", "transpose1_glo", "transpose1_fin", "transpose2_loc",
	"transpose2_glo", "transpose2_fin", "sync", "init"}

// The reference's data layouts: 0-D (one rank), 1-D slabs, 2-D pencils.
const (
	layout0D = iota
	layout1D
	layout2D
)

const (
	fftblockDefault    = 16
	fftblockpadDefault = 18
)

// params are the per-class sizes of the reference's setparams.
type params struct {
	nx, ny, nz, niter int
}

var classes = map[byte]params{
	'S': {64, 64, 64, 6},
	'W': {128, 128, 32, 6},
	'A': {256, 256, 128, 6},
	'B': {512, 256, 256, 20},
	'C': {512, 512, 512, 20},
}

// Result is what a run reports. Checksums and Verified are the root's.
type Result struct {
	Class     byte
	Layout    string
	Checksums []complex128
	Verified  bool
	Time      float64 // this rank's total time, as the reference reports it
	Mops      float64
}

// Options are the knobs the reference reads from inputft.data and
// timer.flag.
type Options struct {
	// Timers prints the detailed timers; rank 0's value is broadcast.
	Timers bool
	// Np1, Np2 set the process grid (np1 = 1: 1-D layout, otherwise 2-D);
	// zero means the reference's default for the process count.
	Np1, Np2 int
}

// ftState is one rank's benchmark state (the reference's module data).
type ftState struct {
	comm, slice1, slice2 *mpi.Comm
	me, np, me1, me2     int
	np1, np2, layout     int
	nx, ny, nz, niter    int
	ntotal               float64
	ntdivnp              int
	dims                 [3][3]int // dims[i][l] is the reference's dims(i+1, l+1)
	xstart, ystart       [3]int    // 1-based, per layout
	zstart               [3]int
	xend, yend, zend     [3]int
	fftblock             int
	fftblockpad          int

	u0, u1, u2 []complex128
	twiddle    []float64
	roots      []complex128 // the reference's u: roots of unity
	scratch    []complex128
	tile       [transblock][transblockpad]complex128
	xzbuf      []complex128
	randBuf    []float64

	t timers
}

// Run runs FT of the given class on the ranks of c and writes the
// reference's report to out on rank 0.
func Run(c *mpi.Comm, class byte, out io.Writer, opt Options) (Result, error) {
	p, ok := classes[class]
	if !ok {
		return Result{}, fmt.Errorf("ft: unknown class %q (want S, W, A, B or C)", class)
	}
	s := &ftState{comm: c, me: c.Rank(), np: c.Size(), nx: p.nx, ny: p.ny, nz: p.nz, niter: p.niter}
	s.t = newTimers(c, false)
	say := func(format string, args ...any) {
		if s.me == 0 {
			fmt.Fprintf(out, format, args...)
		}
	}
	for i := 0; i < tMax; i++ {
		s.t.Clear(i)
	}
	s.t.Start(tInit)
	if err := s.setup(opt, say); err != nil {
		return Result{}, err
	}
	defer s.slice1.Free()
	defer s.slice2.Free()
	s.computeIndexmap()
	s.computeInitialConditions(s.u1)
	s.fftInit(s.dim(1, 1))
	if err := s.fft(1, s.u1, s.u0); err != nil {
		return Result{}, err
	}
	s.t.Stop(tInit)
	say("\n Initialization time = %12.4f\n\n", s.t.Read(tInit))

	for i := 0; i < tMax; i++ {
		s.t.Clear(i)
	}
	if err := c.Barrier(); err != nil {
		return Result{}, err
	}
	s.t.Start(tTotal)
	s.t.start(tSetup)
	s.computeIndexmap()
	s.computeInitialConditions(s.u1)
	s.fftInit(s.dim(1, 1))
	s.t.stop(tSetup)
	s.t.start(tFft)
	if err := s.fft(1, s.u1, s.u0); err != nil {
		return Result{}, err
	}
	s.t.stop(tFft)
	sums := make([]complex128, s.niter)
	for iter := 1; iter <= s.niter; iter++ {
		s.t.start(tEvolve)
		evolve(s.u0, s.u1, s.twiddle[:s.ntdivnp])
		s.t.stop(tEvolve)
		s.t.start(tFft)
		if err := s.fft(-1, s.u1, s.u2); err != nil {
			return Result{}, err
		}
		s.t.stop(tFft)
		s.t.start(tChecksum)
		sum, err := s.checksum(iter, s.u2, say)
		s.t.stop(tChecksum)
		if err != nil {
			return Result{}, err
		}
		sums[iter-1] = sum
	}
	res := Result{Class: class, Layout: [...]string{"0D", "1D", "2D"}[s.layout]}
	if s.me == 0 {
		res.Checksums = sums
		res.Verified = verify(class, sums, say)
	}
	s.t.Stop(tTotal)
	res.Time = s.t.Read(tTotal)
	if res.Time != 0 {
		n := s.ntotal
		res.Mops = 1e-6 * n * (14.8157 + 7.19641*math.Log(n) + (5.23518+7.21113*math.Log(n))*float64(s.niter)) / res.Time
	}
	if s.me == 0 {
		err := npb.Results{
			Name: "FT", Class: class, N1: s.nx, N2: s.ny, N3: s.nz, Iterations: s.niter,
			Seconds: res.Time, Procs: s.np, ActiveProc: s.np, Mops: res.Mops,
			OpType: "floating point", Verified: res.Verified,
		}.Print(out)
		if err != nil {
			return res, err
		}
	}
	if err := s.t.report(s.np, say); err != nil {
		return res, err
	}
	if s.me == 0 && !res.Verified {
		return res, errors.New("ft: verification failed")
	}
	return res, nil
}

// setup is the reference's setup: the process grid and layout, the local
// extents in each of the three layouts, the slice communicators and the
// arrays. Process counts the reference cannot lay out are errors.
func (s *ftState) setup(opt Options, say func(string, ...any)) error {
	np := s.np
	if !npb.IsPowerOfTwo(np) {
		return fmt.Errorf("ft: the number of ranks must be a power of two, got %d", np)
	}
	switch {
	case opt.Np1 != 0 || opt.Np2 != 0:
		if opt.Np1 < 1 || opt.Np2 < 1 || opt.Np1*opt.Np2 != np {
			return fmt.Errorf("ft: process grid %dx%d does not match %d ranks", opt.Np1, opt.Np2, np)
		}
		s.np1, s.np2 = opt.Np1, opt.Np2
	case np <= s.nz:
		s.np1, s.np2 = 1, np
	default:
		s.np1, s.np2 = s.nz, np/s.nz
	}
	switch {
	case s.np1 == 1 && s.np2 == 1:
		s.layout = layout0D
	case s.np1 == 1:
		s.layout = layout1D
	default:
		s.layout = layout2D
	}
	nx, ny, nz := s.nx, s.ny, s.nz
	say("\n\n NAS Parallel Benchmarks 3.4 -- FT Benchmark\n\n")
	say(" No input file inputft.data. Using compiled defaults\n")
	say(" Size                : %4dx%4dx%4d  (class %c)\n", nx, ny, nz, classOf(nx, ny, nz, s.niter))
	say(" Iterations          :        %7d\n", s.niter)
	say(" Number of processes :        %7d\n", np)
	say(" Processor array     :      %4dx%4d\n", s.np1, s.np2)
	say(" Layout type         :          %5s\n", [...]string{"0D", "1D", "2D"}[s.layout])
	// Rank 0's choices reach the others by broadcast, one value per call,
	// as in the reference.
	timers := 0
	if opt.Timers {
		timers = 1
	}
	for _, v := range []*int{&s.np1, &s.np2, &s.layout, &s.niter, &timers} {
		b := []int32{int32(*v)}
		if err := mpi.Bcast(s.comm, b, 0); err != nil {
			return err
		}
		*v = int(b[0])
	}
	s.t.enabled = timers != 0

	// Extents per layout before division: 1 = (x,y,z), 2 = (x,y,z) or
	// (y,x,z), 3 = (x,y,z) or (z,x,y).
	ext := [3][3]int{{nx, ny, nz}, {nx, ny, nz}, {nx, ny, nz}}
	switch s.layout {
	case layout1D:
		ext[2] = [3]int{nz, nx, ny}
	case layout2D:
		ext[1] = [3]int{ny, nx, nz}
		ext[2] = [3]int{nz, nx, ny}
	}
	for l := 0; l < 3; l++ {
		s.dims[0][l] = ext[l][0]
		s.dims[1][l] = ext[l][1] / s.np1
		s.dims[2][l] = ext[l][2] / s.np2
		if s.dims[1][l] == 0 || s.dims[2][l] == 0 || ext[l][1]%s.np1 != 0 || ext[l][2]%s.np2 != 0 {
			return fmt.Errorf("ft: a %dx%d process grid cannot divide the %dx%dx%d grid", s.np1, s.np2, nx, ny, nz)
		}
	}
	s.ntotal = float64(nx) * float64(ny) * float64(nz)
	s.ntdivnp = nx * ny / np * nz
	if s.ntdivnp%np != 0 || (s.layout == layout2D && (s.dims[0][1]%s.np1 != 0 || s.dims[0][2]%s.np2 != 0)) {
		return fmt.Errorf("ft: %d ranks cannot share the %dx%dx%d grid evenly", np, nx, ny, nz)
	}

	s.me2 = s.me % s.np2
	s.me1 = s.me / s.np2
	var err error
	if s.slice1, err = s.comm.Split(s.me1, s.me2); err != nil {
		return err
	}
	if s.slice2, err = s.comm.Split(s.me2, s.me1); err != nil {
		return err
	}

	for l := 0; l < 3; l++ {
		s.xstart[l], s.xend[l] = 1, nx
		s.ystart[l], s.yend[l] = 1, ny
		s.zstart[l], s.zend[l] = 1, nz
	}
	me1, me2, np1, np2 := s.me1, s.me2, s.np1, s.np2
	switch s.layout {
	case layout1D:
		for l := 0; l < 2; l++ {
			s.zstart[l], s.zend[l] = 1+me2*nz/np2, (me2+1)*nz/np2
		}
		s.ystart[2], s.yend[2] = 1+me2*ny/np2, (me2+1)*ny/np2
	case layout2D:
		s.ystart[0], s.yend[0] = 1+me1*ny/np1, (me1+1)*ny/np1
		s.zstart[0], s.zend[0] = 1+me2*nz/np2, (me2+1)*nz/np2
		s.xstart[1], s.xend[1] = 1+me1*nx/np1, (me1+1)*nx/np1
		s.zstart[1], s.zend[1] = s.zstart[0], s.zend[0]
		s.xstart[2], s.xend[2] = s.xstart[1], s.xend[1]
		s.ystart[2], s.yend[2] = 1+me2*ny/np2, (me2+1)*ny/np2
	}

	s.fftblock, s.fftblockpad = fftblockDefault, fftblockpadDefault
	if s.layout == layout2D {
		for l := 0; l < 3; l++ {
			s.fftblock = min(s.fftblock, s.dims[1][l])
		}
	}
	if s.fftblock != fftblockDefault {
		s.fftblockpad = s.fftblock + 3
	}
	// The FFT sweeps take whole blocks of fftblock lines.
	for l := 0; l < 3; l++ {
		if s.dims[1][l]%s.fftblock != 0 || s.dims[0][l]%s.fftblock != 0 {
			return fmt.Errorf("ft: a %dx%d process grid leaves blocks the FFT cannot sweep", s.np1, s.np2)
		}
	}

	maxdim := max(nx, ny, nz)
	s.u0 = make([]complex128, s.ntdivnp)
	s.u1 = make([]complex128, s.ntdivnp)
	s.u2 = make([]complex128, s.ntdivnp)
	s.twiddle = make([]float64, s.ntdivnp)
	s.roots = make([]complex128, maxdim)
	s.scratch = make([]complex128, fftblockpadDefault*maxdim*2)
	s.xzbuf = make([]complex128, transblockpad*maxdim)
	s.randBuf = make([]float64, 2*s.dims[0][0]*s.dims[1][0])
	return nil
}

// classOf is the reference's set_class.
func classOf(nx, ny, nz, niter int) byte {
	for c, p := range classes {
		if p == (params{nx, ny, nz, niter}) {
			return c
		}
	}
	return 'U'
}

// verify compares the checksums with the published ones (relative error
// at most 1e-12 each) and prints the verdict.
func verify(class byte, sums []complex128, say func(string, ...any)) bool {
	ref, ok := checksumRef[class]
	if !ok || len(ref) != len(sums) {
		return false
	}
	verified := true
	for i, r := range ref {
		err := cmplx.Abs((sums[i] - r) / r)
		if math.IsNaN(err) || err > 1e-12 {
			verified = false
			break
		}
	}
	if verified {
		say(" Result verification successful\n")
	} else {
		say(" Result verification failed\n")
	}
	return verified
}

// checksumRef are the published FT checksums per class and iteration.
var checksumRef = map[byte][]complex128{
	'S': {
		complex(5.546087004964e+02, 4.845363331978e+02),
		complex(5.546385409189e+02, 4.865304269511e+02),
		complex(5.546148406171e+02, 4.883910722336e+02),
		complex(5.545423607415e+02, 4.901273169046e+02),
		complex(5.544255039624e+02, 4.917475857993e+02),
		complex(5.542683411902e+02, 4.932597244941e+02),
	},
	'W': {
		complex(5.673612178944e+02, 5.293246849175e+02),
		complex(5.631436885271e+02, 5.282149986629e+02),
		complex(5.594024089970e+02, 5.270996558037e+02),
		complex(5.560698047020e+02, 5.260027904925e+02),
		complex(5.530898991250e+02, 5.249400845633e+02),
		complex(5.504159734538e+02, 5.239212247086e+02),
	},
	'A': {
		complex(5.046735008193e+02, 5.114047905510e+02),
		complex(5.059412319734e+02, 5.098809666433e+02),
		complex(5.069376896287e+02, 5.098144042213e+02),
		complex(5.077892868474e+02, 5.101336130759e+02),
		complex(5.085233095391e+02, 5.104914655194e+02),
		complex(5.091487099959e+02, 5.107917842803e+02),
	},
	'B': {
		complex(5.177643571579e+02, 5.077803458597e+02),
		complex(5.154521291263e+02, 5.088249431599e+02),
		complex(5.146409228649e+02, 5.096208912659e+02),
		complex(5.142378756213e+02, 5.101023387619e+02),
		complex(5.139626667737e+02, 5.103976610617e+02),
		complex(5.137423460082e+02, 5.105948019802e+02),
		complex(5.135547056878e+02, 5.107404165783e+02),
		complex(5.133910925466e+02, 5.108576573661e+02),
		complex(5.132470705390e+02, 5.109577278523e+02),
		complex(5.131197729984e+02, 5.110460304483e+02),
		complex(5.130070319283e+02, 5.111252433800e+02),
		complex(5.129070537032e+02, 5.111968077718e+02),
		complex(5.128182883502e+02, 5.112616233064e+02),
		complex(5.127393733383e+02, 5.113203605551e+02),
		complex(5.126691062020e+02, 5.113735928093e+02),
		complex(5.126064276004e+02, 5.114218460548e+02),
		complex(5.125504076570e+02, 5.114656139760e+02),
		complex(5.125002331720e+02, 5.115053595966e+02),
		complex(5.124551951846e+02, 5.115415130407e+02),
		complex(5.124146770029e+02, 5.115744692211e+02),
	},
	'C': {
		complex(5.195078707457e+02, 5.149019699238e+02),
		complex(5.155422171134e+02, 5.127578201997e+02),
		complex(5.144678022222e+02, 5.122251847514e+02),
		complex(5.140150594328e+02, 5.121090289018e+02),
		complex(5.137550426810e+02, 5.121143685824e+02),
		complex(5.135811056728e+02, 5.121496764568e+02),
		complex(5.134569343165e+02, 5.121870921893e+02),
		complex(5.133651975661e+02, 5.122193250322e+02),
		complex(5.132955192805e+02, 5.122454735794e+02),
		complex(5.132410471738e+02, 5.122663649603e+02),
		complex(5.131971141679e+02, 5.122830879827e+02),
		complex(5.131605205716e+02, 5.122965869718e+02),
		complex(5.131290734194e+02, 5.123075927445e+02),
		complex(5.131012720314e+02, 5.123166486553e+02),
		complex(5.130760908195e+02, 5.123241541685e+02),
		complex(5.130528295923e+02, 5.123304037599e+02),
		complex(5.130310107773e+02, 5.123356167976e+02),
		complex(5.130103090133e+02, 5.123399592211e+02),
		complex(5.129905029333e+02, 5.123435588985e+02),
		complex(5.129714421109e+02, 5.123465164008e+02),
	},
}
