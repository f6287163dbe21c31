package adi

// The arithmetic of the line solves. Every loop runs over views: slices
// cut to the loop's length, so that the compiler drops the bounds checks.
// The lhs is computed row by row (a row of points along x), whatever the
// axis; the elimination and substitution of y and z run over a row of
// lines at a time (views one row apart, the loop running across the
// lines), those of x along one line (fwd3Line and the like, which keep
// the recurrence in registers).

// view is a[o : o+n].
func view(a []float64, o, n int) []float64 { return a[o : o+n : o+n] }

// interior returns the interior range of cl along each axis.
func interior(cl *cell) (lo, hi [3]int) {
	for a := 0; a < 3; a++ {
		lo[a], hi[a] = cl.start[a], cl.size[a]-cl.end[a]
	}
	return lo, hi
}

// lhs computes the left-hand sides of the three factors along d for cell
// cl (lhsx, lhsy, lhsz): the u factor from the velocity and the
// viscous bound rhon (s.rhonf, the reference's cv and rhon lines), its
// fourth-order dissipation, then the u+c and u-c factors from the speed
// of sound.
func (s *State) lhs(cl *cell, d int) {
	k := &s.k
	var vel []float64
	var dA, d5, dmx, d1, dtt1, dtt2, c2dtt1 float64
	switch d {
	case 0:
		vel = cl.us
		dA, d5, dmx, d1 = k.dx2, k.dx5, k.dxmax, k.dx1
		dtt1, dtt2, c2dtt1 = k.dttx1, k.dttx2, k.c2dttx1
	case 1:
		vel = cl.vs
		dA, d5, dmx, d1 = k.dy3, k.dy5, k.dymax, k.dy1
		dtt1, dtt2, c2dtt1 = k.dtty1, k.dtty2, k.c2dtty1
	case 2:
		vel = cl.ws
		dA, d5, dmx, d1 = k.dz4, k.dz5, k.dzmax, k.dz1
		dtt1, dtt2, c2dtt1 = k.dttz1, k.dttz2, k.c2dttz1
	}
	c3c4, con43, c1c5 := k.c3c4, k.con43, k.c1c5
	l := s.lhsSlices(cl)
	ss := s.stride[d]
	rhon := s.rhonf
	lo, hi := interior(cl)

	// rhon on the interior and one point beyond it along d.
	elo, ehi := lo, hi
	elo[d]--
	ehi[d]++
	n := ehi[0] - elo[0]
	for kk := elo[2]; kk < ehi[2]; kk++ {
		for j := elo[1]; j < ehi[1]; j++ {
			b := s.idx(elo[0], j, kk)
			R := view(rhon, b, n)
			RI := view(cl.rhoI, b, n)[:len(R)]
			i := vecPrefix(len(R))
			if i > 0 {
				lhsRhonAVX2(&R[0], &RI[0], i, c3c4, dA, con43, d5, c1c5, dmx, d1)
			}
			for ; i < len(R); i++ {
				ru1 := c3c4 * RI[i]
				R[i] = fmax(fmax(dA+con43*ru1, d5+c1c5*ru1), fmax(dmx+ru1, d1))
			}
		}
	}

	// Row by row: the u factor, its dissipation, the u+c and u-c factors.
	n = hi[0] - lo[0]
	size := cl.size[d]
	speed := cl.speed
	for kk := lo[2]; kk < hi[2]; kk++ {
		for j := lo[1]; j < hi[1]; j++ {
			b := s.idx(lo[0], j, kk)
			L1 := view(l[0], b, n)
			L2 := view(l[1], b, n)[:len(L1)]
			L3 := view(l[2], b, n)[:len(L1)]
			L4 := view(l[3], b, n)[:len(L1)]
			L5 := view(l[4], b, n)[:len(L1)]
			{
				Vm := view(vel, b-ss, n)[:len(L1)]
				Vp := view(vel, b+ss, n)[:len(L1)]
				Rm := view(rhon, b-ss, n)[:len(L1)]
				R := view(rhon, b, n)[:len(L1)]
				Rp := view(rhon, b+ss, n)[:len(L1)]
				i := vecPrefix(len(L1))
				if i > 0 {
					p := [10]*float64{&L1[0], &L2[0], &L3[0], &L4[0], &L5[0], &Vm[0], &Vp[0], &Rm[0], &R[0], &Rp[0]}
					lhsUAVX2(&p, i, -dtt2, dtt1, c2dtt1, dtt2)
				}
				for ; i < len(L1); i++ {
					L1[i] = 0.0
					L2[i] = -dtt2*Vm[i] - dtt1*Rm[i]
					L3[i] = 1.0 + c2dtt1*R[i]
					L4[i] = dtt2*Vp[i] - dtt1*Rp[i]
					L5[i] = 0.0
				}
			}

			// Fourth-order dissipation: the two rows after the lower
			// boundary, the interior, the two rows before the upper
			// boundary, in the reference's order.
			if d == 0 {
				b0 := s.idx(0, j, kk)
				seg := func(from, to, kind int) {
					if from < to {
						o := b0 + from
						s.lhsDiss(kind, l[0][o:b0+to], l[1][o:b0+to], l[2][o:b0+to], l[3][o:b0+to], l[4][o:b0+to])
					}
				}
				if cl.start[0] > 0 {
					seg(1, 2, 1)
					seg(2, 3, 2)
				}
				seg(3*cl.start[0], size-3*cl.end[0], 3)
				if cl.end[0] > 0 {
					seg(size-3, size-2, 4)
					seg(size-2, size-1, 5)
				}
			} else {
				pos := j
				if d == 2 {
					pos = kk
				}
				if cl.start[d] > 0 {
					if pos == 1 {
						s.lhsDiss(1, L1, L2, L3, L4, L5)
					}
					if pos == 2 {
						s.lhsDiss(2, L1, L2, L3, L4, L5)
					}
				}
				if pos >= 3*cl.start[d] && pos < size-3*cl.end[d] {
					s.lhsDiss(3, L1, L2, L3, L4, L5)
				}
				if cl.end[d] > 0 {
					if pos == size-3 {
						s.lhsDiss(4, L1, L2, L3, L4, L5)
					}
					if pos == size-2 {
						s.lhsDiss(5, L1, L2, L3, L4, L5)
					}
				}
			}

			// The u+c and u-c factors.
			Sm := view(speed, b-ss, n)[:len(L1)]
			Sp := view(speed, b+ss, n)[:len(L1)]
			L6 := view(l[5], b, n)[:len(L1)]
			L7 := view(l[6], b, n)[:len(L1)]
			L8 := view(l[7], b, n)[:len(L1)]
			L9 := view(l[8], b, n)[:len(L1)]
			L10 := view(l[9], b, n)[:len(L1)]
			L11 := view(l[10], b, n)[:len(L1)]
			L12 := view(l[11], b, n)[:len(L1)]
			L13 := view(l[12], b, n)[:len(L1)]
			L14 := view(l[13], b, n)[:len(L1)]
			L15 := view(l[14], b, n)[:len(L1)]
			i := vecPrefix(len(L1))
			if i > 0 {
				p := [17]*float64{&L1[0], &L2[0], &L3[0], &L4[0], &L5[0], &L6[0], &L7[0], &L8[0], &L9[0], &L10[0],
					&L11[0], &L12[0], &L13[0], &L14[0], &L15[0], &Sm[0], &Sp[0]}
				lhsPMAVX2(&p, i, dtt2)
			}
			for ; i < len(L1); i++ {
				L6[i] = L1[i]
				L7[i] = L2[i] - dtt2*Sm[i]
				L8[i] = L3[i]
				L9[i] = L4[i] + dtt2*Sp[i]
				L10[i] = L5[i]
				L11[i] = L1[i]
				L12[i] = L2[i] + dtt2*Sm[i]
				L13[i] = L3[i]
				L14[i] = L4[i] - dtt2*Sp[i]
				L15[i] = L5[i]
			}
		}
	}
}

// lhsDiss adds one of the dissipation stencils to the u factor's rows:
// 1 and 2 after the lower boundary, 3 inside, 4 and 5 before the upper
// boundary.
func (s *State) lhsDiss(kind int, l1, l2, l3, l4, l5 []float64) {
	k := &s.k
	comz1, comz4, comz5, comz6 := k.comz1, k.comz4, k.comz5, k.comz6
	l2 = l2[:len(l1)]
	l3 = l3[:len(l1)]
	l4 = l4[:len(l1)]
	l5 = l5[:len(l1)]
	switch kind {
	case 1:
		for i := range l1 {
			l3[i] += comz5
			l4[i] -= comz4
			l5[i] += comz1
		}
	case 2:
		for i := range l1 {
			l2[i] -= comz4
			l3[i] += comz6
			l4[i] -= comz4
			l5[i] += comz1
		}
	case 3:
		i := vecPrefix(len(l1))
		if i > 0 {
			p := [5]*float64{&l1[0], &l2[0], &l3[0], &l4[0], &l5[0]}
			lhsDissInteriorAVX2(&p, i, comz1, comz4, comz6)
		}
		for ; i < len(l1); i++ {
			l1[i] += comz1
			l2[i] -= comz4
			l3[i] += comz6
			l4[i] -= comz4
			l5[i] += comz1
		}
	case 4:
		for i := range l1 {
			l1[i] += comz1
			l2[i] -= comz4
			l3[i] += comz6
			l4[i] -= comz4
		}
	case 5:
		for i := range l1 {
			l1[i] += comz1
			l2[i] -= comz4
			l3[i] += comz5
		}
	}
}

// forward is the forward elimination along d of the three factors of
// cell cl, on all its interior lines, points 0..iend.
func (s *State) forward(cl *cell, d int, l *[15][]float64, r *[5][]float64) {
	ss := s.stride[d]
	iend := cl.size[d] - 1
	if d == 0 {
		s.xLines(cl, func(base, stride int) {
			fwd3Lines4(l[0], l[1], l[2], l[3], l[4], r[0], r[1], r[2], base, stride, iend+1)
			for m := 3; m < 5; m++ {
				f := factor(m)
				fwd1Lines4(l[f], l[f+1], l[f+2], l[f+3], l[f+4], r[m], base, stride, iend+1)
			}
		}, func(base int) {
			fwd3Line(l[0], l[1], l[2], l[3], l[4], r[0], r[1], r[2], base, iend+1)
			for m := 3; m < 5; m++ {
				f := factor(m)
				fwd1Line(l[f], l[f+1], l[f+2], l[f+3], l[f+4], r[m], base, iend+1)
			}
		})
		return
	}
	s.batches(cl, d, func(base, nq, _ int) {
		for i := 0; i <= iend-2; i++ {
			o := base + i*ss
			fwd3(l[0], l[1], l[2], l[3], l[4], r[0], r[1], r[2], o, o+ss, o+2*ss, nq)
		}
		o := base + (iend-1)*ss
		tail3(l[2], l[3], l[4], l[1], r[0], r[1], r[2], o, o+ss, nq)
		for m := 3; m < 5; m++ {
			f := factor(m)
			for i := 0; i <= iend-2; i++ {
				o := base + i*ss
				fwd1(l[f], l[f+1], l[f+2], l[f+3], l[f+4], r[m], o, o+ss, o+2*ss, nq)
			}
			tail1(l[f+2], l[f+3], l[f+4], l[f+1], r[m], o, o+ss, nq)
		}
	})
}

// fwd3 scales row a (views at oa) of the u factor and eliminates it from
// rows b and c, for n consecutive positions.
func fwd3(l1, l2, l3, l4, l5, r1, r2, r3 []float64, oa, ob, oc, n int) {
	L3a := view(l3, oa, n)
	L4a := view(l4, oa, n)[:len(L3a)]
	L5a := view(l5, oa, n)[:len(L3a)]
	R1a := view(r1, oa, n)[:len(L3a)]
	R2a := view(r2, oa, n)[:len(L3a)]
	R3a := view(r3, oa, n)[:len(L3a)]
	L2b := view(l2, ob, n)[:len(L3a)]
	L3b := view(l3, ob, n)[:len(L3a)]
	L4b := view(l4, ob, n)[:len(L3a)]
	R1b := view(r1, ob, n)[:len(L3a)]
	R2b := view(r2, ob, n)[:len(L3a)]
	R3b := view(r3, ob, n)[:len(L3a)]
	L1c := view(l1, oc, n)[:len(L3a)]
	L2c := view(l2, oc, n)[:len(L3a)]
	L3c := view(l3, oc, n)[:len(L3a)]
	R1c := view(r1, oc, n)[:len(L3a)]
	R2c := view(r2, oc, n)[:len(L3a)]
	R3c := view(r3, oc, n)[:len(L3a)]
	i := vecPrefix(len(L3a))
	if i > 0 {
		p := [18]*float64{&L3a[0], &L4a[0], &L5a[0], &R1a[0], &R2a[0], &R3a[0], &L2b[0], &L3b[0], &L4b[0],
			&R1b[0], &R2b[0], &R3b[0], &L1c[0], &L2c[0], &L3c[0], &R1c[0], &R2c[0], &R3c[0]}
		fwd3AVX2(&p, i)
	}
	for ; i < len(L3a); i++ {
		fac1 := 1.0 / L3a[i]
		l4a := fac1 * L4a[i]
		l5a := fac1 * L5a[i]
		r1a := fac1 * R1a[i]
		r2a := fac1 * R2a[i]
		r3a := fac1 * R3a[i]
		L4a[i], L5a[i], R1a[i], R2a[i], R3a[i] = l4a, l5a, r1a, r2a, r3a
		b := L2b[i]
		L3b[i] = L3b[i] - b*l4a
		L4b[i] = L4b[i] - b*l5a
		R1b[i] = R1b[i] - b*r1a
		R2b[i] = R2b[i] - b*r2a
		R3b[i] = R3b[i] - b*r3a
		c := L1c[i]
		L2c[i] = L2c[i] - c*l4a
		L3c[i] = L3c[i] - c*l5a
		R1c[i] = R1c[i] - c*r1a
		R2c[i] = R2c[i] - c*r2a
		R3c[i] = R3c[i] - c*r3a
	}
}

// tail3 finishes the u factor's last two rows (a at oa, b at ob): a is
// scaled and eliminated from b, then b is scaled.
func tail3(l3, l4, l5, l2, r1, r2, r3 []float64, oa, ob, n int) {
	L3a := view(l3, oa, n)
	L4a := view(l4, oa, n)[:len(L3a)]
	L5a := view(l5, oa, n)[:len(L3a)]
	R1a := view(r1, oa, n)[:len(L3a)]
	R2a := view(r2, oa, n)[:len(L3a)]
	R3a := view(r3, oa, n)[:len(L3a)]
	L2b := view(l2, ob, n)[:len(L3a)]
	L3b := view(l3, ob, n)[:len(L3a)]
	L4b := view(l4, ob, n)[:len(L3a)]
	L5b := view(l5, ob, n)[:len(L3a)]
	R1b := view(r1, ob, n)[:len(L3a)]
	R2b := view(r2, ob, n)[:len(L3a)]
	R3b := view(r3, ob, n)[:len(L3a)]
	for i := range L3a {
		fac1 := 1.0 / L3a[i]
		l4a := fac1 * L4a[i]
		l5a := fac1 * L5a[i]
		r1a := fac1 * R1a[i]
		r2a := fac1 * R2a[i]
		r3a := fac1 * R3a[i]
		L4a[i], L5a[i], R1a[i], R2a[i], R3a[i] = l4a, l5a, r1a, r2a, r3a
		b := L2b[i]
		l3b := L3b[i] - b*l4a
		l4b := L4b[i] - b*l5a
		r1b := R1b[i] - b*r1a
		r2b := R2b[i] - b*r2a
		r3b := R3b[i] - b*r3a
		L3b[i] = l3b
		fac2 := 1.0 / l3b
		L4b[i] = fac2 * l4b
		L5b[i] = fac2 * L5b[i]
		R1b[i] = fac2 * r1b
		R2b[i] = fac2 * r2b
		R3b[i] = fac2 * r3b
	}
}

// fwd1 is fwd3 for the u+c or u-c factor (one right-hand side).
func fwd1(l1, l2, l3, l4, l5, r []float64, oa, ob, oc, n int) {
	L3a := view(l3, oa, n)
	L4a := view(l4, oa, n)[:len(L3a)]
	L5a := view(l5, oa, n)[:len(L3a)]
	Ra := view(r, oa, n)[:len(L3a)]
	L2b := view(l2, ob, n)[:len(L3a)]
	L3b := view(l3, ob, n)[:len(L3a)]
	L4b := view(l4, ob, n)[:len(L3a)]
	Rb := view(r, ob, n)[:len(L3a)]
	L1c := view(l1, oc, n)[:len(L3a)]
	L2c := view(l2, oc, n)[:len(L3a)]
	L3c := view(l3, oc, n)[:len(L3a)]
	Rc := view(r, oc, n)[:len(L3a)]
	i := vecPrefix(len(L3a))
	if i > 0 {
		p := [12]*float64{&L3a[0], &L4a[0], &L5a[0], &Ra[0], &L2b[0], &L3b[0], &L4b[0], &Rb[0], &L1c[0], &L2c[0], &L3c[0], &Rc[0]}
		fwd1AVX2(&p, i)
	}
	for ; i < len(L3a); i++ {
		fac1 := 1.0 / L3a[i]
		l4a := fac1 * L4a[i]
		l5a := fac1 * L5a[i]
		ra := fac1 * Ra[i]
		L4a[i], L5a[i], Ra[i] = l4a, l5a, ra
		b := L2b[i]
		L3b[i] = L3b[i] - b*l4a
		L4b[i] = L4b[i] - b*l5a
		Rb[i] = Rb[i] - b*ra
		c := L1c[i]
		L2c[i] = L2c[i] - c*l4a
		L3c[i] = L3c[i] - c*l5a
		Rc[i] = Rc[i] - c*ra
	}
}

// tail1 is tail3 for the u+c or u-c factor.
func tail1(l3, l4, l5, l2, r []float64, oa, ob, n int) {
	L3a := view(l3, oa, n)
	L4a := view(l4, oa, n)[:len(L3a)]
	L5a := view(l5, oa, n)[:len(L3a)]
	Ra := view(r, oa, n)[:len(L3a)]
	L2b := view(l2, ob, n)[:len(L3a)]
	L3b := view(l3, ob, n)[:len(L3a)]
	L4b := view(l4, ob, n)[:len(L3a)]
	L5b := view(l5, ob, n)[:len(L3a)]
	Rb := view(r, ob, n)[:len(L3a)]
	for i := range L3a {
		fac1 := 1.0 / L3a[i]
		l4a := fac1 * L4a[i]
		l5a := fac1 * L5a[i]
		ra := fac1 * Ra[i]
		L4a[i], L5a[i], Ra[i] = l4a, l5a, ra
		b := L2b[i]
		l3b := L3b[i] - b*l4a
		l4b := L4b[i] - b*l5a
		rb := Rb[i] - b*ra
		L3b[i] = l3b
		fac2 := 1.0 / l3b
		L4b[i] = fac2 * l4b
		L5b[i] = fac2 * L5b[i]
		Rb[i] = fac2 * rb
	}
}

// backsub is the back substitution along d of the five components on the
// interior lines of cl, points iend-2 down to 0 (iend-1 and iend are
// done).
func (s *State) backsub(cl *cell, d int, l *[15][]float64, r *[5][]float64) {
	ss := s.stride[d]
	iend := cl.size[d] - 1
	if d == 0 {
		s.xLines(cl, func(base, stride int) {
			for m := 0; m < 5; m++ {
				f := factor(m)
				backLines4(l[f+3], l[f+4], r[m], base, stride, iend+1)
			}
		}, func(base int) {
			for m := 0; m < 5; m++ {
				f := factor(m)
				backLine(l[f+3], l[f+4], r[m], base, iend+1)
			}
		})
		return
	}
	s.batches(cl, d, func(base, nq, _ int) {
		for m := 0; m < 5; m++ {
			f := factor(m)
			for i := iend - 2; i >= 0; i-- {
				o := base + i*ss
				back(l[f+3], l[f+4], r[m], o, o+ss, o+2*ss, nq)
			}
		}
	})
}

// back substitutes rows b and c into row a, for n consecutive positions,
// the last first.
func back(l4, l5, r []float64, oa, ob, oc, n int) {
	Ra := view(r, oa, n)
	L4 := view(l4, oa, n)[:len(Ra)]
	L5 := view(l5, oa, n)[:len(Ra)]
	Rb := view(r, ob, n)[:len(Ra)]
	Rc := view(r, oc, n)[:len(Ra)]
	i := vecPrefix(len(Ra))
	if i > 0 {
		p := [5]*float64{&Ra[0], &L4[0], &L5[0], &Rb[0], &Rc[0]}
		backAVX2(&p, i)
	}
	for ; i < len(Ra); i++ {
		Ra[i] = Ra[i] - L4[i]*Rb[i] - L5[i]*Rc[i]
	}
}

// The x lines' kernels: along a line the elimination and substitution are
// recurrences, so these keep the rows in flight in registers instead of
// going through memory (the reference's compiler does the same). A line
// has n points from o on, n >= 3. Only the values used later are stored:
// l4, l5 and the right-hand sides (l2 and l3 of an eliminated row are
// dead: the next solve recomputes the lhs).

// fwd3Line is the forward elimination of the u factor along one x line.
func fwd3Line(l1, l2, l3, l4, l5, r1, r2, r3 []float64, o, n int) {
	L4 := view(l4, o, n)
	L1 := view(l1, o, n)[:len(L4)]
	L2 := view(l2, o, n)[:len(L4)]
	L3 := view(l3, o, n)[:len(L4)]
	L5 := view(l5, o, n)[:len(L4)]
	R1 := view(r1, o, n)[:len(L4)]
	R2 := view(r2, o, n)[:len(L4)]
	R3 := view(r3, o, n)[:len(L4)]
	if len(L4) < 3 {
		return
	}
	l3a, l4a, r1a, r2a, r3a := L3[0], L4[0], R1[0], R2[0], R3[0]
	l2b, l3b, l4b, r1b, r2b, r3b := L2[1], L3[1], L4[1], R1[1], R2[1], R3[1]
	for i := 0; i+2 < len(L4); i++ {
		fac1 := 1.0 / l3a
		l4a = fac1 * l4a
		l5a := fac1 * L5[i]
		r1a = fac1 * r1a
		r2a = fac1 * r2a
		r3a = fac1 * r3a
		L4[i], L5[i], R1[i], R2[i], R3[i] = l4a, l5a, r1a, r2a, r3a
		l3b = l3b - l2b*l4a
		l4b = l4b - l2b*l5a
		r1b = r1b - l2b*r1a
		r2b = r2b - l2b*r2a
		r3b = r3b - l2b*r3a
		c := L1[i+2]
		l2c := L2[i+2] - c*l4a
		l3c := L3[i+2] - c*l5a
		r1c := R1[i+2] - c*r1a
		r2c := R2[i+2] - c*r2a
		r3c := R3[i+2] - c*r3a
		l3a, l4a, r1a, r2a, r3a = l3b, l4b, r1b, r2b, r3b
		l2b, l3b, l4b, r1b, r2b, r3b = l2c, l3c, L4[i+2], r1c, r2c, r3c
	}
	fwd3LineEnd(L4, L5, R1, R2, R3, l3a, l4a, r1a, r2a, r3a, l2b, l3b, l4b, r1b, r2b, r3b)
}

// fwd3LineEnd is fwd3Line's last step, on the line's views, given the
// rows in flight.
func fwd3LineEnd(L4, L5, R1, R2, R3 []float64, l3a, l4a, r1a, r2a, r3a, l2b, l3b, l4b, r1b, r2b, r3b float64) {
	i := len(L4) - 2
	L5, R1, R2, R3 = L5[:len(L4)], R1[:len(L4)], R2[:len(L4)], R3[:len(L4)]
	fac1 := 1.0 / l3a
	l4a = fac1 * l4a
	l5a := fac1 * L5[i]
	r1a = fac1 * r1a
	r2a = fac1 * r2a
	r3a = fac1 * r3a
	L4[i], L5[i], R1[i], R2[i], R3[i] = l4a, l5a, r1a, r2a, r3a
	l3b = l3b - l2b*l4a
	l4b = l4b - l2b*l5a
	r1b = r1b - l2b*r1a
	r2b = r2b - l2b*r2a
	r3b = r3b - l2b*r3a
	fac2 := 1.0 / l3b
	L4[i+1] = fac2 * l4b
	L5[i+1] = fac2 * L5[i+1]
	R1[i+1] = fac2 * r1b
	R2[i+1] = fac2 * r2b
	R3[i+1] = fac2 * r3b
}

// fwd1Line is fwd3Line for the u+c or u-c factor.
func fwd1Line(l1, l2, l3, l4, l5, r []float64, o, n int) {
	L4 := view(l4, o, n)
	L1 := view(l1, o, n)[:len(L4)]
	L2 := view(l2, o, n)[:len(L4)]
	L3 := view(l3, o, n)[:len(L4)]
	L5 := view(l5, o, n)[:len(L4)]
	R := view(r, o, n)[:len(L4)]
	if len(L4) < 3 {
		return
	}
	l3a, l4a, ra := L3[0], L4[0], R[0]
	l2b, l3b, l4b, rb := L2[1], L3[1], L4[1], R[1]
	for i := 0; i+2 < len(L4); i++ {
		fac1 := 1.0 / l3a
		l4a = fac1 * l4a
		l5a := fac1 * L5[i]
		ra = fac1 * ra
		L4[i], L5[i], R[i] = l4a, l5a, ra
		l3b = l3b - l2b*l4a
		l4b = l4b - l2b*l5a
		rb = rb - l2b*ra
		c := L1[i+2]
		l2c := L2[i+2] - c*l4a
		l3c := L3[i+2] - c*l5a
		rc := R[i+2] - c*ra
		l3a, l4a, ra = l3b, l4b, rb
		l2b, l3b, l4b, rb = l2c, l3c, L4[i+2], rc
	}
	fwd1LineEnd(L4, L5, R, l3a, l4a, ra, l2b, l3b, l4b, rb)
}

// fwd1LineEnd is fwd1Line's last step.
func fwd1LineEnd(L4, L5, R []float64, l3a, l4a, ra, l2b, l3b, l4b, rb float64) {
	i := len(L4) - 2
	L5, R = L5[:len(L4)], R[:len(L4)]
	fac1 := 1.0 / l3a
	l4a = fac1 * l4a
	l5a := fac1 * L5[i]
	ra = fac1 * ra
	L4[i], L5[i], R[i] = l4a, l5a, ra
	l3b = l3b - l2b*l4a
	l4b = l4b - l2b*l5a
	rb = rb - l2b*ra
	fac2 := 1.0 / l3b
	L4[i+1] = fac2 * l4b
	L5[i+1] = fac2 * L5[i+1]
	R[i+1] = fac2 * rb
}

// backLine is the back substitution along one x line, points n-3 down to
// 0.
func backLine(l4, l5, r []float64, o, n int) {
	R := view(r, o, n)
	L4 := view(l4, o, n)[:len(R)]
	L5 := view(l5, o, n)[:len(R)]
	if len(R) < 3 {
		return
	}
	x1, x2 := R[len(R)-2], R[len(R)-1]
	for i := len(R) - 3; i >= 0; i-- {
		v := R[i] - L4[i]*x1 - L5[i]*x2
		R[i] = v
		x1, x2 = v, x1
	}
}
