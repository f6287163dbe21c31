package adi

// The flux updates of one row along one axis in a single AVX2 call: the
// six loops of fluxRow (density, the three momenta, the energy in two
// parts) four points at a time, each group of points through all six
// before the next, and the last group of fewer than four points done by
// the same code with masked stores, so no point is left to the Go loops.
// Each element's operations are those of the six kernels (flux_amd64.s),
// in their order: the results are bit for bit the Go loops' (TestFluxRowAVX2).
// The separate calls cost more than their work on short rows: a row of
// class W's SP has 34 interior points, and its last two went through
// scalar Go.

// fluxRowArgs is what fluxRowAVX2 reads: the arrays at the row's first
// point, the stride along the axis, the last group's lanes and the
// coefficients. The assembly addresses it by byte offsets
// (flux_row_amd64.s); TestFluxRowArgsLayout keeps the two in step.
type fluxRowArgs struct {
	r0, u0                 *float64 // density: rhs, u
	uN, rN                 *float64 // the momentum along the axis: u, rhs
	uT1                    *float64 // the first momentum across the axis: u, rhs, the velocity it carries
	rT1                    *float64
	tT1                    *float64
	uT2                    *float64 // the second
	rT2                    *float64
	tT2                    *float64
	v                      *float64 // the velocity along the axis
	u4, r4                 *float64 // energy: u, rhs
	sq                     *float64 // square
	qs                     *float64
	ri                     *float64 // rhoI
	sd                     int      // stride along the axis, in bytes
	mask                   [4]int64 // -1 in the lanes of the last group's points
	d0, dN, dT1, dT2, d4   float64
	t2, con2, cc43, c1, c2 float64
	con3, con4, con5       float64
}

// fluxRowVector reports whether fluxRowAVX2 may do the n points of cell
// cl's row from b along stride sd: it reads up to the end of the last
// group of four, so every array must reach that far past the row, and
// sd points before and after it.
func fluxRowVector(cl *cell, b, n, sd, cv int) bool {
	if !haveAVX2 || n == 0 || b < sd {
		return false
	}
	end := b + sd + (n+3)&^3 // one past the highest point read, in one component
	return 4*cv+end <= len(cl.u) && 4*cv+end-sd <= len(cl.rhs) &&
		end <= len(cl.us) && end <= len(cl.vs) && end <= len(cl.ws) &&
		end <= len(cl.qs) && end <= len(cl.rhoI) && end <= len(cl.square)
}

// fluxRowFused is fluxRow's work by fluxRowAVX2 (fluxRowVector must hold).
func (s *State) fluxRowFused(cl *cell, d, b, n int) {
	k := &s.k
	cv := s.cv
	fc := &s.fc[d]
	vel := [3][]float64{cl.us, cl.vs, cl.ws}
	mn := d + 1
	var t1, t2 int // the momentum components across the axis
	switch mn {
	case 1:
		t1, t2 = 2, 3
	case 2:
		t1, t2 = 1, 3
	default:
		t1, t2 = 1, 2
	}
	a := fluxRowArgs{
		r0: &cl.rhs[b], u0: &cl.u[b],
		uN: &cl.u[mn*cv+b], rN: &cl.rhs[mn*cv+b],
		uT1: &cl.u[t1*cv+b], rT1: &cl.rhs[t1*cv+b], tT1: &vel[t1-1][b],
		uT2: &cl.u[t2*cv+b], rT2: &cl.rhs[t2*cv+b], tT2: &vel[t2-1][b],
		v:  &vel[d][b],
		u4: &cl.u[4*cv+b], r4: &cl.rhs[4*cv+b],
		sq: &cl.square[b], qs: &cl.qs[b], ri: &cl.rhoI[b],
		sd: 8 * s.stride[d],
		d0: fc.dd[0], dN: fc.dd[mn], dT1: fc.dd[t1], dT2: fc.dd[t2], d4: fc.dd[4],
		t2: fc.t2, con2: fc.con2, cc43: fc.con2 * k.con43, c1: k.c1, c2: k.c2,
		con3: fc.con3, con4: fc.con4, con5: fc.con5,
	}
	for i := range n & 3 {
		a.mask[i] = -1
	}
	fluxRowAVX2(&a, n)
}
