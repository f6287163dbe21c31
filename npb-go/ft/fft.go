package main

import (
	"math"
	"math/cmplx"
)

// The 1-D FFTs of the reference: Stockham radix-2 passes (fftz2) applied to
// fftblock independent sequences at once. cffts1/2/3 copy a block of
// fftblock lines of the 3-D array into the scratch array y(fftblockpad, n)
// (line index fastest, padded to fftblockpad to spread cache sets), run
// cfftz on it and copy back. Arrays are the reference's x(d1,d2,d3) in
// column-major order: (i,j,k) is at i + d1*(j + d2*k), all 0-based.

// fftInit builds the table of roots of unity for lengths up to n, laid out
// as the reference's u: u[0] holds log2(n); for each pass j = 1..m the ln =
// 2**(j-1) roots exp(i*pi*t/ln) follow, starting at index ln.
func (s *ftState) fftInit(n int) {
	m := ilog2(n)
	s.roots[0] = complex(float64(m), 0)
	ku, ln := 1, 1
	for j := 1; j <= m; j++ {
		t := math.Pi / float64(ln)
		for i := 0; i < ln; i++ {
			ti := float64(i) * t
			s.roots[i+ku] = complex(math.Cos(ti), math.Sin(ti))
		}
		ku += ln
		ln *= 2
	}
}

// cfftz computes in place the FFT (is = 1 forward, -1 inverse, both
// unnormalised) of length n = 2**m of the fftblock lines held in x, using y
// as the ping-pong partner.
func (s *ftState) cfftz(is, m, n int, x, y []complex128) {
	// The reference checks here that m fits the roots table; every
	// length is at most nx, the table's length, for all classes.
	for l := 1; l <= m; l += 2 {
		fftz2(is, l, m, n, s.fftblock, s.fftblockpad, s.roots, x, y)
		if l == m {
			for j := 0; j < n; j++ {
				copy(x[j*s.fftblockpad:j*s.fftblockpad+s.fftblock], y[j*s.fftblockpad:])
			}
			return
		}
		fftz2(is, l+1, m, n, s.fftblock, s.fftblockpad, s.roots, y, x)
	}
}

// fftz2 performs pass l of an FFT of length n = 2**m on ny lines stored
// with stride ny1, from x into y.
func fftz2(is, l, m, n, ny, ny1 int, u, x, y []complex128) {
	n1 := n / 2
	lk := 1 << (l - 1)
	li := 1 << (m - l)
	lj := 2 * lk
	for i := 0; i < li; i++ {
		i11 := i * lk
		i12 := i11 + n1
		i21 := i * lj
		i22 := i21 + lk
		u1 := u[li+i]
		if is < 1 {
			u1 = cmplx.Conj(u1)
		}
		if ny == fftblockDefault {
			butterflies16(u1, lk, ny1, x[i11*ny1:], x[i12*ny1:], y[i21*ny1:], y[i22*ny1:])
			continue
		}
		for k := 0; k < lk; k++ {
			xa := x[(i11+k)*ny1:][:ny]
			xb := x[(i12+k)*ny1:][:len(xa)]
			ya := y[(i21+k)*ny1:][:len(xa)]
			yb := y[(i22+k)*ny1:][:len(xa)]
			for j, x11 := range xa {
				x21 := xb[j]
				ya[j] = x11 + x21
				yb[j] = u1 * (x11 - x21)
			}
		}
	}
}

// butterflies16 is fftz2's inner loops for the default block of 16 lines:
// lk rows of 16 values, rows ny1 apart; in AVX2 where the CPU has it.
func butterflies16(u1 complex128, lk, ny1 int, xa, xb, ya, yb []complex128) {
	if haveAVX2 && lk > 0 {
		last := (lk-1)*ny1 + fftblockDefault // every row in bounds
		_, _, _, _ = xa[last-1], xb[last-1], ya[last-1], yb[last-1]
		butterflies16AVX2(u1, lk, ny1, &xa[0], &xb[0], &ya[0], &yb[0])
		return
	}
	butterflies16Go(u1, lk, ny1, xa, xb, ya, yb)
}

// butterflies16Go is butterflies16 in Go: the rows viewed as fixed-size
// arrays so that the compiler checks each row once instead of every
// element.
func butterflies16Go(u1 complex128, lk, ny1 int, xa, xb, ya, yb []complex128) {
	for o := 0; o < lk*ny1; o += ny1 {
		a := (*[fftblockDefault]complex128)(xa[o : o+fftblockDefault])
		b := (*[fftblockDefault]complex128)(xb[o : o+fftblockDefault])
		c := (*[fftblockDefault]complex128)(ya[o : o+fftblockDefault])
		d := (*[fftblockDefault]complex128)(yb[o : o+fftblockDefault])
		for j := range a {
			x11, x21 := a[j], b[j]
			c[j] = x11 + x21
			d[j] = u1 * (x11 - x21)
		}
	}
}

// cffts1 transforms along the first dimension of x(d1,d2,d3) into xout
// (which may be x).
func (s *ftState) cffts1(is, d1, d2, d3 int, x, xout []complex128) {
	logd1 := ilog2(d1)
	fb, pad := s.fftblock, s.fftblockpad
	y1, y2 := s.scratch[:pad*d1], s.scratch[pad*d1:2*pad*d1]
	for k := 0; k < d3; k++ {
		for jj := 0; jj <= d2-fb; jj += fb {
			s.t.start(tFftcopy)
			gatherLines(y1, pad, fb, x[d1*(jj+d2*k):], d1)
			s.t.stop(tFftcopy)
			s.t.start(tFftlow)
			s.cfftz(is, logd1, d1, y1, y2)
			s.t.stop(tFftlow)
			s.t.start(tFftcopy)
			scatterLines(xout[d1*(jj+d2*k):], d1, y1, pad, fb)
			s.t.stop(tFftcopy)
		}
	}
}

// gatherLines copies fb lines of n values, consecutive in x, into the
// columns of y(pad, n): y[j+pad*i] = x[i+n*j]. Four lines go per pass so
// that each destination row is visited once per four values.
func gatherLines(y []complex128, pad, fb int, x []complex128, n int) {
	j := 0
	for ; j+4 <= fb; j += 4 {
		r0 := x[n*j:][:n]
		r1, r2, r3 := x[n*(j+1):][:len(r0)], x[n*(j+2):][:len(r0)], x[n*(j+3):][:len(r0)]
		for i, v := range r0 {
			d := y[j+pad*i:][:4]
			d[0], d[1], d[2], d[3] = v, r1[i], r2[i], r3[i]
		}
	}
	for ; j < fb; j++ {
		for i, v := range x[n*j:][:n] {
			y[j+pad*i] = v
		}
	}
}

// scatterLines is the inverse of gatherLines: x[i+n*j] = y[j+pad*i].
func scatterLines(x []complex128, n int, y []complex128, pad, fb int) {
	j := 0
	for ; j+4 <= fb; j += 4 {
		r0 := x[n*j:][:n]
		r1, r2, r3 := x[n*(j+1):][:len(r0)], x[n*(j+2):][:len(r0)], x[n*(j+3):][:len(r0)]
		for i := range r0 {
			d := y[j+pad*i:][:4]
			r0[i], r1[i], r2[i], r3[i] = d[0], d[1], d[2], d[3]
		}
	}
	for ; j < fb; j++ {
		row := x[n*j:][:n]
		for i := range row {
			row[i] = y[j+pad*i]
		}
	}
}

// cffts2 transforms along the second dimension of x(d1,d2,d3).
func (s *ftState) cffts2(is, d1, d2, d3 int, x, xout []complex128) {
	logd2 := ilog2(d2)
	fb, pad := s.fftblock, s.fftblockpad
	y1, y2 := s.scratch[:pad*d2], s.scratch[pad*d2:2*pad*d2]
	for k := 0; k < d3; k++ {
		for ii := 0; ii <= d1-fb; ii += fb {
			s.t.start(tFftcopy)
			for j := 0; j < d2; j++ {
				copy(y1[pad*j:pad*j+fb], x[ii+d1*(j+d2*k):])
			}
			s.t.stop(tFftcopy)
			s.t.start(tFftlow)
			s.cfftz(is, logd2, d2, y1, y2)
			s.t.stop(tFftlow)
			s.t.start(tFftcopy)
			for j := 0; j < d2; j++ {
				copy(xout[ii+d1*(j+d2*k):][:fb], y1[pad*j:])
			}
			s.t.stop(tFftcopy)
		}
	}
}

// cffts3 transforms along the third dimension of x(d1,d2,d3).
func (s *ftState) cffts3(is, d1, d2, d3 int, x, xout []complex128) {
	logd3 := ilog2(d3)
	fb, pad := s.fftblock, s.fftblockpad
	y1, y2 := s.scratch[:pad*d3], s.scratch[pad*d3:2*pad*d3]
	for j := 0; j < d2; j++ {
		for ii := 0; ii <= d1-fb; ii += fb {
			s.t.start(tFftcopy)
			for k := 0; k < d3; k++ {
				copy(y1[pad*k:pad*k+fb], x[ii+d1*(j+d2*k):])
			}
			s.t.stop(tFftcopy)
			s.t.start(tFftlow)
			s.cfftz(is, logd3, d3, y1, y2)
			s.t.stop(tFftlow)
			s.t.start(tFftcopy)
			for k := 0; k < d3; k++ {
				copy(xout[ii+d1*(j+d2*k):][:fb], y1[pad*k:])
			}
			s.t.stop(tFftcopy)
		}
	}
}

// fft is the reference's 3-D FFT for the three layouts: dir 1 takes x1 in
// layout 1 to x2 in layout 3, dir -1 the other way; x1 is overwritten.
func (s *ftState) fft(dir int, x1, x2 []complex128) error {
	d := &s.dims
	if dir == 1 {
		switch s.layout {
		case layout0D:
			s.cffts1(1, d[0][0], d[1][0], d[2][0], x1, x1)
			s.cffts2(1, d[0][1], d[1][1], d[2][1], x1, x1)
			s.cffts3(1, d[0][2], d[1][2], d[2][2], x1, x2)
		case layout1D:
			s.cffts1(1, d[0][0], d[1][0], d[2][0], x1, x1)
			s.cffts2(1, d[0][1], d[1][1], d[2][1], x1, x1)
			s.t.start(tTranspose)
			err := s.transposeXYZ(2, 3, x1, x2)
			s.t.stop(tTranspose)
			if err != nil {
				return err
			}
			s.cffts1(1, d[0][2], d[1][2], d[2][2], x2, x2)
		case layout2D:
			s.cffts1(1, d[0][0], d[1][0], d[2][0], x1, x1)
			s.t.start(tTranspose)
			err := s.transposeXY(1, 2, x1, x2)
			s.t.stop(tTranspose)
			if err != nil {
				return err
			}
			s.cffts1(1, d[0][1], d[1][1], d[2][1], x2, x2)
			s.t.start(tTranspose)
			err = s.transposeXZ(2, 3, x2, x1)
			s.t.stop(tTranspose)
			if err != nil {
				return err
			}
			s.cffts1(1, d[0][2], d[1][2], d[2][2], x1, x2)
		}
		return nil
	}
	switch s.layout {
	case layout0D:
		s.cffts3(-1, d[0][2], d[1][2], d[2][2], x1, x1)
		s.cffts2(-1, d[0][1], d[1][1], d[2][1], x1, x1)
		s.cffts1(-1, d[0][0], d[1][0], d[2][0], x1, x2)
	case layout1D:
		s.cffts1(-1, d[0][2], d[1][2], d[2][2], x1, x1)
		s.t.start(tTranspose)
		err := s.transposeXYZInv(3, 2, x1, x2)
		s.t.stop(tTranspose)
		if err != nil {
			return err
		}
		s.cffts2(-1, d[0][1], d[1][1], d[2][1], x2, x2)
		s.cffts1(-1, d[0][0], d[1][0], d[2][0], x2, x2)
	case layout2D:
		s.cffts1(-1, d[0][2], d[1][2], d[2][2], x1, x1)
		s.t.start(tTranspose)
		err := s.transposeXZ(3, 2, x1, x2)
		s.t.stop(tTranspose)
		if err != nil {
			return err
		}
		s.cffts1(-1, d[0][1], d[1][1], d[2][1], x2, x2)
		s.t.start(tTranspose)
		err = s.transposeXY(2, 1, x2, x1)
		s.t.stop(tTranspose)
		if err != nil {
			return err
		}
		s.cffts1(-1, d[0][0], d[1][0], d[2][0], x1, x2)
	}
	return nil
}

// ilog2 is the reference's ilog2: the smallest l with 2**l >= n.
func ilog2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}
