package adi

import "math"

// computeRHS computes the right-hand side of every cell (rhs.f): the
// auxiliary fields on the cell and its first ghost layer, the forcing
// term, the flux differences and fourth-order dissipation along each
// axis, all times dt. The flux loops run one component at a time over
// rows of points (views), which computes every value as the reference
// does.
func (s *State) computeRHS() {
	s.t.start(tRHS)
	k := &s.k
	cv := s.cv
	for c := range s.cells {
		cl := &s.cells[c]
		n := cl.size[0] + 2
		for kk := -1; kk <= cl.size[2]; kk++ {
			for j := -1; j <= cl.size[1]; j++ {
				b := s.idx(-1, j, kk)
				U1 := view(cl.u, b, n)
				U2 := view(cl.u, cv+b, n)[:len(U1)]
				U3 := view(cl.u, 2*cv+b, n)[:len(U1)]
				U4 := view(cl.u, 3*cv+b, n)[:len(U1)]
				RI := view(cl.rhoI, b, n)[:len(U1)]
				US := view(cl.us, b, n)[:len(U1)]
				VS := view(cl.vs, b, n)[:len(U1)]
				WS := view(cl.ws, b, n)[:len(U1)]
				SQ := view(cl.square, b, n)[:len(U1)]
				QS := view(cl.qs, b, n)[:len(U1)]
				i := vecPrefix(len(U1))
				if i > 0 {
					p := [10]*float64{&U1[0], &U2[0], &U3[0], &U4[0], &RI[0], &US[0], &VS[0], &WS[0], &SQ[0], &QS[0]}
					primitivesAVX2(&p, i)
				}
				for ; i < len(U1); i++ {
					rhoInv := 1.0 / U1[i]
					u2, u3, u4 := U2[i], U3[i], U4[i]
					RI[i] = rhoInv
					US[i] = u2 * rhoInv
					VS[i] = u3 * rhoInv
					WS[i] = u4 * rhoInv
					sq := 0.5 * (u2*u2 + u3*u3 + u4*u4) * rhoInv
					SQ[i] = sq
					QS[i] = sq * rhoInv
				}
				if cl.speed == nil {
					continue
				}
				// SP's solves also need the speed of sound and its inverse.
				U5 := view(cl.u, 4*cv+b, n)[:len(U1)]
				SP := view(cl.speed, b, n)[:len(U1)]
				AI := view(cl.ainv, b, n)[:len(U1)]
				i = vecPrefix(len(U1))
				if i > 0 {
					p := [5]*float64{&RI[0], &U5[0], &SQ[0], &SP[0], &AI[0]}
					speedAVX2(&p, i, k.c1c2)
				}
				for ; i < len(U1); i++ {
					aux := math.Sqrt(k.c1c2 * RI[i] * (U5[i] - SQ[i]))
					SP[i] = aux
					AI[i] = 1.0 / aux
				}
			}
		}
		// The forcing term is known on the whole cell, boundary included.
		copy(cl.rhs, cl.forcing)
		// Row by row (while the row is in cache), the same updates of
		// every point in the reference's order: x fluxes, x dissipation,
		// y, z, then the factor dt.
		dt := s.dt
		lo, hi := interior(cl)
		n = hi[0] - lo[0]
		for kk := lo[2]; kk < hi[2]; kk++ {
			for j := lo[1]; j < hi[1]; j++ {
				b := s.idx(lo[0], j, kk)
				for d := 0; d < 3; d++ {
					s.fluxRow(cl, d, b, n)
					s.dissipationRow(cl, d, j, kk)
				}
				if s.txinvrInRHS {
					s.dtTxinvrRow(cl, b, n)
					continue
				}
				for m := 0; m < 5; m++ {
					R := view(cl.rhs, m*cv+b, n)
					for i := range R {
						R[i] *= dt
					}
				}
			}
		}
	}
	s.t.stop(tRHS)
}

// fluxRow adds the flux differences along d to the rhs of the n interior
// points of cell cl's row from index b on.
func (s *State) fluxRow(cl *cell, d, b, n int) {
	k := &s.k
	cv := s.cv
	if fluxRowVector(cl, b, n, s.stride[d], cv) {
		s.fluxRowFused(cl, d, b, n)
		return
	}
	fc := &s.fc[d]
	t2, con2, con3, con4, con5 := fc.t2, fc.con2, fc.con3, fc.con4, fc.con5
	dd := &fc.dd
	c1, c2, con43 := k.c1, k.c2, k.con43
	vel := [3][]float64{cl.us, cl.vs, cl.ws}
	vn := vel[d]
	mn := d + 1 // the momentum component along d
	sd := s.stride[d]
	bm, bp := b-sd, b+sd
	// Density.
	R := view(cl.rhs, b, n)
	fluxDensity(R, view(cl.u, b, n), view(cl.u, bm, n), view(cl.u, bp, n),
		view(cl.u, mn*cv+bm, n), view(cl.u, mn*cv+bp, n), dd[0], t2)
	Vm, V, Vp := view(vn, bm, n), view(vn, b, n), view(vn, bp, n)
	U5m, U5, U5p := view(cl.u, 4*cv+bm, n), view(cl.u, 4*cv+b, n), view(cl.u, 4*cv+bp, n)
	SQm, SQp := view(cl.square, bm, n), view(cl.square, bp, n)
	// Momentum.
	for m := 1; m <= 3; m++ {
		R := view(cl.rhs, m*cv+b, n)
		U, Um, Up := view(cl.u, m*cv+b, n), view(cl.u, m*cv+bm, n), view(cl.u, m*cv+bp, n)
		if m == mn {
			fluxMomentumNormal(R, U, Um, Up, V, Vm, Vp, U5m, U5p, SQm, SQp, dd[m], con2*con43, t2, c2)
			continue
		}
		T := vel[m-1]
		fluxMomentum(R, U, Um, Up, view(T, b, n), view(T, bm, n), view(T, bp, n), Vm, Vp, dd[m], con2, t2)
	}
	// Energy.
	R = view(cl.rhs, 4*cv+b, n)
	fluxEnergyA(R, U5, U5m, U5p, view(cl.qs, b, n), view(cl.qs, bm, n), view(cl.qs, bp, n), dd[4], con3)
	fluxEnergyB(R, V, Vm, Vp, U5, U5m, U5p, view(cl.rhoI, b, n), view(cl.rhoI, bm, n), view(cl.rhoI, bp, n),
		SQm, SQp, con4, con5, t2, c1, c2)
}

// dissipationRow adds the fourth-order dissipation along axis d to the
// rhs of the interior points of cell cl's row (j, kk), with the one-sided
// stencils next to the grid's boundary, in the reference's order.
func (s *State) dissipationRow(cl *cell, d, j, kk int) {
	cv := s.cv
	size := cl.size[d]
	dssp := s.k.dssp
	if d == 0 {
		b := s.idx(0, j, kk)
		seg := func(from, to, kind int) {
			if from < to {
				dissRow(kind, dssp, cl.rhs, cl.u, b+from, to-from, 1, 5, cv)
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
		return
	}
	pos := j
	if d == 2 {
		pos = kk
	}
	sd := s.stride[d]
	i0 := cl.start[0]
	n := cl.size[0] - cl.end[0] - i0
	b := s.idx(i0, j, kk)
	apply := func(kind int) { dissRow(kind, dssp, cl.rhs, cl.u, b, n, sd, 5, cv) }
	if cl.start[d] > 0 {
		if pos == 1 {
			apply(1)
		}
		if pos == 2 {
			apply(2)
		}
	}
	if pos >= 3*cl.start[d] && pos < size-3*cl.end[d] {
		apply(3)
	}
	if cl.end[d] > 0 {
		if pos == size-3 {
			apply(4)
		}
		if pos == size-2 {
			apply(5)
		}
	}
}

// dissRow applies one dissipation stencil along stride sd to the n points
// from b on, in comps components cv apart (the rhs's five in one call, or
// one): 1 and 2 after the lower boundary, 3 inside, 4 and 5 before the
// upper boundary. The interior stencil's AVX2 kernel does every
// component's points in one call, the last n%4 with masked stores where
// the arrays reach to the end of their group of four (rows inside a cell
// do), else only the leading multiple of 4, and Go the rest.
func dissRow(kind int, dssp float64, rhs, u []float64, b, n, sd, comps, cv int) {
	from := 0
	if kind == 3 && comps > 0 && n > 0 && haveAVX2 {
		// The kernel reaches from the first component's lowest point
		// to the last one's highest; checking those two bounds checks
		// every access in between.
		last := (comps-1)*cv + b
		var mask [4]int64
		if end := last + (n+3)&^3; b >= 2*sd && end <= len(rhs) && end+2*sd <= len(u) {
			for i := range n & 3 {
				mask[i] = -1
			}
			from = n
		} else if from = vecPrefix(n); from > 0 {
			_, _ = view(rhs, b, from), view(rhs, last, from)
			_, _ = view(u, b-2*sd, from), view(u, last+2*sd, from)
		}
		if from > 0 {
			p := [6]*float64{&rhs[b], &u[b-2*sd], &u[b-sd], &u[b], &u[b+sd], &u[b+2*sd]}
			dissInteriorAVX2(&p, from, dssp, comps, 8*cv, &mask)
		}
	}
	if from == n {
		return // the kernel did every point
	}
	for m := 0; m < comps; m++ {
		dissPoints(kind, dssp, rhs, u, m*cv+b, n, sd, from)
	}
}

// dissPoints is dissRow's stencil on one component, in Go, from point
// from on.
func dissPoints(kind int, dssp float64, rhs, u []float64, b, n, sd, from int) {
	R := view(rhs, b, n)
	U := view(u, b, n)[:len(R)]
	Up := view(u, b+sd, n)[:len(R)]
	Um := view(u, b-sd, n)[:len(R)]
	switch kind {
	case 1:
		Upp := view(u, b+2*sd, n)[:len(R)]
		for i := from; i < len(R); i++ {
			R[i] -= dssp * (5.0*U[i] - 4.0*Up[i] + Upp[i])
		}
	case 2:
		Upp := view(u, b+2*sd, n)[:len(R)]
		for i := from; i < len(R); i++ {
			R[i] -= dssp * (-4.0*Um[i] + 6.0*U[i] - 4.0*Up[i] + Upp[i])
		}
	case 3:
		Upp := view(u, b+2*sd, n)[:len(R)]
		Umm := view(u, b-2*sd, n)[:len(R)]
		for i := from; i < len(R); i++ {
			R[i] -= dssp * (Umm[i] - 4.0*Um[i] + 6.0*U[i] - 4.0*Up[i] + Upp[i])
		}
	case 4:
		Umm := view(u, b-2*sd, n)[:len(R)]
		for i := from; i < len(R); i++ {
			R[i] -= dssp * (Umm[i] - 4.0*Um[i] + 6.0*U[i] - 4.0*Up[i])
		}
	case 5:
		Umm := view(u, b-2*sd, n)[:len(R)]
		for i := from; i < len(R); i++ {
			R[i] -= dssp * (Umm[i] - 4.0*Um[i] + 5.0*U[i])
		}
	}
}
