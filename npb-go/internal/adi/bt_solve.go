package adi

import "github.com/gompi/gompi/mpi"

// The line solves along x, y and z (x_solve.f, y_solve.f, z_solve.f,
// solve_subs.f): each solves the block-tridiagonal systems (5x5 blocks)
// of the factor along every grid line of the axis by block Gaussian
// elimination. A line crosses ncells cells, one per rank: the forward
// elimination sweeps through them in increasing order, each rank sending
// the last plane's upper block and right-hand side of its cell to the next
// one (30 values per line), and the back substitution returns, sending the
// first plane's solution (5 values per line) back. The messages carry every
// line of a MAX_CELL_DIM^2 plane as the reference's do. The reference's one
// routine per axis is one routine here with the axis as a parameter.

// Tags of the solves' messages per axis: forward (solve info) and back
// substitution (backsub info), as the reference's WEST/EAST, SOUTH/NORTH
// and BOTTOM/TOP plus the cell's coordinates across the axis.
var (
	tagForward = [3]int{tagWest, tagSouth, tagBottom}
	tagBack    = [3]int{tagEast, tagNorth, tagTop}
)

// lineTag is the tag of the messages along d of cell cl.
func (s *State) lineTag(base int, cl *cell, d int) int {
	P, Q := perp(d)
	return base + cl.coord[Q] + cl.coord[P]*s.ncells
}

// btSolveDir is x_solve, y_solve or z_solve (d = 0, 1, 2).
func (s *State) btSolveDir(d int) error {
	tSolve, tComm := tXsolve+d, tXcomm+d
	s.t.start(tSolve)
	nc := s.ncells
	mcd := s.maxCell
	fwdSize := mcd * mcd * 30
	backSize := mcd * mcd * 5
	var reqs [2]*mpi.Request // receive, send
	var err error

	for stage := 0; stage < nc; stage++ {
		cl := &s.cells[s.slice[d][stage]]
		first, last := stage == 0, stage == nc-1
		if !first {
			s.t.start(tComm)
			reqs[0], err = mpi.Irecv(s.solve, s.inBuf[:fwdSize], s.pred[d], s.lineTag(tagForward[d], cl, d))
			s.t.stop(tComm)
			if err != nil {
				return err
			}
			if err := s.waitPair(&reqs, tComm); err != nil {
				return err
			}
			s.unpackSolveInfo(cl, d)
		}
		s.solveCell(cl, d, first, last)
		if !last {
			s.packSolveInfo(cl, d)
			s.t.start(tComm)
			reqs[1], err = mpi.Isend(s.solve, s.out[:fwdSize], s.succ[d], s.lineTag(tagForward[d], cl, d))
			s.t.stop(tComm)
			if err != nil {
				return err
			}
		}
	}
	for stage := nc - 1; stage >= 0; stage-- {
		cl := &s.cells[s.slice[d][stage]]
		first, last := stage == 0, stage == nc-1
		if !last {
			s.t.start(tComm)
			reqs[0], err = mpi.Irecv(s.solve, s.inBuf[:backSize], s.succ[d], s.lineTag(tagBack[d], cl, d))
			s.t.stop(tComm)
			if err != nil {
				return err
			}
			if err := s.waitPair(&reqs, tComm); err != nil {
				return err
			}
		}
		s.backsubstitute(cl, d, last)
		if !first {
			s.packBacksubInfo(cl, d)
			s.t.start(tComm)
			reqs[1], err = mpi.Isend(s.solve, s.out[:backSize], s.pred[d], s.lineTag(tagBack[d], cl, d))
			s.t.stop(tComm)
			if err != nil {
				return err
			}
		}
	}
	s.t.stop(tSolve)
	return nil
}

// waitPair waits for the previous send (reqs[1]), then the receive
// (reqs[0]), as the reference's two mpi_wait calls.
func (s *State) waitPair(reqs *[2]*mpi.Request, tComm int) error {
	s.t.start(tComm)
	defer s.t.stop(tComm)
	if reqs[1] != nil {
		if _, err := reqs[1].Wait(); err != nil {
			return err
		}
		reqs[1] = nil
	}
	_, err := reqs[0].Wait()
	reqs[0] = nil
	return err
}

// plane calls fn for every point of the MAX_CELL_DIM^2 plane across d at
// position i along d, in the messages' order (outer axis, then inner).
func (s *State) plane(d, i int, fn func(p int)) {
	P, Q := perp(d)
	o := s.idx(0, 0, 0) + i*s.stride[d]
	sP, sQ := s.stride[P], s.stride[Q]
	for p := 0; p < s.maxCell; p++ {
		for q := 0; q < s.maxCell; q++ {
			fn(o + p*sP + q*sQ)
		}
	}
}

// packSolveInfo packs the upper blocks and right-hand sides of cl's last
// plane along d (x_send_solve_info).
func (s *State) packSolveInfo(cl *cell, d int) {
	cv, out, n := s.cv, s.out, 0
	s.plane(d, cl.size[d]-1, func(p int) {
		for e := 0; e < 25; e++ {
			out[n+e] = cl.lhs[25*p+e]
		}
		for m := 0; m < 5; m++ {
			out[n+25+m] = cl.rhs[m*cv+p]
		}
		n += 30
	})
}

// unpackSolveInfo stores the previous cell's blocks and right-hand sides
// in plane -1 of cl (x_unpack_solve_info).
func (s *State) unpackSolveInfo(cl *cell, d int) {
	cv, in, n := s.cv, s.inBuf, 0
	s.plane(d, -1, func(p int) {
		for e := 0; e < 25; e++ {
			cl.lhs[25*p+e] = in[n+e]
		}
		for m := 0; m < 5; m++ {
			cl.rhs[m*cv+p] = in[n+25+m]
		}
		n += 30
	})
}

// packBacksubInfo packs the solution of cl's first plane along d
// (x_send_backsub_info).
func (s *State) packBacksubInfo(cl *cell, d int) {
	cv, out, n := s.cv, s.out, 0
	s.plane(d, 0, func(p int) {
		for m := 0; m < 5; m++ {
			out[n+m] = cl.rhs[m*cv+p]
		}
		n += 5
	})
}

// interiorLines calls fn with the index of point 0 along d of every line
// through the interior of cl, and the line's position in the plane of the
// messages.
func (s *State) interiorLines(cl *cell, d int, fn func(base, pos int)) {
	P, Q := perp(d)
	o := s.idx(0, 0, 0)
	sP, sQ := s.stride[P], s.stride[Q]
	for p := cl.start[P]; p < cl.size[P]-cl.end[P]; p++ {
		for q := cl.start[Q]; q < cl.size[Q]-cl.end[Q]; q++ {
			fn(o+p*sP+q*sQ, p*s.maxCell+q)
		}
	}
}

// backsubstitute is x_backsubstitute: the received solution of the next
// cell (unless last) and the back substitution through cl. The solution
// at a point is the next point's "next": it stays in locals.
func (s *State) backsubstitute(cl *cell, d int, last bool) {
	cv, sd := s.cv, s.stride[d]
	isize := cl.size[d] - 1
	in := s.inBuf
	r0s, r1s, r2s, r3s, r4s := cl.rhs[:cv], cl.rhs[cv:2*cv], cl.rhs[2*cv:3*cv], cl.rhs[3*cv:4*cv], cl.rhs[4*cv:5*cv]
	// The z solve is the step's last: its solution is added to u (add.f)
	// as it is found; no other cell reads this u before the next step.
	addU := d == 2
	u0s, u1s, u2s, u3s, u4s := cl.u[:cv], cl.u[cv:2*cv], cl.u[2*cv:3*cv], cl.u[3*cv:4*cv], cl.u[4*cv:5*cv]
	s.interiorLines(cl, d, func(base, pos int) {
		i := isize
		if last {
			i = isize - 1
		}
		p := base + i*sd
		var n0, n1, n2, n3, n4 float64
		if last {
			p1 := p + sd
			n0, n1, n2, n3, n4 = r0s[p1], r1s[p1], r2s[p1], r3s[p1], r4s[p1]
		} else {
			nx := (*[5]float64)(in[pos*5:])
			n0, n1, n2, n3, n4 = nx[0], nx[1], nx[2], nx[3], nx[4]
		}
		for ; i >= 0; i, p = i-1, p-sd {
			c := (*block)(cl.lhs[25*p:])
			r0 := r0s[p] - c[0]*n0 - c[1]*n1 - c[2]*n2 - c[3]*n3 - c[4]*n4
			r1 := r1s[p] - c[5]*n0 - c[6]*n1 - c[7]*n2 - c[8]*n3 - c[9]*n4
			r2 := r2s[p] - c[10]*n0 - c[11]*n1 - c[12]*n2 - c[13]*n3 - c[14]*n4
			r3 := r3s[p] - c[15]*n0 - c[16]*n1 - c[17]*n2 - c[18]*n3 - c[19]*n4
			r4 := r4s[p] - c[20]*n0 - c[21]*n1 - c[22]*n2 - c[23]*n3 - c[24]*n4
			r0s[p], r1s[p], r2s[p], r3s[p], r4s[p] = r0, r1, r2, r3, r4
			n0, n1, n2, n3, n4 = r0, r1, r2, r3, r4
			if addU && i >= cl.start[d] { // add.f: the interior only
				u0s[p] += r0
				u1s[p] += r1
				u2s[p] += r2
				u3s[p] += r3
				u4s[p] += r4
			}
		}
	})
}

type block = [25]float64

// solveCell is x_solve_cell: the Jacobians and block coefficients along
// every interior line of cl and the forward elimination through the cell.
func (s *State) solveCell(cl *cell, d int, first, last bool) {
	k := &s.k
	cv, sd := s.cv, s.stride[d]
	isize := cl.size[d] - 1
	var t1, t2 float64
	var dd [5]float64
	switch d {
	case 0:
		t1, t2 = k.dt*k.tx1, k.dt*k.tx2
		dd = [5]float64{k.dx1, k.dx2, k.dx3, k.dx4, k.dx5}
	case 1:
		t1, t2 = k.dt*k.ty1, k.dt*k.ty2
		dd = [5]float64{k.dy1, k.dy2, k.dy3, k.dy4, k.dy5}
	default:
		t1, t2 = k.dt*k.tz1, k.dt*k.tz2
		dd = [5]float64{k.dz1, k.dz2, k.dz3, k.dz4, k.dz5}
	}
	a := d + 1 // the momentum component along d
	fj, nj, la, lb := s.fjac, s.njac, s.lhsa, s.lhsb
	r0s, r1s, r2s, r3s, r4s := cl.rhs[:cv], cl.rhs[cv:2*cv], cl.rhs[2*cv:3*cv], cl.rhs[3*cv:4*cv], cl.rhs[4*cv:5*cv]
	// The Jacobians' zeros are the same at every point of an axis:
	// jacobians writes only the others.
	clear(fj)
	clear(nj)
	s.interiorLines(cl, d, func(base, _ int) {
		// lhsabinit, for the points the loop below leaves alone.
		for i := 0; i <= isize; i++ {
			if i == cl.start[d] && i <= isize-cl.end[d] {
				i = isize - cl.end[d]
				continue
			}
			A, B := la[(i+1)*25:(i+2)*25], lb[(i+1)*25:(i+2)*25]
			clear(A)
			clear(B)
			for m := 0; m < 5; m++ {
				B[5*m+m] = 1.0
			}
		}
		for i := cl.start[d] - 1; i <= cl.size[d]-cl.end[d]; i++ {
			p := base + i*sd
			s.jacobians(cl, p, a, fj[(i+1)*25:(i+2)*25], nj[(i+1)*25:(i+2)*25])
		}
		for i := cl.start[d]; i <= isize-cl.end[d]; i++ {
			p := base + i*sd
			A, B := (*block)(la[(i+1)*25:]), (*block)(lb[(i+1)*25:])
			C := (*block)(cl.lhs[25*p:])
			fm, nm := (*block)(fj[i*25:]), (*block)(nj[i*25:])
			n0 := (*block)(nj[(i+1)*25:])
			fp, np := (*block)(fj[(i+2)*25:]), (*block)(nj[(i+2)*25:])
			lhsBlocks(A, B, C, fm, nm, n0, fp, np, t1, t2)
			for m := 0; m < 5; m++ {
				e := 5*m + m
				A[e] -= t1 * dd[m]
				B[e] = 1.0 + t1*2.0*n0[e] + t1*2.0*dd[m]
				C[e] -= t1 * dd[m]
			}
		}
		// Forward elimination, in place: point i's upper block C (in
		// cl.lhs, point-major: the 25 values of a point are adjacent) and
		// right-hand side r become B^-1 C and B^-1 r after the previous
		// point's are eliminated; A and B are this line's scratch.
		var r, rm [5]float64
		loadRHS := func(p int, v *[5]float64) {
			v[0], v[1], v[2], v[3], v[4] = r0s[p], r1s[p], r2s[p], r3s[p], r4s[p]
		}
		storeRHS := func(p int, v *[5]float64) {
			r0s[p], r1s[p], r2s[p], r3s[p], r4s[p] = v[0], v[1], v[2], v[3], v[4]
		}
		i0 := 0
		if first {
			loadRHS(base, &r)
			binvcrhs((*block)(lb[25:]), (*block)(cl.lhs[25*base:]), &r)
			storeRHS(base, &r)
			i0 = 1
		} else {
			loadRHS(base-sd, &r) // the previous cell's last point (unpackSolveInfo)
		}
		for i := i0; i <= isize; i++ {
			p := base + i*sd
			A, B := (*block)(la[(i+1)*25:]), (*block)(lb[(i+1)*25:])
			rm = r
			loadRHS(p, &r)
			matvecSub(A, &rm, &r)
			matmulSub(A, (*block)(cl.lhs[25*(p-sd):]), B)
			if last && i == isize {
				binvrhs(B, &r)
			} else {
				binvcrhs(B, (*block)(cl.lhs[25*p:]), &r)
			}
			storeRHS(p, &r)
		}
	})
}

// jacobians computes the flux Jacobian f and the viscous Jacobian n at
// point p for the axis whose momentum component is a (1, 2 or 3).
func (s *State) jacobians(cl *cell, p, a int, f, n []float64) {
	k := &s.k
	cv := s.cv
	c1, c2, c3c4, c1345, con43 := k.c1, k.c2, k.c3c4, k.c1345, k.con43
	var u [5]float64
	for m := 0; m < 5; m++ {
		u[m] = cl.u[m*cv+p]
	}
	tmp1 := cl.rhoI[p]
	tmp2 := tmp1 * tmp1
	tmp3 := tmp1 * tmp2
	qs := cl.qs[p]
	ua := u[a]
	f[a] = 1.0
	for r := 1; r <= 3; r++ {
		if r == a {
			f[5*a] = -(ua * ua * tmp2) + c2*qs
			for b := 1; b <= 3; b++ {
				if b == a {
					f[5*a+b] = (2.0 - c2) * (ua * tmp1)
				} else {
					f[5*a+b] = -c2 * (u[b] * tmp1)
				}
			}
			f[5*a+4] = c2
		} else {
			f[5*r] = -(ua * u[r]) * tmp2
			f[5*r+a] = u[r] * tmp1
			f[5*r+r] = ua * tmp1
		}
	}
	f[20] = (c2*2.0*qs - c1*(u[4]*tmp1)) * (ua * tmp1)
	for b := 1; b <= 3; b++ {
		if b == a {
			f[20+b] = c1*u[4]*tmp1 - c2*(ua*ua*tmp2+qs)
		} else {
			f[20+b] = -c2 * (u[b] * ua) * tmp2
		}
	}
	f[24] = c1 * (ua * tmp1)

	n20 := -c1345 * tmp2 * u[4]
	for r := 1; r <= 3; r++ {
		coef := c3c4
		if r == a {
			coef = con43 * c3c4
		}
		n[5*r] = -coef * tmp2 * u[r]
		n[5*r+r] = coef * tmp1
		n20 -= (coef - c1345) * tmp3 * (u[r] * u[r])
		n[20+r] = (coef - c1345) * tmp2 * u[r]
	}
	n[20] = n20
	n[24] = c1345 * tmp1
}
