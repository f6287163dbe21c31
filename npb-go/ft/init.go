package main

import (
	"math"

	"github.com/gompi/gompi/mpi"
	"github.com/gompi/gompi/npb-go/internal/npb"
)

const (
	seed  = 314159265.0
	mult  = 1220703125.0 // the generator's multiplier a = 5**13
	alpha = 1.0e-6
)

// computeIndexmap fills twiddle with exp(-4 alpha pi^2 |k|^2), the factor
// one time step multiplies each Fourier mode by, in layout 3 order: (x,y,z)
// for the 0-D layout, (z,x,y) otherwise. The squared wave numbers of each
// axis are tabulated first rather than recomputed (with integer divisions)
// for every point; the values are the same.
func (s *ftState) computeIndexmap() {
	ap := -4.0 * alpha * math.Pi * math.Pi
	// sq returns (wrapped wave number)^2 for local indices 1..d of an axis
	// of global size n whose first local index is global start.
	sq := func(d, start, n int) []int {
		t := make([]int, d)
		for i := range t {
			w := (i+1+start-2+n/2)%n - n/2
			t[i] = w * w
		}
		return t
	}
	d1, d2, d3 := s.dim(1, 3), s.dim(2, 3), s.dim(3, 3)
	if s.layout == layout0D {
		ii2, jj2, kk2 := sq(d1, s.xstart[2], s.nx), sq(d2, s.ystart[2], s.ny), sq(d3, s.zstart[2], s.nz)
		for i := range ii2 {
			for j := range jj2 {
				ij2 := jj2[j] + ii2[i]
				for k, kk := range kk2 {
					s.twiddle[i+d1*(j+d2*k)] = math.Exp(ap * float64(kk+ij2))
				}
			}
		}
		return
	}
	ii2, jj2, kk2 := sq(d2, s.xstart[2], s.nx), sq(d3, s.ystart[2], s.ny), sq(d1, s.zstart[2], s.nz)
	for i := range ii2 {
		for j := range jj2 {
			ij2 := jj2[j] + ii2[i]
			row := s.twiddle[d1*(i+d2*j):][:len(kk2)]
			for k, kk := range kk2 {
				row[k] = math.Exp(ap * float64(kk+ij2))
			}
		}
	}
}

// computeInitialConditions fills u0 (layout 1) with the NPB generator's
// numbers, each rank starting at its own place in the global sequence so
// that the field is the same for every process count.
func (s *ftState) computeInitialConditions(u0 []complex128) {
	d1, d2, d3 := s.dim(1, 1), s.dim(2, 1), s.dim(3, 1)
	start := seed
	an := npb.Pow46(mult, int64(2*s.nx)*int64((s.zstart[0]-1)*s.ny+(s.ystart[0]-1))) // the reference's ipow46
	npb.Randlc(&start, an)
	an = npb.Pow46(mult, int64(2*s.nx)*int64(s.ny))
	plane := d1 * d2
	vals := s.randBuf[:2*plane]
	for k := 0; k < d3; k++ {
		x0 := start
		// The integer form (NPB's randi8) gives the same numbers, faster;
		// this generation is inside the timed section.
		npb.VranlcI8(2*plane, &x0, mult, vals)
		dst := u0[plane*k:][:plane]
		for i := range dst {
			dst[i] = complex(vals[2*i], vals[2*i+1])
		}
		if k != d3-1 {
			npb.Randlc(&start, an)
		}
	}
}

// evolve advances one time step in Fourier space: u0 *= twiddle, u1 = u0.
func evolve(u0, u1 []complex128, twiddle []float64) {
	u1 = u1[:len(u0)]
	twiddle = twiddle[:len(u0)]
	for i, v := range u0 {
		t := twiddle[i]
		v = complex(real(v)*t, imag(v)*t)
		u0[i] = v
		u1[i] = v
	}
}

// checksum sums 1024 scattered elements of u1 (layout 1) over all ranks
// with one Reduce to rank 0, which prints it; it returns the global sum on
// rank 0.
func (s *ftState) checksum(iter int, u1 []complex128, say func(string, ...any)) (complex128, error) {
	d1, d2 := s.dim(1, 1), s.dim(2, 1)
	var chk complex128
	for j := 1; j <= 1024; j++ {
		q := j%s.nx + 1
		if q < s.xstart[0] || q > s.xend[0] {
			continue
		}
		r := (3*j)%s.ny + 1
		if r < s.ystart[0] || r > s.yend[0] {
			continue
		}
		z := (5*j)%s.nz + 1
		if z < s.zstart[0] || z > s.zend[0] {
			continue
		}
		chk += u1[(q-s.xstart[0])+d1*((r-s.ystart[0])+d2*(z-s.zstart[0]))]
	}
	// The reference divides by a real: component-wise, not complex division.
	chk = complex(real(chk)/s.ntotal, imag(chk)/s.ntotal)
	s.t.start(tSynch)
	all := []complex128{0}
	err := mpi.Reduce(s.comm, []complex128{chk}, all, mpi.Sum, 0)
	s.t.stop(tSynch)
	if err != nil {
		return 0, err
	}
	say(" T =%5d     Checksum =%s%s\n", iter, fortranD(real(all[0]), 22, 12), fortranD(imag(all[0]), 22, 12))
	return all[0], nil
}
