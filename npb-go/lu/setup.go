package main

import (
	"fmt"
	"math"

	"github.com/gompi/gompi/mpi"
)

// mat5 is a 5x5 block, row m and column n at 5*m+n (the reference's
// a(m,n,i) for one i).
type mat5 [25]float64

// luState is one rank's benchmark state: everything the reference keeps in
// the lu_data and timing modules.
type luState struct {
	comm    *mpi.Comm
	id, num int

	// Process grid (proc_grid, neighbors): row and col are 1-based, the
	// neighbours -1 at the domain's edge. North/south split the i (x)
	// axis, west/east the j (y) axis.
	xdim, ydim, row, col     int
	north, south, east, west int

	// Grid (subdomain): global and local sizes, this block's offsets,
	// and the range of points it updates (1-based, as in the reference).
	nx0, ny0, nz0        int
	nx, ny, nz           int
	ipt, jpt             int
	ist, iend, jst, jend int
	ii1, ii2, ji1, ji2   int
	ki1, ki2             int
	dxi, deta, dzeta     float64
	tx1, tx2, tx3        float64
	ty1, ty2, ty3        float64
	tz1, tz2, tz3        float64
	dx, dy, dz           [5]float64 // dx1..dx5 and so on
	dssp                 float64
	c1, c2, c3, c4, c5   float64 // the PDE constants, as float64 values
	ce                   [5][13]float64
	inorm, itmax         int
	dt, omega            float64
	tolrsd, rsdnm, errnm [5]float64
	frc                  float64
	maxtime              float64
	sj, sk               int // strides of j and k in u, rsd, frct, flux
	u, rsd, frct, flux   []float64
	jac                  jacCoef // the Jacobian's loop invariants
	phi1, phi2           []float64
	phiStride            int
	buf, buf1            []float64
	dum                  []float64
	vis                  []float64 // rhs's velocities of the previous line or plane

	t timers
}

// ix is the index of component 1 of point (i, j, k) (1-based; i and j run
// from -1 to n+2, k from 1 to nz) in u, rsd, frct and flux, the
// reference's (5, -1:isiz1+2, -1:isiz2+2, isiz3) arrays.
func (s *luState) ix(i, j, k int) int { return 5*(i+1) + s.sj*(j+1) + s.sk*(k-1) }

// isqrt2 is the reference's isqrt2: the x extent of the most nearly
// square factorisation i = x*y with x >= y and x <= 2y, or -1.
func isqrt2(i int) int {
	if i <= 0 {
		return -1
	}
	square, x := 0, 1
	for square <= i {
		square = x * x
		if square == i {
			return x
		}
		x++
	}
	x--
	y := i / x
	for x*y != i && 2*y >= x {
		x++
		y = i / x
	}
	if x*y != i || 2*y < x {
		return -1
	}
	return x
}

// nodedim is the reference's nodedim: log2(num), truncated.
func nodedim(num int) int {
	return int(math.Log(float64(num))/math.Log(2.0) + 0.00001)
}

// procGrid is proc_grid: the xdim x ydim process grid and this rank's row
// and column in it (column-major: rank = (col-1)*xdim + row-1).
func (s *luState) procGrid() error {
	num := s.num
	xdiv := isqrt2(num)
	bad := fmt.Errorf("ERROR: could not determine proper proc_grid for nprocs=%6d (LU needs a process count that factors as xdim*ydim with ydim <= xdim <= 2*ydim: 1, 2, 4, 6, 8, 9, 12, 16, ...)", num)
	if xdiv <= 0 {
		return bad
	}
	xdim0 := xdiv
	ydim0 := num / xdim0
	ydim := int(math.Sqrt(float64(num)) + 0.001)
	xdim := num / ydim
	for ydim >= ydim0 && xdim*ydim != num {
		ydim--
		xdim = num / ydim
	}
	if xdim < xdim0 || ydim < ydim0 || xdim*ydim != num {
		return bad
	}
	s.xdim, s.ydim = xdim, ydim
	s.row = s.id%xdim + 1
	s.col = s.id/xdim + 1
	return nil
}

// neighbors sets the four neighbours (-1 where there is none).
func (s *luState) neighbors() {
	s.north, s.south, s.west, s.east = -1, -1, -1, -1
	if s.row > 1 {
		s.north = s.id - 1
	}
	if s.row < s.xdim {
		s.south = s.id + 1
	}
	if s.col > 1 {
		s.west = s.id - s.xdim
	}
	if s.col < s.ydim {
		s.east = s.id + s.xdim
	}
}

// subdomain sets this rank's block of the grid and the range of points it
// updates.
func (s *luState) subdomain() error {
	mm := s.nx0 % s.xdim
	if s.row <= mm {
		s.nx = s.nx0/s.xdim + 1
		s.ipt = (s.row - 1) * s.nx
	} else {
		s.nx = s.nx0 / s.xdim
		s.ipt = (s.row-1)*s.nx + mm
	}
	mm = s.ny0 % s.ydim
	if s.col <= mm {
		s.ny = s.ny0/s.ydim + 1
		s.jpt = (s.col - 1) * s.ny
	} else {
		s.ny = s.ny0 / s.ydim
		s.jpt = (s.col-1)*s.ny + mm
	}
	s.nz = s.nz0
	// Every rank decides alike: the smallest block is the last row's and
	// column's.
	minx, miny := s.nx0/s.xdim, s.ny0/s.ydim
	if minx < 3 || miny < 3 || s.nz < 3 {
		return fmt.Errorf("SUBDOMAIN SIZE IS TOO SMALL - ADJUST PROBLEM SIZE OR NUMBER OF PROCESSORS SO THAT NX, NY AND NZ ARE GREATER THAN OR EQUAL TO 3 (%d processes as %d x %d for a %d^3 grid)", s.num, s.xdim, s.ydim, s.nx0)
	}
	s.ist, s.iend = 1, s.nx
	if s.north == -1 {
		s.ist = 2
	}
	if s.south == -1 {
		s.iend = s.nx - 1
	}
	s.jst, s.jend = 1, s.ny
	if s.west == -1 {
		s.jst = 2
	}
	if s.east == -1 {
		s.jend = s.ny - 1
	}
	return nil
}

// allocSpace is alloc_space, with the arrays sized to this rank's block.
func (s *luState) allocSpace() {
	s.sj = 5 * (s.nx + 4)
	s.sk = s.sj * (s.ny + 4)
	n := s.sk * s.nz
	s.u = make([]float64, n)
	s.rsd = make([]float64, n)
	s.frct = make([]float64, n)
	s.flux = make([]float64, n)
	s.phiStride = max(s.nx, s.ny) + 2
	pn := s.phiStride * (max(s.ny, s.nz) + 2)
	s.phi1 = make([]float64, pn)
	s.phi2 = make([]float64, pn)
	nb := 10 * max(s.nx, s.ny) * s.nz
	s.buf = make([]float64, nb)
	s.buf1 = make([]float64, nb)
	s.vis = make([]float64, 4*(s.nx+2)*(s.ny+2))
	s.dum = make([]float64, 2*max(s.nx, s.ny+2, s.nz)+4)
}

// setcoeff sets the grid spacings, the dissipation coefficients and the
// coefficients of the exact solution.
func (s *luState) setcoeff() {
	s.c1, s.c2, s.c3, s.c4, s.c5 = 1.40, 0.40, 1.00e-01, 1.00, 1.40
	s.dxi = 1.0 / float64(s.nx0-1)
	s.deta = 1.0 / float64(s.ny0-1)
	s.dzeta = 1.0 / float64(s.nz0-1)

	s.tx1 = 1.0 / (s.dxi * s.dxi)
	s.tx2 = 1.0 / (2.0 * s.dxi)
	s.tx3 = 1.0 / s.dxi
	s.ty1 = 1.0 / (s.deta * s.deta)
	s.ty2 = 1.0 / (2.0 * s.deta)
	s.ty3 = 1.0 / s.deta
	s.tz1 = 1.0 / (s.dzeta * s.dzeta)
	s.tz2 = 1.0 / (2.0 * s.dzeta)
	s.tz3 = 1.0 / s.dzeta

	s.ii1, s.ii2 = 2, s.nx0-1
	s.ji1, s.ji2 = 2, s.ny0-2
	s.ki1, s.ki2 = 3, s.nz0-1

	for m := 0; m < 5; m++ {
		s.dx[m], s.dy[m], s.dz[m] = 0.75, 0.75, 1.00
	}
	s.dssp = max(s.dx[0], s.dy[0], s.dz[0]) / 4.0

	s.ce = [5][13]float64{
		{2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 5.0e-01, 2.0e-02, 1.0e-02, 3.0e-02, 5.0e-01, 4.0e-01, 3.0e-01},
		{1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 1.0e-02, 3.0e-02, 2.0e-02, 4.0e-01, 3.0e-01, 5.0e-01},
		{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0e-02, 3.0e-02, 5.0e-02, 3.0e-01, 5.0e-01, 4.0e-01},
		{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 3.0e-02, 5.0e-02, 4.0e-02, 2.0e-01, 1.0e-01, 3.0e-01},
		{5.0, 4.0, 3.0, 2.0, 1.0e-01, 4.0e-01, 3.0e-01, 5.0e-02, 4.0e-02, 3.0e-02, 1.0e-01, 3.0e-01, 2.0e-01},
	}
}

// exactAt is the exact solution at normalised coordinates (xi, eta, zeta)
// (the polynomial of exact.f and erhs.f).
func (s *luState) exactAt(xi, eta, zeta float64, u *[5]float64) {
	for m := 0; m < 5; m++ {
		ce := &s.ce[m]
		u[m] = ce[0] +
			ce[1]*xi +
			ce[2]*eta +
			ce[3]*zeta +
			ce[4]*xi*xi +
			ce[5]*eta*eta +
			ce[6]*zeta*zeta +
			ce[7]*xi*xi*xi +
			ce[8]*eta*eta*eta +
			ce[9]*zeta*zeta*zeta +
			ce[10]*xi*xi*xi*xi +
			ce[11]*eta*eta*eta*eta +
			ce[12]*zeta*zeta*zeta*zeta
	}
}

// exact is exact.f: the exact solution at global point (i, j, k).
func (s *luState) exact(i, j, k int, u *[5]float64) {
	xi := float64(i-1) / float64(s.nx0-1)
	eta := float64(j-1) / float64(s.ny0-1)
	zeta := float64(k-1) / float64(s.nz-1)
	s.exactAt(xi, eta, zeta, u)
}

// set5 stores v at u[p:p+5].
func set5(u []float64, p int, v *[5]float64) { copy(u[p:p+5], v[:]) }

// setbv sets the boundary values of the dependent variables.
func (s *luState) setbv() {
	var v [5]float64
	for j := 1; j <= s.ny; j++ {
		jglob := s.jpt + j
		for i := 1; i <= s.nx; i++ {
			iglob := s.ipt + i
			s.exact(iglob, jglob, 1, &v)
			set5(s.u, s.ix(i, j, 1), &v)
			s.exact(iglob, jglob, s.nz, &v)
			set5(s.u, s.ix(i, j, s.nz), &v)
		}
	}
	if s.west == -1 {
		for k := 1; k <= s.nz; k++ {
			for i := 1; i <= s.nx; i++ {
				s.exact(s.ipt+i, 1, k, &v)
				set5(s.u, s.ix(i, 1, k), &v)
			}
		}
	}
	if s.east == -1 {
		for k := 1; k <= s.nz; k++ {
			for i := 1; i <= s.nx; i++ {
				s.exact(s.ipt+i, s.ny0, k, &v)
				set5(s.u, s.ix(i, s.ny, k), &v)
			}
		}
	}
	if s.north == -1 {
		for k := 1; k <= s.nz; k++ {
			for j := 1; j <= s.ny; j++ {
				s.exact(1, s.jpt+j, k, &v)
				set5(s.u, s.ix(1, j, k), &v)
			}
		}
	}
	if s.south == -1 {
		for k := 1; k <= s.nz; k++ {
			for j := 1; j <= s.ny; j++ {
				s.exact(s.nx0, s.jpt+j, k, &v)
				set5(s.u, s.ix(s.nx, j, k), &v)
			}
		}
	}
}

// setiv sets the initial values of the interior by tri-linear
// interpolation of the boundary values.
func (s *luState) setiv() {
	var ue1jk, uenx0jk, uei1k, ueiny0k, ueij1, ueijnz [5]float64
	for k := 2; k <= s.nz-1; k++ {
		zeta := float64(k-1) / float64(s.nz-1)
		for j := 1; j <= s.ny; j++ {
			jglob := s.jpt + j
			if jglob == 1 || jglob == s.ny0 {
				continue
			}
			eta := float64(jglob-1) / float64(s.ny0-1)
			for i := 1; i <= s.nx; i++ {
				iglob := s.ipt + i
				if iglob == 1 || iglob == s.nx0 {
					continue
				}
				xi := float64(iglob-1) / float64(s.nx0-1)
				s.exact(1, jglob, k, &ue1jk)
				s.exact(s.nx0, jglob, k, &uenx0jk)
				s.exact(iglob, 1, k, &uei1k)
				s.exact(iglob, s.ny0, k, &ueiny0k)
				s.exact(iglob, jglob, 1, &ueij1)
				s.exact(iglob, jglob, s.nz, &ueijnz)
				p := s.ix(i, j, k)
				for m := 0; m < 5; m++ {
					pxi := (1.0-xi)*ue1jk[m] + xi*uenx0jk[m]
					peta := (1.0-eta)*uei1k[m] + eta*ueiny0k[m]
					pzeta := (1.0-zeta)*ueij1[m] + zeta*ueijnz[m]
					s.u[p+m] = pxi + peta + pzeta -
						pxi*peta - peta*pzeta - pzeta*pxi +
						pxi*peta*pzeta
				}
			}
		}
	}
}

// erhs computes the forcing term frct from the exact solution: the
// residual operator of rhs applied to the exact solution (held in rsd).
func (s *luState) erhs() error {
	clear(s.frct)
	var v [5]float64
	for k := 1; k <= s.nz; k++ {
		zeta := float64(k-1) / float64(s.nz-1)
		for j := 1; j <= s.ny; j++ {
			eta := float64(s.jpt+j-1) / float64(s.ny0-1)
			for i := 1; i <= s.nx; i++ {
				xi := float64(s.ipt+i-1) / float64(s.nx0-1)
				s.exactAt(xi, eta, zeta, &v)
				set5(s.rsd, s.ix(i, j, k), &v)
			}
		}
	}
	return s.fluxDiffs(s.rsd, s.frct, true)
}
