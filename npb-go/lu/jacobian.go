package main

// The Jacobian's 5x5 blocks at one point (jacld.f, jacu.f). The
// coefficients that do not depend on the point are computed once
// (jacCoef.init) with the reference's association, so that every block
// entry is the value the reference computes.

// dirCoef holds the invariants of one direction's off-diagonal block,
// for one sign: -1 for jacld's blocks (from the i-1, j-1, k-1
// neighbours), +1 for jacu's (i+1, j+1, k+1). t1, t2 are the direction's
// tx1, tx2 (or ty, tz) and dd its dx (or dy, dz).
type dirCoef struct {
	st2     float64    // sign * dt * t2
	dt1     float64    // dt * t1
	b00     float64    // -dt * t1 * dd1
	dt1dd   [5]float64 // dt * t1 * dd(m)
	st2c2   float64    // sign * dt * t2 * c2
	st2tc2  float64    // sign * dt * t2 * (2 - c2)
	dt1X    float64    // dt * t1 * (r43*c34 - c1345)
	dt1B    float64    // dt * t1 * (c34 - c1345)
	dt1c135 float64    // dt * t1 * c1345
	c1, c2  float64
	nc2     float64 // -c2
	c2h     float64 // c2 * 0.50
	h05c2   float64 // 0.50 * c2
	twoc2   float64 // 2 - c2
	c34     float64
	nc34    float64 // -c34
	r43c34  float64 // r43 * c34
	nr43c34 float64 // -r43 * c34
	X, nX   float64 // r43*c34 - c1345 and its negation
	B, nB   float64 // c34 - c1345 and its negation
	c1345   float64
}

// jacCoef holds the invariants of the diagonal block and of the
// off-diagonal blocks of jacld (xl, yl, zl) and jacu (xu, yu, zu).
type jacCoef struct {
	xl, yl, zl, xu, yu, zu dirCoef

	dt2                             float64 // dt * 2
	d0, d6c, d12c, d18c, d24c       float64 // the constant terms of the diagonal entries
	tx1, ty1, tz1                   float64
	tx1r43c34, ty1r43c34, tz1r43c34 float64
	tx1c34, ty1c34, tz1c34          float64
	tx1c1345, ty1c1345, tz1c1345    float64
	tx1X, ty1X, tz1X                float64
	tx1B, ty1B, tz1B                float64
	nr43c34, nc34, c1345, X, nX     float64
	B, nB                           float64
}

func (cf *dirCoef) init(s *luState, sgn, t1, t2 float64, dd *[5]float64) {
	dt := s.dt
	c1, c2, c3, c4, c5 := s.c1, s.c2, s.c3, s.c4, s.c5
	r43 := 4.0 / 3.0
	cf.c1, cf.c2 = c1, c2
	cf.c1345 = c1 * c3 * c4 * c5
	cf.c34 = c3 * c4
	cf.nc34 = -cf.c34
	cf.r43c34 = r43 * cf.c34
	cf.nr43c34 = -r43 * cf.c34
	cf.X = r43*cf.c34 - cf.c1345
	cf.nX = -cf.X
	cf.B = cf.c34 - cf.c1345
	cf.nB = -cf.B
	cf.nc2 = -c2
	cf.c2h = c2 * 0.50
	cf.h05c2 = 0.50 * c2
	cf.twoc2 = 2.0 - c2

	cf.st2 = sgn * dt * t2
	cf.dt1 = dt * t1
	cf.b00 = -(cf.dt1 * dd[0])
	for m := range dd {
		cf.dt1dd[m] = cf.dt1 * dd[m]
	}
	cf.st2c2 = cf.st2 * c2
	cf.st2tc2 = cf.st2 * cf.twoc2
	cf.dt1X = cf.dt1 * cf.X
	cf.dt1B = cf.dt1 * cf.B
	cf.dt1c135 = cf.dt1 * cf.c1345
}

// init computes the invariants from s's coefficients and dt.
func (jc *jacCoef) init(s *luState) {
	jc.xl.init(s, -1, s.tx1, s.tx2, &s.dx)
	jc.yl.init(s, -1, s.ty1, s.ty2, &s.dy)
	jc.zl.init(s, -1, s.tz1, s.tz2, &s.dz)
	jc.xu.init(s, +1, s.tx1, s.tx2, &s.dx)
	jc.yu.init(s, +1, s.ty1, s.ty2, &s.dy)
	jc.zu.init(s, +1, s.tz1, s.tz2, &s.dz)

	dt := s.dt
	tx1, ty1, tz1 := s.tx1, s.ty1, s.tz1
	dx, dy, dz := &s.dx, &s.dy, &s.dz
	c := &jc.xl
	r43 := 4.0 / 3.0
	jc.tx1, jc.ty1, jc.tz1 = tx1, ty1, tz1
	jc.dt2 = dt * 2.0
	jc.d0 = 1.0 + jc.dt2*(tx1*dx[0]+ty1*dy[0]+tz1*dz[0])
	jc.d6c = jc.dt2 * (tx1*dx[1] + ty1*dy[1] + tz1*dz[1])
	jc.d12c = jc.dt2 * (tx1*dx[2] + ty1*dy[2] + tz1*dz[2])
	jc.d18c = jc.dt2 * (tx1*dx[3] + ty1*dy[3] + tz1*dz[3])
	jc.d24c = jc.dt2 * (tx1*dx[4] + ty1*dy[4] + tz1*dz[4])
	jc.tx1r43c34, jc.ty1r43c34, jc.tz1r43c34 = tx1*r43*c.c34, ty1*r43*c.c34, tz1*r43*c.c34
	jc.tx1c34, jc.ty1c34, jc.tz1c34 = tx1*c.c34, ty1*c.c34, tz1*c.c34
	jc.tx1c1345, jc.ty1c1345, jc.tz1c1345 = tx1*c.c1345, ty1*c.c1345, tz1*c.c1345
	jc.tx1X, jc.ty1X, jc.tz1X = tx1*c.X, ty1*c.X, tz1*c.X
	jc.tx1B, jc.ty1B, jc.tz1B = tx1*c.B, ty1*c.B, tz1*c.B
	jc.nr43c34, jc.nc34, jc.c1345 = c.nr43c34, c.nc34, c.c1345
	jc.X, jc.nX, jc.B, jc.nB = c.X, c.nX, c.B, c.nB
}

// diagLU is a factored diagonal block. The block is lower triangular,
// rows 2 to 4 holding only their first and diagonal entries, so the
// reference's elimination without pivoting (in blts and buts) leaves the
// diagonal as it is and makes seven multipliers; its other operations
// subtract products with a zero and change nothing.
type diagLU struct {
	d0, d1, d2, d3, d4 float64 // the diagonal (the reference's tmat(m,m) after elimination)
	l10, l20, l30, l40 float64 // tmp1 * tmat(m,1) with tmp1 = 1/tmat(1,1)
	l41, l42, l43      float64 // tmp1 * tmat(5,m) with tmp1 = 1/tmat(m,m)
}

// diag forms the block diagonal at a point of state u (jacld and jacu
// alike) and factors it.
func (jc *jacCoef) diag(u *[5]float64, f *diagLU) {
	dt2 := jc.dt2
	tx1, ty1, tz1 := jc.tx1, jc.ty1, jc.tz1
	nr43c34, nc34, c1345 := jc.nr43c34, jc.nc34, jc.c1345
	X, nX, B, nB := jc.X, jc.nX, jc.B, jc.nB
	tmp1 := 1.0 / u[0]
	tmp2 := tmp1 * tmp1
	tmp3 := tmp1 * tmp2

	d00 := jc.d0
	d10 := dt2 * (tx1*(nr43c34*tmp2*u[1]) + ty1*(nc34*tmp2*u[1]) + tz1*(nc34*tmp2*u[1]))
	d11 := 1.0 + dt2*(jc.tx1r43c34*tmp1+jc.ty1c34*tmp1+jc.tz1c34*tmp1) + jc.d6c
	d20 := dt2 * (tx1*(nc34*tmp2*u[2]) + ty1*(nr43c34*tmp2*u[2]) + tz1*(nc34*tmp2*u[2]))
	d22 := 1.0 + dt2*(jc.tx1c34*tmp1+jc.ty1r43c34*tmp1+jc.tz1c34*tmp1) + jc.d12c
	d30 := dt2 * (tx1*(nc34*tmp2*u[3]) + ty1*(nc34*tmp2*u[3]) + tz1*(nr43c34*tmp2*u[3]))
	d33 := 1.0 + dt2*(jc.tx1c34*tmp1+jc.ty1c34*tmp1+jc.tz1r43c34*tmp1) + jc.d18c
	u22, u33, u44 := u[1]*u[1], u[2]*u[2], u[3]*u[3]
	c5t := c1345 * tmp2 * u[4]
	d40 := dt2 * (tx1*(nX*tmp3*u22-B*tmp3*u33-B*tmp3*u44-c5t) +
		ty1*(nB*tmp3*u22-X*tmp3*u33-B*tmp3*u44-c5t) +
		tz1*(nB*tmp3*u22-B*tmp3*u33-X*tmp3*u44-c5t))
	d41 := dt2 * (jc.tx1X*tmp2*u[1] + jc.ty1B*tmp2*u[1] + jc.tz1B*tmp2*u[1])
	d42 := dt2 * (jc.tx1B*tmp2*u[2] + jc.ty1X*tmp2*u[2] + jc.tz1B*tmp2*u[2])
	d43 := dt2 * (jc.tx1B*tmp2*u[3] + jc.ty1B*tmp2*u[3] + jc.tz1X*tmp2*u[3])
	d44 := 1.0 + dt2*(jc.tx1c1345*tmp1+jc.ty1c1345*tmp1+jc.tz1c1345*tmp1) + jc.d24c

	r := 1.0 / d00
	f.l10, f.l20, f.l30, f.l40 = r*d10, r*d20, r*d30, r*d40
	f.l41 = (1.0 / d11) * d41
	f.l42 = (1.0 / d22) * d42
	f.l43 = (1.0 / d33) * d43
	f.d0, f.d1, f.d2, f.d3, f.d4 = d00, d11, d22, d33, d44
}

// solve overwrites v with d^-1 v: the vector half of the reference's
// elimination, then its back substitution, less the operations with the
// block's zeros.
func (f *diagLU) solve(v *[5]float64) {
	v0, v1, v2, v3, v4 := v[0], v[1], v[2], v[3], v[4]
	v1 = v1 - v0*f.l10
	v2 = v2 - v0*f.l20
	v3 = v3 - v0*f.l30
	v4 = v4 - v0*f.l40
	v4 = v4 - v1*f.l41
	v4 = v4 - v2*f.l42
	v4 = v4 - v3*f.l43
	v[4] = v4 / f.d4
	v[3] = v3 / f.d3
	v[2] = v2 / f.d2
	v[1] = v1 / f.d1
	v[0] = v0 / f.d0
}

// xBlock forms the x-direction off-diagonal block at a neighbour of state
// u: jacld's c (from i-1) or jacu's a (from i+1), by cf's sign.
func (cf *dirCoef) xBlock(u *[5]float64, c *mat5) {
	st2, dt1 := cf.st2, cf.dt1
	tmp1 := 1.0 / u[0]
	tmp2 := tmp1 * tmp1
	tmp3 := tmp1 * tmp2
	sq := u[1]*u[1] + u[2]*u[2] + u[3]*u[3]

	c[0] = cf.b00
	c[1] = st2
	c[2] = 0.0
	c[3] = 0.0
	c[4] = 0.0

	c[5] = st2*(-(u[1]*tmp1)*(u[1]*tmp1)+cf.c2h*sq*tmp2) - dt1*(cf.nr43c34*tmp2*u[1])
	c[6] = st2*(cf.twoc2*(u[1]*tmp1)) - dt1*(cf.r43c34*tmp1) - cf.dt1dd[1]
	c[7] = st2 * (cf.nc2 * (u[2] * tmp1))
	c[8] = st2 * (cf.nc2 * (u[3] * tmp1))
	c[9] = cf.st2c2

	c[10] = st2*(-(u[1]*u[2])*tmp2) - dt1*(cf.nc34*tmp2*u[2])
	c[11] = st2 * (u[2] * tmp1)
	c[12] = st2*(u[1]*tmp1) - dt1*(cf.c34*tmp1) - cf.dt1dd[2]
	c[13] = 0.0
	c[14] = 0.0

	c[15] = st2*(-(u[1]*u[3])*tmp2) - dt1*(cf.nc34*tmp2*u[3])
	c[16] = st2 * (u[3] * tmp1)
	c[17] = 0.0
	c[18] = st2*(u[1]*tmp1) - dt1*(cf.c34*tmp1) - cf.dt1dd[3]
	c[19] = 0.0

	c[20] = st2*((cf.c2*sq*tmp2-cf.c1*(u[4]*tmp1))*(u[1]*tmp1)) -
		dt1*(cf.nX*tmp3*(u[1]*u[1])-cf.B*tmp3*(u[2]*u[2])-cf.B*tmp3*(u[3]*u[3])-cf.c1345*tmp2*u[4])
	c[21] = st2*(cf.c1*(u[4]*tmp1)-cf.h05c2*((3.0*u[1]*u[1]+u[2]*u[2]+u[3]*u[3])*tmp2)) - cf.dt1X*tmp2*u[1]
	c[22] = st2*(cf.nc2*(u[2]*u[1])*tmp2) - cf.dt1B*tmp2*u[2]
	c[23] = st2*(cf.nc2*(u[3]*u[1])*tmp2) - cf.dt1B*tmp2*u[3]
	c[24] = st2*(cf.c1*(u[1]*tmp1)) - cf.dt1c135*tmp1 - cf.dt1dd[4]
}

// yBlock forms the y-direction off-diagonal block at a neighbour of state
// u: jacld's b (from j-1) or jacu's b (from j+1).
func (cf *dirCoef) yBlock(u *[5]float64, b *mat5) {
	st2, dt1 := cf.st2, cf.dt1
	tmp1 := 1.0 / u[0]
	tmp2 := tmp1 * tmp1
	tmp3 := tmp1 * tmp2
	sq := u[1]*u[1] + u[2]*u[2] + u[3]*u[3]

	b[0] = cf.b00
	b[1] = 0.0
	b[2] = st2
	b[3] = 0.0
	b[4] = 0.0

	b[5] = st2*(-(u[1]*u[2])*tmp2) - dt1*(cf.nc34*tmp2*u[1])
	b[6] = st2*(u[2]*tmp1) - dt1*(cf.c34*tmp1) - cf.dt1dd[1]
	b[7] = st2 * (u[1] * tmp1)
	b[8] = 0.0
	b[9] = 0.0

	b[10] = st2*(-(u[2]*tmp1)*(u[2]*tmp1)+cf.h05c2*(sq*tmp2)) - dt1*(cf.nr43c34*tmp2*u[2])
	b[11] = st2 * (cf.nc2 * (u[1] * tmp1))
	b[12] = st2*(cf.twoc2*(u[2]*tmp1)) - dt1*(cf.r43c34*tmp1) - cf.dt1dd[2]
	b[13] = st2 * (cf.nc2 * (u[3] * tmp1))
	b[14] = cf.st2c2

	b[15] = st2*(-(u[2]*u[3])*tmp2) - dt1*(cf.nc34*tmp2*u[3])
	b[16] = 0.0
	b[17] = st2 * (u[3] * tmp1)
	b[18] = st2*(u[2]*tmp1) - dt1*(cf.c34*tmp1) - cf.dt1dd[3]
	b[19] = 0.0

	b[20] = st2*((cf.c2*sq*tmp2-cf.c1*(u[4]*tmp1))*(u[2]*tmp1)) -
		dt1*(cf.nB*tmp3*(u[1]*u[1])-cf.X*tmp3*(u[2]*u[2])-cf.B*tmp3*(u[3]*u[3])-cf.c1345*tmp2*u[4])
	b[21] = st2*(cf.nc2*(u[1]*u[2])*tmp2) - cf.dt1B*tmp2*u[1]
	b[22] = st2*(cf.c1*(u[4]*tmp1)-cf.h05c2*((u[1]*u[1]+3.0*u[2]*u[2]+u[3]*u[3])*tmp2)) - cf.dt1X*tmp2*u[2]
	b[23] = st2*(cf.nc2*(u[2]*u[3])*tmp2) - cf.dt1B*tmp2*u[3]
	b[24] = st2*(cf.c1*(u[2]*tmp1)) - cf.dt1c135*tmp1 - cf.dt1dd[4]
}

// zBlock forms the z-direction off-diagonal block at a neighbour of state
// u: jacld's a (from k-1) or jacu's c (from k+1).
func (cf *dirCoef) zBlock(u *[5]float64, a *mat5) {
	st2, dt1 := cf.st2, cf.dt1
	tmp1 := 1.0 / u[0]
	tmp2 := tmp1 * tmp1
	tmp3 := tmp1 * tmp2
	sq := u[1]*u[1] + u[2]*u[2] + u[3]*u[3]

	a[0] = cf.b00
	a[1] = 0.0
	a[2] = 0.0
	a[3] = st2
	a[4] = 0.0

	a[5] = st2*(-(u[1]*u[3])*tmp2) - dt1*(cf.nc34*tmp2*u[1])
	a[6] = st2*(u[3]*tmp1) - dt1*cf.c34*tmp1 - cf.dt1dd[1]
	a[7] = 0.0
	a[8] = st2 * (u[1] * tmp1)
	a[9] = 0.0

	a[10] = st2*(-(u[2]*u[3])*tmp2) - dt1*(cf.nc34*tmp2*u[2])
	a[11] = 0.0
	a[12] = st2*(u[3]*tmp1) - dt1*(cf.c34*tmp1) - cf.dt1dd[2]
	a[13] = st2 * (u[2] * tmp1)
	a[14] = 0.0

	a[15] = st2*(-(u[3]*tmp1)*(u[3]*tmp1)+cf.h05c2*(sq*tmp2)) - dt1*(cf.nr43c34*tmp2*u[3])
	a[16] = st2 * (cf.nc2 * (u[1] * tmp1))
	a[17] = st2 * (cf.nc2 * (u[2] * tmp1))
	a[18] = cf.st2tc2*(u[3]*tmp1) - dt1*(cf.r43c34*tmp1) - cf.dt1dd[3]
	a[19] = cf.st2c2

	a[20] = st2*((cf.c2*sq*tmp2-cf.c1*(u[4]*tmp1))*(u[3]*tmp1)) -
		dt1*(cf.nB*tmp3*(u[1]*u[1])-cf.B*tmp3*(u[2]*u[2])-cf.X*tmp3*(u[3]*u[3])-cf.c1345*tmp2*u[4])
	a[21] = st2*(cf.nc2*(u[1]*u[3])*tmp2) - cf.dt1B*tmp2*u[1]
	a[22] = st2*(cf.nc2*(u[2]*u[3])*tmp2) - cf.dt1B*tmp2*u[2]
	a[23] = st2*(cf.c1*(u[4]*tmp1)-cf.h05c2*((u[1]*u[1]+u[2]*u[2]+3.0*u[3]*u[3])*tmp2)) - cf.dt1X*tmp2*u[3]
	a[24] = st2*(cf.c1*(u[3]*tmp1)) - cf.dt1c135*tmp1 - cf.dt1dd[4]
}
