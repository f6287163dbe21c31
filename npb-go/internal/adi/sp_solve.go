package adi

import "github.com/gompi/gompi/mpi"

// The line solves along x, y and z (x_solve.f, y_solve.f, z_solve.f and
// lhsx/lhsy/lhsz.f): each solves the three scalar pentadiagonal factors
// (u, u+c, u-c) along every grid line of the axis with the Thomas
// algorithm. A line crosses ncells cells, one per rank: the forward
// elimination sweeps through them in increasing order, each rank sending
// the last two eliminated rows of its cell to the next one (22 values per
// line), and the back substitution returns, sending the first two
// solution values (10 per line) back. The reference's one routine per
// axis is one routine here with the axis as a parameter; the lines of a
// cell are visited in batches (one line for x, a row of lines contiguous
// in memory for y and z) so that the inner loops run over consecutive
// points as the reference's do.

// planeSize is the number of lines along d through the interior of cl:
// the reference's buffer_size.
func planeSize(cl *cell, d int) int {
	p, q := perp(d)
	return (cl.size[p] - cl.start[p] - cl.end[p]) * (cl.size[q] - cl.start[q] - cl.end[q])
}

// batches calls fn for the lines along d through the interior of cl:
// base is the index of the first line's point 0, nq lines sq apart.
func (s *State) batches(cl *cell, d int, fn func(base, nq, sq int)) {
	P, Q := perp(d)
	p0, p1 := cl.start[P], cl.size[P]-cl.end[P]
	q0, q1 := cl.start[Q], cl.size[Q]-cl.end[Q]
	o := s.idx(0, 0, 0)
	sP, sQ := s.stride[P], s.stride[Q]
	if d == 0 {
		for p := p0; p < p1; p++ {
			for q := q0; q < q1; q++ {
				fn(o+p*sP+q*sQ, 1, 0)
			}
		}
		return
	}
	for p := p0; p < p1; p++ {
		fn(o+p*sP+q0*sQ, q1-q0, sQ)
	}
}

// points calls fn with the index of point 0 of every line along d through
// the interior of cl, in the order the messages list them.
func (s *State) points(cl *cell, d int, fn func(base int)) {
	P, Q := perp(d)
	o := s.idx(0, 0, 0)
	sP, sQ := s.stride[P], s.stride[Q]
	for p := cl.start[P]; p < cl.size[P]-cl.end[P]; p++ {
		for q := cl.start[Q]; q < cl.size[Q]-cl.end[Q]; q++ {
			fn(o + p*sP + q*sQ)
		}
	}
}

// lhsSlices returns the 15 coefficient arrays of cl's lhs.
func (s *State) lhsSlices(cl *cell) (l [15][]float64) {
	for n := range l {
		l[n] = cl.lhs[n*s.cv : (n+1)*s.cv]
	}
	return l
}

// rhsSlices returns the 5 components of cl's rhs.
func (s *State) rhsSlices(cl *cell) (r [5][]float64) {
	for m := range r {
		r[m] = cl.rhs[m*s.cv : (m+1)*s.cv]
	}
	return r
}

// factor returns, for rhs component m, the offset in the lhs of its
// factor: 0 for the u factor (m < 3), 5 for u+c, 10 for u-c.
func factor(m int) int {
	switch m {
	case 3:
		return 5
	case 4:
		return 10
	}
	return 0
}

// spSolveDir is x_solve, y_solve or z_solve (d = 0, 1, 2).
func (s *State) spSolveDir(d int) error {
	tSolve, tComm := tXsolve+d, tXcomm+d
	s.t.start(tSolve)
	nc := s.ncells
	ss := s.stride[d]
	var reqs [2]*mpi.Request
	var err error
	wait := func() error {
		s.t.start(tComm)
		_, err := mpi.Waitall(reqs[:])
		reqs = [2]*mpi.Request{}
		s.t.stop(tComm)
		return err
	}

	// Forward elimination, through the cells in increasing order.
	for stage := 0; stage < nc; stage++ {
		cl := &s.cells[s.slice[d][stage]]
		iend := cl.size[d] - 1
		bs := planeSize(cl, d)
		l := s.lhsSlices(cl)
		r := s.rhsSlices(cl)
		if stage != 0 {
			// Receive the previous cell's last two rows while computing
			// the lhs; the wait also completes the previous stage's send.
			s.t.start(tComm)
			reqs[0], err = mpi.Irecv(s.solve, s.inBuf[:22*bs], s.pred[d], tagSolve)
			s.t.stop(tComm)
			if err != nil {
				return err
			}
			s.lhs(cl, d)
			if err := wait(); err != nil {
				return err
			}
			in := s.inBuf
			n := 0
			s.points(cl, d, func(p int) {
				p1 := p + ss
				l1, l2, l3, l4 := l[0], l[1], l[2], l[3]
				l2[p] -= in[n] * l1[p]
				l3[p] -= in[n+1] * l1[p]
				for m := 0; m < 3; m++ {
					r[m][p] -= in[n+2+m] * l1[p]
				}
				dd, e := in[n+5], in[n+6]
				r1 := l2[p]
				l3[p] -= dd * r1
				l4[p] -= e * r1
				for m := 0; m < 3; m++ {
					r[m][p] -= in[n+7+m] * r1
				}
				r2 := l1[p1]
				l2[p1] -= dd * r2
				l3[p1] -= e * r2
				for m := 0; m < 3; m++ {
					r[m][p1] -= in[n+7+m] * r2
				}
				n += 10
			})
			for m := 3; m < 5; m++ {
				f := factor(m)
				l1, l2, l3, l4 := l[f], l[f+1], l[f+2], l[f+3]
				rm := r[m]
				s.points(cl, d, func(p int) {
					p1 := p + ss
					l2[p] -= in[n] * l1[p]
					l3[p] -= in[n+1] * l1[p]
					rm[p] -= in[n+2] * l1[p]
					dd, e, sm := in[n+3], in[n+4], in[n+5]
					r1 := l2[p]
					l3[p] -= dd * r1
					l4[p] -= e * r1
					rm[p] -= sm * r1
					r2 := l1[p1]
					l2[p1] -= dd * r2
					l3[p1] -= e * r2
					rm[p1] -= sm * r2
					n += 6
				})
			}
		} else {
			s.lhs(cl, d)
		}

		s.forward(cl, d, &l, &r)

		if stage != nc-1 {
			out := s.out
			n := 0
			s.points(cl, d, func(p int) {
				for i := iend - 1; i <= iend; i++ {
					pi := p + i*ss
					out[n] = l[3][pi]
					out[n+1] = l[4][pi]
					out[n+2] = r[0][pi]
					out[n+3] = r[1][pi]
					out[n+4] = r[2][pi]
					n += 5
				}
			})
			for m := 3; m < 5; m++ {
				f := factor(m)
				s.points(cl, d, func(p int) {
					for i := iend - 1; i <= iend; i++ {
						pi := p + i*ss
						out[n] = l[f+3][pi]
						out[n+1] = l[f+4][pi]
						out[n+2] = r[m][pi]
						n += 3
					}
				})
			}
			s.t.start(tComm)
			reqs[1], err = mpi.Isend(s.solve, s.out[:22*bs], s.succ[d], tagSolve)
			s.t.stop(tComm)
			if err != nil {
				return err
			}
		}
	}

	// Back substitution, in the reverse order.
	for stage := nc - 1; stage >= 0; stage-- {
		cl := &s.cells[s.slice[d][stage]]
		iend := cl.size[d] - 1
		bs := planeSize(cl, d)
		l := s.lhsSlices(cl)
		r := s.rhsSlices(cl)
		if stage != nc-1 {
			// Receive the next cell's first two solution values while
			// finishing the cell done before.
			s.t.start(tComm)
			reqs[0], err = mpi.Irecv(s.solve, s.inBuf[:10*bs], s.succ[d], tagSolve)
			s.t.stop(tComm)
			if err != nil {
				return err
			}
			s.invr(d, &s.cells[s.slice[d][stage+1]])
			if err := wait(); err != nil {
				return err
			}
			in := s.inBuf
			n := 0
			for m := 0; m < 5; m++ {
				f := factor(m)
				l4, l5, rm := l[f+3], l[f+4], r[m]
				s.points(cl, d, func(p int) {
					pi := p + iend*ss
					pi1 := pi - ss
					sm1, sm2 := in[n], in[n+1]
					rm[pi] = rm[pi] - l4[pi]*sm1 - l5[pi]*sm2
					rm[pi1] = rm[pi1] - l4[pi1]*rm[pi] - l5[pi1]*sm1
					n += 2
				})
			}
		} else {
			// The last cell: no message starts the substitution.
			for m := 0; m < 5; m++ {
				f := factor(m)
				l4, rm := l[f+3], r[m]
				s.points(cl, d, func(p int) {
					pi := p + (iend-1)*ss
					rm[pi] = rm[pi] - l4[pi]*rm[pi+ss]
				})
			}
		}
		s.backsub(cl, d, &l, &r)
		if stage != 0 {
			out := s.out
			n := 0
			for m := 0; m < 5; m++ {
				rm := r[m]
				s.points(cl, d, func(p int) {
					out[n] = rm[p]
					out[n+1] = rm[p+ss]
					n += 2
				})
			}
			s.t.start(tComm)
			reqs[1], err = mpi.Isend(s.solve, s.out[:10*bs], s.pred[d], tagSolve)
			s.t.stop(tComm)
			if err != nil {
				return err
			}
		} else {
			s.invr(d, cl)
		}
	}
	s.t.stop(tSolve)
	return nil
}

// fmax is the larger of a and b (the reference's dmax1; no NaN or signed
// zero handling is needed on these positive values).
func fmax(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}
