package main

// rhs computes the steady-state residual rsd = -frct + R(u), R being the
// flux differences and the fourth-order dissipation in the three
// directions (rhs.f).
func (s *luState) rhs() error {
	s.t.start(tRHS)
	for k := 1; k <= s.nz; k++ {
		for j := 1; j <= s.ny; j++ {
			p, e := s.ix(1, j, k), s.ix(s.nx, j, k)+5
			r, f := s.rsd[p:e], s.frct[p:e]
			for n := range r {
				r[n] = -f[n]
			}
		}
	}
	err := s.fluxDiffs(s.u, s.rsd, false)
	s.t.stop(tRHS)
	return err
}

// v5 is the 5-vector at p of a field.
func v5(a []float64, p int) *[5]float64 { return (*[5]float64)(a[p : p+5]) }

// centralDiff does r -= c*(a-b), element by element.
func centralDiff(r, a, b []float64, c float64) {
	a, b = a[:len(r)], b[:len(r)]
	for x := range r {
		r[x] = r[x] - c*(a[x]-b[x])
	}
}

// dissip does r -= dssp*(a - 4b + 6c - 4d + e), element by element: the
// fourth-order dissipation away from the boundaries.
func dissip(r, a, b, c, d, e []float64, dssp float64) {
	a, b, c, d, e = a[:len(r)], b[:len(r)], c[:len(r)], d[:len(r)], e[:len(r)]
	for x := range r {
		r[x] = r[x] - dssp*(a[x]-4.0*b[x]+6.0*c[x]-4.0*d[x]+e[x])
	}
}

// fluxCoef are rhs's invariants for one direction (t1, t2, t3 are its
// tx1, tx2, tx3 or ty, tz; dd its dx, dy or dz), with the reference's
// association.
type fluxCoef struct {
	t2     float64
	t3c34  float64    // t3 * c3 * c4
	ddt1   [5]float64 // dd(m) * t1
	r43t3  float64    // (4/3) * t3
	t3     float64
	visct3 float64 // 0.5 * (1 - c1*c5) * t3
	r16t3  float64 // (1/6) * t3
	c15t3  float64 // c1 * c5 * t3
}

// fluxCoef computes a direction's invariants from s's coefficients.
func (s *luState) fluxCoef(t1, t2, t3 float64, dd *[5]float64) fluxCoef {
	c1, c3, c4, c5 := s.c1, s.c3, s.c4, s.c5
	f := fluxCoef{t2: t2, t3: t3}
	f.t3c34 = t3 * c3 * c4
	for m := range dd {
		f.ddt1[m] = dd[m] * t1
	}
	f.r43t3 = (4.0 / 3.0) * t3
	f.visct3 = 0.50 * (1.0 - c1*c5) * t3
	f.r16t3 = (1.0 / 6.0) * t3
	f.c15t3 = c1 * c5 * t3
	return f
}

// velocities sets w to u's components 2..5 divided by its density.
func velocities(w *[4]float64, u *[5]float64) {
	tmp := 1.0 / u[0]
	w[0], w[1], w[2], w[3] = tmp*u[1], tmp*u[2], tmp*u[3], tmp*u[4]
}

// updateRow adds, along a line of points, the viscous flux difference
// (f, fp: the flux at the point and at its upper neighbour) and the
// second difference of the field (um, u, up) along the direction to r.
func (fc *fluxCoef) updateRow(r, um, u, up, f, fp []float64) {
	n := len(r)
	um, u, up, f, fp = um[:n], u[:n], up[:n], f[:n], fp[:n]
	d0, d1, d2, d3, d4 := fc.ddt1[0], fc.ddt1[1], fc.ddt1[2], fc.ddt1[3], fc.ddt1[4]
	t := fc.t3c34
	for x := 0; x+4 < n; x += 5 {
		r[x] = r[x] + d0*(um[x]-2.0*u[x]+up[x])
		r[x+1] = r[x+1] + t*(fp[x+1]-f[x+1]) + d1*(um[x+1]-2.0*u[x+1]+up[x+1])
		r[x+2] = r[x+2] + t*(fp[x+2]-f[x+2]) + d2*(um[x+2]-2.0*u[x+2]+up[x+2])
		r[x+3] = r[x+3] + t*(fp[x+3]-f[x+3]) + d3*(um[x+3]-2.0*u[x+3]+up[x+3])
		r[x+4] = r[x+4] + t*(fp[x+4]-f[x+4]) + d4*(um[x+4]-2.0*u[x+4]+up[x+4])
	}
}

// convRow sets f to the convective flux along component n (0, 1, 2: x,
// y, z) of the points of u, a line of points.
func convRow(f, u []float64, n int, c1, c2 float64) {
	u = u[:len(f)]
	for x := 0; x+4 < len(f); x += 5 {
		u0, u1, u2, u3, u4 := u[x], u[x+1], u[x+2], u[x+3], u[x+4]
		q := 0.50 * (u1*u1 + u2*u2 + u3*u3) / u0
		switch n {
		case 0:
			v := u1 / u0
			f[x] = u1
			f[x+1] = u1*v + c2*(u4-q)
			f[x+2] = u2 * v
			f[x+3] = u3 * v
			f[x+4] = (c1*u4 - c2*q) * v
		case 1:
			v := u2 / u0
			f[x] = u2
			f[x+1] = u1 * v
			f[x+2] = u2*v + c2*(u4-q)
			f[x+3] = u3 * v
			f[x+4] = (c1*u4 - c2*q) * v
		default:
			v := u3 / u0
			f[x] = u3
			f[x+1] = u1 * v
			f[x+2] = u2 * v
			f[x+3] = u3*v + c2*(u4-q)
			f[x+4] = (c1*u4 - c2*q) * v
		}
	}
}

// viscRow sets f to the viscous flux along component n between the points
// of u (a line of points) and their lower neighbours, whose velocities
// (1/u1 times u2..u5) prev holds, 4 to a point; it leaves the points' own
// velocities in prev. For x the lower neighbour is the previous point of
// the line: prev is then 4 values, first the velocities of the point
// before the line.
func (fc *fluxCoef) viscRow(f, u, prev []float64, n int) {
	u = u[:len(f)]
	t3, r43t3, visct3, r16t3, c15t3 := fc.t3, fc.r43t3, fc.visct3, fc.r16t3, fc.c15t3
	q := 0
	for x := 0; x+4 < len(f); x += 5 {
		w := (*[4]float64)(prev[q:])
		tmp := 1.0 / u[x]
		v0, v1, v2, v3 := tmp*u[x+1], tmp*u[x+2], tmp*u[x+3], tmp*u[x+4]
		w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
		vn, wn := v0, w0
		switch n {
		case 0:
			f[x+1] = r43t3 * (v0 - w0)
			f[x+2] = t3 * (v1 - w1)
			f[x+3] = t3 * (v2 - w2)
		case 1:
			vn, wn = v1, w1
			f[x+1] = t3 * (v0 - w0)
			f[x+2] = r43t3 * (v1 - w1)
			f[x+3] = t3 * (v2 - w2)
		default:
			vn, wn = v2, w2
			f[x+1] = t3 * (v0 - w0)
			f[x+2] = t3 * (v1 - w1)
			f[x+3] = r43t3 * (v2 - w2)
		}
		f[x+4] = visct3*((v0*v0+v1*v1+v2*v2)-(w0*w0+w1*w1+w2*w2)) +
			r16t3*(vn*vn-wn*wn) +
			c15t3*(v3-w3)
		w[0], w[1], w[2], w[3] = v0, v1, v2, v3
		if n != 0 {
			q += 4
		}
	}
}

// fluxDiffs adds to dst the flux differences and dissipation of the field
// src: the body of rhs (src u, dst rsd) and of erhs (src the exact
// solution in rsd, dst frct). Each direction first exchanges two planes of
// src with the neighbours across it (exchange_3). erhs is untimed, and
// sums the z second difference from k+1 down as the reference's erhs does.
// A point's velocities (1/u1 times u) serve both viscous fluxes they take
// part in, as the same values the reference computes twice.
func (s *luState) fluxDiffs(src, dst []float64, erhs bool) error {
	nx, ny, nz := s.nx, s.ny, s.nz
	ist, iend, jst, jend := s.ist, s.iend, s.jst, s.jend
	sj, sk := s.sj, s.sk
	flux := s.flux
	c1, c2 := s.c1, s.c2
	dssp := s.dssp
	ni := 5 * (iend - ist + 1) // the values of a line of points ist..iend
	var wm [4]float64

	// xi-direction flux differences.
	if !erhs {
		s.t.start(tExch)
	}
	err := s.exchange3(src, 0)
	if !erhs {
		s.t.stop(tExch)
	}
	if err != nil {
		return err
	}
	L1, L2 := 0, nx+1
	if s.north == -1 {
		L1 = 1
	}
	if s.south == -1 {
		L2 = nx
	}
	ist1, iend1 := 1, nx
	if s.north == -1 {
		ist1 = 4
	}
	if s.south == -1 {
		iend1 = nx - 3
	}
	fx := s.fluxCoef(s.tx1, s.tx2, s.tx3, &s.dx)
	for k := 2; k <= nz-1; k++ {
		for j := jst; j <= jend; j++ {
			row := s.ix(0, j, k)
			lo, hi := row+5*L1, row+5*L2+5
			convRow(flux[lo:hi], src[lo:hi], 0, c1, c2)
			lo = row + 5*ist
			centralDiff(dst[lo:lo+ni], flux[lo+5:], flux[lo-5:], fx.t2)
			velocities(&wm, v5(src, lo-5))
			fx.viscRow(flux[lo:hi], src[lo:hi], wm[:], 0)
			fx.updateRow(dst[lo:lo+ni], src[lo-5:], src[lo:], src[lo+5:], flux[lo:], flux[lo+5:])
			// Fourth-order dissipation.
			if s.north == -1 {
				p2, p3, p4, p5 := row+10, row+15, row+20, row+25
				for m := 0; m < 5; m++ {
					dst[p2+m] = dst[p2+m] - dssp*(+5.0*src[p2+m]-4.0*src[p3+m]+src[p4+m])
					dst[p3+m] = dst[p3+m] - dssp*(-4.0*src[p2+m]+6.0*src[p3+m]-4.0*src[p4+m]+src[p5+m])
				}
			}
			if iend1 >= ist1 {
				lo, n := row+5*ist1, 5*(iend1-ist1+1)
				dissip(dst[lo:lo+n], src[lo-10:], src[lo-5:], src[lo:], src[lo+5:], src[lo+10:], dssp)
			}
			if s.south == -1 {
				p4, p3, p2, p1 := row+5*(nx-4), row+5*(nx-3), row+5*(nx-2), row+5*(nx-1)
				for m := 0; m < 5; m++ {
					dst[p2+m] = dst[p2+m] - dssp*(src[p4+m]-4.0*src[p3+m]+6.0*src[p2+m]-4.0*src[p1+m])
					dst[p1+m] = dst[p1+m] - dssp*(src[p3+m]-4.0*src[p2+m]+5.0*src[p1+m])
				}
			}
		}
	}

	// eta-direction flux differences.
	if !erhs {
		s.t.start(tExch)
	}
	err = s.exchange3(src, 1)
	if !erhs {
		s.t.stop(tExch)
	}
	if err != nil {
		return err
	}
	L1, L2 = 0, ny+1
	if s.west == -1 {
		L1 = 1
	}
	if s.east == -1 {
		L2 = ny
	}
	jst1, jend1 := 1, ny
	if s.west == -1 {
		jst1 = 4
	}
	if s.east == -1 {
		jend1 = ny - 3
	}
	fy := s.fluxCoef(s.ty1, s.ty2, s.ty3, &s.dy)
	vis := s.vis
	for k := 2; k <= nz-1; k++ {
		for j := L1; j <= L2; j++ {
			lo := s.ix(ist, j, k)
			convRow(flux[lo:lo+ni], src[lo:lo+ni], 1, c1, c2)
		}
		for j := jst; j <= jend; j++ {
			lo := s.ix(ist, j, k)
			centralDiff(dst[lo:lo+ni], flux[lo+sj:], flux[lo-sj:], fy.t2)
		}
		// vis holds the previous line's velocities, point by point.
		row := s.ix(0, jst-1, k)
		for i := ist; i <= iend; i++ {
			velocities((*[4]float64)(vis[4*i:]), v5(src, row+5*i))
		}
		for j := jst; j <= L2; j++ {
			lo := s.ix(ist, j, k)
			fy.viscRow(flux[lo:lo+ni], src[lo:lo+ni], vis[4*ist:], 1)
		}
		for j := jst; j <= jend; j++ {
			lo := s.ix(ist, j, k)
			fy.updateRow(dst[lo:lo+ni], src[lo-sj:], src[lo:], src[lo+sj:], flux[lo:], flux[lo+sj:])
		}
		// Fourth-order dissipation.
		if s.west == -1 {
			for i := ist; i <= iend; i++ {
				p2 := s.ix(i, 2, k)
				p3, p4, p5 := p2+sj, p2+2*sj, p2+3*sj
				for m := 0; m < 5; m++ {
					dst[p2+m] = dst[p2+m] - dssp*(+5.0*src[p2+m]-4.0*src[p3+m]+src[p4+m])
					dst[p3+m] = dst[p3+m] - dssp*(-4.0*src[p2+m]+6.0*src[p3+m]-4.0*src[p4+m]+src[p5+m])
				}
			}
		}
		for j := jst1; j <= jend1; j++ {
			lo := s.ix(ist, j, k)
			dissip(dst[lo:lo+ni], src[lo-2*sj:], src[lo-sj:], src[lo:], src[lo+sj:], src[lo+2*sj:], dssp)
		}
		if s.east == -1 {
			for i := ist; i <= iend; i++ {
				p2 := s.ix(i, ny-2, k)
				p4, p3, p1 := p2-2*sj, p2-sj, p2+sj
				for m := 0; m < 5; m++ {
					dst[p2+m] = dst[p2+m] - dssp*(src[p4+m]-4.0*src[p3+m]+6.0*src[p2+m]-4.0*src[p1+m])
					dst[p1+m] = dst[p1+m] - dssp*(src[p3+m]-4.0*src[p2+m]+5.0*src[p1+m])
				}
			}
		}
	}

	// zeta-direction flux differences, pipelined over the planes: plane
	// step's convective flux, then plane step-1's central difference
	// (which needs the convective fluxes of planes step-2 and step), then
	// plane step-2's viscous flux (replacing its convective flux, used by
	// then), then plane step-3's update and dissipation. Each point goes
	// through the reference's loops' operations in their order; the planes
	// stay in cache between them.
	fz := s.fluxCoef(s.tz1, s.tz2, s.tz3, &s.dz)
	// vis holds the previous plane's velocities, point by point.
	vstride := 4 * (nx + 2)
	for j := jst; j <= jend; j++ {
		row := s.ix(0, j, 1)
		for i := ist; i <= iend; i++ {
			velocities((*[4]float64)(vis[4*i+vstride*j:]), v5(src, row+5*i))
		}
	}
	// The second difference's first and last terms: erhs sums from k+1.
	lo, hi := -sk, sk
	if erhs {
		lo, hi = sk, -sk
	}
	for step := 1; step <= nz+3; step++ {
		if k := step; k <= nz {
			for j := jst; j <= jend; j++ {
				p := s.ix(ist, j, k)
				convRow(flux[p:p+ni], src[p:p+ni], 2, c1, c2)
			}
		}
		if k := step - 1; k >= 2 && k <= nz-1 {
			for j := jst; j <= jend; j++ {
				p := s.ix(ist, j, k)
				centralDiff(dst[p:p+ni], flux[p+sk:], flux[p-sk:], fz.t2)
			}
		}
		if k := step - 2; k >= 2 && k <= nz {
			for j := jst; j <= jend; j++ {
				p := s.ix(ist, j, k)
				fz.viscRow(flux[p:p+ni], src[p:p+ni], vis[4*ist+vstride*j:], 2)
			}
		}
		if k := step - 3; k >= 2 && k <= nz-1 {
			for j := jst; j <= jend; j++ {
				p := s.ix(ist, j, k)
				fz.updateRow(dst[p:p+ni], src[p+lo:], src[p:], src[p+hi:], flux[p:], flux[p+sk:])
			}
			s.dissipZ(src, dst, k)
		}
	}
	return nil
}

// dissipZ is the fourth-order dissipation along z of plane k.
func (s *luState) dissipZ(src, dst []float64, k int) {
	nz, sk, dssp := s.nz, s.sk, s.dssp
	ni := 5 * (s.iend - s.ist + 1)
	for j := s.jst; j <= s.jend; j++ {
		p := s.ix(s.ist, j, k)
		switch {
		case k == 2:
			r, a, b, c := dst[p:p+ni], src[p:p+ni], src[p+sk:p+sk+ni], src[p+2*sk:p+2*sk+ni]
			for x := range r {
				r[x] = r[x] - dssp*(+5.0*a[x]-4.0*b[x]+c[x])
			}
		case k == 3:
			r, a, b, c, d := dst[p:p+ni], src[p-sk:p-sk+ni], src[p:p+ni], src[p+sk:p+sk+ni], src[p+2*sk:p+2*sk+ni]
			for x := range r {
				r[x] = r[x] - dssp*(-4.0*a[x]+6.0*b[x]-4.0*c[x]+d[x])
			}
		case k == nz-2:
			r, a, b, c, d := dst[p:p+ni], src[p-2*sk:p-2*sk+ni], src[p-sk:p-sk+ni], src[p:p+ni], src[p+sk:p+sk+ni]
			for x := range r {
				r[x] = r[x] - dssp*(a[x]-4.0*b[x]+6.0*c[x]-4.0*d[x])
			}
		case k == nz-1:
			r, a, b, c := dst[p:p+ni], src[p-2*sk:p-2*sk+ni], src[p-sk:p-sk+ni], src[p:p+ni]
			for x := range r {
				r[x] = r[x] - dssp*(a[x]-4.0*b[x]+5.0*c[x])
			}
		default:
			dissip(dst[p:p+ni], src[p-2*sk:], src[p-sk:], src[p:], src[p+sk:], src[p+2*sk:], dssp)
		}
	}
}
