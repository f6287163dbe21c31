package adi

// The x lines' solves four lines at a time. Along an x line the
// elimination and the substitution are recurrences (fwd3Line and the
// like), each step waiting for the last one's division: one line at a
// time, the CPU mostly waits. With AVX2, four lines the same distance
// apart go through the recurrence together, one per lane
// (sp_lines_amd64.s), and Go finishes each line's last step.

// xLines calls four for each group of four lines along x through the
// interior of cl that are the same distance apart (base: line 0's point
// 0, stride: the distance between lines), when AVX2 is there, and one
// for each other line.
func (s *State) xLines(cl *cell, four func(base, stride int), one func(base int)) {
	P, Q := perp(0)
	p0, p1 := cl.start[P], cl.size[P]-cl.end[P]
	q0, q1 := cl.start[Q], cl.size[Q]-cl.end[Q]
	o := s.idx(0, 0, 0)
	sP, sQ := s.stride[P], s.stride[Q]
	for p := p0; p < p1; p++ {
		q := q0
		if haveAVX2 && cl.size[0] >= 3 {
			for ; q+4 <= q1; q += 4 {
				four(o+p*sP+q*sQ, sQ)
			}
		}
		for ; q < q1; q++ {
			one(o + p*sP + q*sQ)
		}
	}
}

// span is a[o : o+3*stride+n], the points of four lines: slicing it
// checks that the assembly stays within a.
func span(a []float64, o, stride, n int) *float64 { return &a[o : o+3*stride+n][0] }

// fwd3Lines4 is fwd3Line on the four lines from o on, stride apart.
func fwd3Lines4(l1, l2, l3, l4, l5, r1, r2, r3 []float64, o, stride, n int) {
	p := [8]*float64{span(l1, o, stride, n), span(l2, o, stride, n), span(l3, o, stride, n), span(l4, o, stride, n),
		span(l5, o, stride, n), span(r1, o, stride, n), span(r2, o, stride, n), span(r3, o, stride, n)}
	var st [11][4]float64
	fwd3Lines4AVX2(&p, 8*stride, n, &st)
	for j := range 4 {
		b := o + j*stride
		fwd3LineEnd(view(l4, b, n), view(l5, b, n), view(r1, b, n), view(r2, b, n), view(r3, b, n),
			st[0][j], st[1][j], st[2][j], st[3][j], st[4][j], st[5][j], st[6][j], st[7][j], st[8][j], st[9][j], st[10][j])
	}
}

// fwd1Lines4 is fwd1Line on the four lines from o on, stride apart.
func fwd1Lines4(l1, l2, l3, l4, l5, r []float64, o, stride, n int) {
	p := [6]*float64{span(l1, o, stride, n), span(l2, o, stride, n), span(l3, o, stride, n), span(l4, o, stride, n),
		span(l5, o, stride, n), span(r, o, stride, n)}
	var st [7][4]float64
	fwd1Lines4AVX2(&p, 8*stride, n, &st)
	for j := range 4 {
		b := o + j*stride
		fwd1LineEnd(view(l4, b, n), view(l5, b, n), view(r, b, n), st[0][j], st[1][j], st[2][j], st[3][j], st[4][j], st[5][j], st[6][j])
	}
}

// backLines4 is backLine on the four lines from o on, stride apart.
func backLines4(l4, l5, r []float64, o, stride, n int) {
	p := [3]*float64{span(l4, o, stride, n), span(l5, o, stride, n), span(r, o, stride, n)}
	backLines4AVX2(&p, 8*stride, n)
}
