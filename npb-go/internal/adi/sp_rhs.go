package adi

// lhsinit zeroes the left-hand sides and sets their diagonals to 1; the
// rows on the grid's boundary keep these values.
func (s *State) lhsinit() {
	for c := range s.cells {
		cl := &s.cells[c]
		clear(cl.lhs)
		for n := 1; n <= 3; n++ {
			l := cl.lhs[(5*n-3)*s.cv:]
			for k := 0; k < cl.size[2]; k++ {
				for j := 0; j < cl.size[1]; j++ {
					for i := 0; i < cl.size[0]; i++ {
						l[s.idx(i, j, k)] = 1.0
					}
				}
			}
		}
	}
}

// dtTxinvrRow ends compute_rhs for the n interior points of a row from
// index b on, in SP's time steps: the factor dt, then txinvr.f's
// block-diagonal matrix-vector multiplication before the x solve, point
// by point while the row is in cache (one pass over the right-hand side
// instead of two).
func (s *State) dtTxinvrRow(cl *cell, b, n int) {
	k := &s.k
	cv, dt := s.cv, s.dt
	c2, bt := k.c2, k.bt
	R1 := view(cl.rhs, b, n)
	R2 := view(cl.rhs, cv+b, n)[:len(R1)]
	R3 := view(cl.rhs, 2*cv+b, n)[:len(R1)]
	R4 := view(cl.rhs, 3*cv+b, n)[:len(R1)]
	R5 := view(cl.rhs, 4*cv+b, n)[:len(R1)]
	RI := view(cl.rhoI, b, n)[:len(R1)]
	US := view(cl.us, b, n)[:len(R1)]
	VS := view(cl.vs, b, n)[:len(R1)]
	WS := view(cl.ws, b, n)[:len(R1)]
	SP := view(cl.speed, b, n)[:len(R1)]
	AI := view(cl.ainv, b, n)[:len(R1)]
	QS := view(cl.qs, b, n)[:len(R1)]
	i := vecPrefix(len(R1))
	if i > 0 {
		p := [12]*float64{&R1[0], &R2[0], &R3[0], &R4[0], &R5[0], &RI[0], &US[0], &VS[0], &WS[0], &SP[0], &AI[0], &QS[0]}
		dtTxinvrAVX2(&p, i, dt, c2, bt)
	}
	for ; i < len(R1); i++ {
		r1, r2, r3, r4, r5 := R1[i]*dt, R2[i]*dt, R3[i]*dt, R4[i]*dt, R5[i]*dt
		ru1 := RI[i]
		uu, vv, ww := US[i], VS[i], WS[i]
		ac := SP[i]
		ac2inv := AI[i] * AI[i]
		t1 := c2 * ac2inv * (QS[i]*r1 - uu*r2 - vv*r3 - ww*r4 + r5)
		t2 := bt * ru1 * (uu*r1 - r2)
		t3 := (bt * ru1 * ac) * t1
		R1[i] = r1 - t1
		R2[i] = -ru1 * (ww*r1 - r4)
		R3[i] = ru1 * (vv*r1 - r3)
		R4[i] = -t2 + t3
		R5[i] = t2 + t3
	}
}

// invr is the block-diagonal multiplication that ends the solve along d:
// ninvr (x), pinvr (y) or tzetar (z); tzetar also adds the update to u
// (add.f), which SP's step then does not do again.
func (s *State) invr(d int, cl *cell) {
	k := &s.k
	cv := s.cv
	bt := k.bt
	r := cl.rhs
	r1s, r2s, r3s, r4s, r5s := r[:cv], r[cv:2*cv], r[2*cv:3*cv], r[3*cv:4*cv], r[4*cv:5*cv]
	u1, u2, u3, u4, u5 := cl.u[:cv], cl.u[cv:2*cv], cl.u[2*cv:3*cv], cl.u[3*cv:4*cv], cl.u[4*cv:5*cv]
	us, vs, ws, speed, ainv, qs := cl.us[:cv], cl.vs[:cv], cl.ws[:cv], cl.speed[:cv], cl.ainv[:cv], cl.qs[:cv]
	c2iv := k.c2iv
	for kk := cl.start[2]; kk < cl.size[2]-cl.end[2]; kk++ {
		for j := cl.start[1]; j < cl.size[1]-cl.end[1]; j++ {
			b := s.idx(0, j, kk)
			lo, hi := b+cl.start[0], b+cl.size[0]-cl.end[0]
			if v := vecPrefix(hi - lo); v > 0 {
				switch d {
				case 0:
					p := [5]*float64{&r1s[lo], &r2s[lo], &r3s[lo], &r4s[lo], &r5s[lo]}
					invrXYAVX2(&p, v, bt)
				case 1:
					p := [5]*float64{&r2s[lo], &r3s[lo], &r1s[lo], &r4s[lo], &r5s[lo]}
					invrXYAVX2(&p, v, bt)
				case 2:
					p := [16]*float64{&r1s[lo], &r2s[lo], &r3s[lo], &r4s[lo], &r5s[lo], &u1[lo], &u2[lo], &u3[lo], &u4[lo], &u5[lo],
						&us[lo], &vs[lo], &ws[lo], &speed[lo], &ainv[lo], &qs[lo]}
					invrZAVX2(&p, v, bt, c2iv)
				}
				lo += v
			}
			switch d {
			case 0:
				for p := lo; p < hi; p++ {
					r1, r2, r3, r4, r5 := r1s[p], r2s[p], r3s[p], r4s[p], r5s[p]
					t1 := bt * r3
					t2 := 0.5 * (r4 + r5)
					r1s[p] = -r2
					r2s[p] = r1
					r3s[p] = bt * (r4 - r5)
					r4s[p] = -t1 + t2
					r5s[p] = t1 + t2
				}
			case 1:
				for p := lo; p < hi; p++ {
					r1, r2, r3, r4, r5 := r1s[p], r2s[p], r3s[p], r4s[p], r5s[p]
					t1 := bt * r1
					t2 := 0.5 * (r4 + r5)
					r1s[p] = bt * (r4 - r5)
					r2s[p] = -r3
					r3s[p] = r2
					r4s[p] = -t1 + t2
					r5s[p] = t1 + t2
				}
			case 2:
				for p := lo; p < hi; p++ {
					xvel, yvel, zvel := us[p], vs[p], ws[p]
					ac := speed[p]
					acinv := ainv[p]
					ac2u := ac * ac
					r1, r2, r3, r4, r5 := r1s[p], r2s[p], r3s[p], r4s[p], r5s[p]
					uzik1 := u1[p]
					btuz := bt * uzik1
					t1 := btuz * acinv * (r4 + r5)
					t2 := r3 + t1
					t3 := btuz * (r4 - r5)
					n1, n2, n3 := t2, -uzik1*r2+xvel*t2, uzik1*r1+yvel*t2
					n4, n5 := zvel*t2+t3, uzik1*(-xvel*r2+yvel*r1)+qs[p]*t2+c2iv*ac2u*t1+zvel*t3
					r1s[p], r2s[p], r3s[p], r4s[p], r5s[p] = n1, n2, n3, n4, n5
					// add.f, while the point is at hand: the z solve is
					// the step's last, and no other cell reads this u.
					u1[p] += n1
					u2[p] += n2
					u3[p] += n3
					u4[p] += n4
					u5[p] += n5
				}
			}
		}
	}
}
