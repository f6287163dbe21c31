package main

// The AVX2 forms of resid's and psinv's lines, as the reference computes
// them: the line sums of the edge (1) and corner (2) neighbours into
// scratch lines first, then the points, four at a time. The points the
// vectors leave (fewer than four at a line's end) are done here in Go,
// with the same expressions.

// lineSums sets out[j] = ((a[j] + b[j]) + c[j]) + d[j] for every j.
func lineSums(out, a, b, c, d []float64) {
	n := len(out)
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	j := n &^ 3
	if j > 0 {
		lineSumsAVX2(&out[0], &a[0], &b[0], &c[0], &d[0], j)
	}
	for ; j < n; j++ {
		out[j] = a[j] + b[j] + c[j] + d[j]
	}
}

// residLine is one line of resid: rr[i] for the interior points 1 to
// len(rr)-2, with u1 and u2 the line sums of u's edge and corner
// neighbours.
func residLine(rr, vr, uc, u1, u2 []float64, a0, a2, a3 float64) {
	n := len(rr)
	vr, uc, u1, u2 = vr[:n], uc[:n], u1[:n], u2[:n]
	m := (n - 2) &^ 3 // points done in AVX2, from 1
	if m > 0 {
		residLineAVX2(&rr[1], &vr[1], &uc[1], &u1[1], &u2[1], m, a0, a2, a3)
	}
	for i := 1 + m; i < n-1; i++ {
		rr[i] = vr[i] -
			a0*uc[i] -
			a2*(u2[i]+u1[i-1]+u1[i+1]) -
			a3*(u2[i-1]+u2[i+1])
	}
}

// psinvLine is one line of psinv: ur[i] for the interior points, with r1
// and r2 the line sums of r's edge and corner neighbours.
func psinvLine(ur, rr, r1, r2 []float64, c0, c1, c2 float64) {
	n := len(ur)
	rr, r1, r2 = rr[:n], r1[:n], r2[:n]
	m := (n - 2) &^ 3
	if m > 0 {
		psinvLineAVX2(&ur[1], &rr[1], &r1[1], &r2[1], m, c0, c1, c2)
	}
	for i := 1 + m; i < n-1; i++ {
		ur[i] = ur[i] +
			c0*rr[i] +
			c1*(rr[i-1]+rr[i+1]+r1[i]) +
			c2*(r2[i]+r1[i-1]+r1[i+1])
	}
}
