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

// txinvr is the block-diagonal matrix-vector multiplication before the x
// solve (txinvr.f).
func (s *State) txinvr() {
	k := &s.k
	cv := s.cv
	c2, bt := k.c2, k.bt
	for c := range s.cells {
		cl := &s.cells[c]
		r := cl.rhs
		r1s, r2s, r3s, r4s, r5s := r[:cv], r[cv:2*cv], r[2*cv:3*cv], r[3*cv:4*cv], r[4*cv:5*cv]
		rhoI, us, vs, ws, speed, ainv, qs := cl.rhoI[:cv], cl.us[:cv], cl.vs[:cv], cl.ws[:cv], cl.speed[:cv], cl.ainv[:cv], cl.qs[:cv]
		for kk := cl.start[2]; kk < cl.size[2]-cl.end[2]; kk++ {
			for j := cl.start[1]; j < cl.size[1]-cl.end[1]; j++ {
				b := s.idx(0, j, kk)
				for p := b + cl.start[0]; p < b+cl.size[0]-cl.end[0]; p++ {
					ru1 := rhoI[p]
					uu, vv, ww := us[p], vs[p], ws[p]
					ac := speed[p]
					ac2inv := ainv[p] * ainv[p]
					r1, r2, r3, r4, r5 := r1s[p], r2s[p], r3s[p], r4s[p], r5s[p]
					t1 := c2 * ac2inv * (qs[p]*r1 - uu*r2 - vv*r3 - ww*r4 + r5)
					t2 := bt * ru1 * (uu*r1 - r2)
					t3 := (bt * ru1 * ac) * t1
					r1s[p] = r1 - t1
					r2s[p] = -ru1 * (ww*r1 - r4)
					r3s[p] = ru1 * (vv*r1 - r3)
					r4s[p] = -t2 + t3
					r5s[p] = t2 + t3
				}
			}
		}
	}
}

// invr is the block-diagonal multiplication that ends the solve along d:
// ninvr (x), pinvr (y) or tzetar (z).
func (s *State) invr(d int, cl *cell) {
	k := &s.k
	cv := s.cv
	bt := k.bt
	r := cl.rhs
	r1s, r2s, r3s, r4s, r5s := r[:cv], r[cv:2*cv], r[2*cv:3*cv], r[3*cv:4*cv], r[4*cv:5*cv]
	u1 := cl.u[:cv]
	us, vs, ws, speed, ainv, qs := cl.us[:cv], cl.vs[:cv], cl.ws[:cv], cl.speed[:cv], cl.ainv[:cv], cl.qs[:cv]
	c2iv := k.c2iv
	for kk := cl.start[2]; kk < cl.size[2]-cl.end[2]; kk++ {
		for j := cl.start[1]; j < cl.size[1]-cl.end[1]; j++ {
			b := s.idx(0, j, kk)
			lo, hi := b+cl.start[0], b+cl.size[0]-cl.end[0]
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
					r1s[p] = t2
					r2s[p] = -uzik1*r2 + xvel*t2
					r3s[p] = uzik1*r1 + yvel*t2
					r4s[p] = zvel*t2 + t3
					r5s[p] = uzik1*(-xvel*r2+yvel*r1) + qs[p]*t2 + c2iv*ac2u*t1 + zvel*t3
				}
			}
		}
	}
}
