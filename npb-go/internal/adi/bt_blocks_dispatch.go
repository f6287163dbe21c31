package adi

// matmulSub is c -= a*b (matmul_sub), in AVX2 where the CPU has it.
func matmulSub(a, b, c *block) {
	if haveAVX2 {
		matmulSubAVX2(a, b, c)
		return
	}
	matmulSubGo(a, b, c)
}

// binvcrhs solves lhs*x = (c, r) in place (binvcrhs): c becomes lhs^-1*c
// and r lhs^-1*r; lhs is left as scratch. In AVX2 where the CPU has it.
func binvcrhs(lhs, c *block, r *[5]float64) {
	if haveAVX2 {
		binvcrhsAVX2(lhs, c, r)
		return
	}
	binvcrhsGo(lhs, c, r)
}

// lhsBlocks sets a point's blocks of the block-tridiagonal system from the
// flux Jacobians f and viscous Jacobians n of it (n0) and of its two
// neighbours along the line (fm, nm before it; fp, np after it), the
// diagonals' dissipation aside (solveCell adds it):
// a = -t2*fm - t1*nm, b = t1*2*n0, c = t2*fp - t1*np; in AVX2 where the
// CPU has it.
func lhsBlocks(a, b, c, fm, nm, n0, fp, np *block, t1, t2 float64) {
	if haveAVX2 {
		lhsBlocksAVX2(a, b, c, fm, nm, n0, fp, np, t1, t2)
		return
	}
	lhsBlocksGo(a, b, c, fm, nm, n0, fp, np, t1, t2)
}

// lhsBlocksGo is lhsBlocks in Go.
func lhsBlocksGo(a, b, c, fm, nm, n0, fp, np *block, t1, t2 float64) {
	for e := 0; e < 25; e += 5 {
		a[e] = -t2*fm[e] - t1*nm[e]
		a[e+1] = -t2*fm[e+1] - t1*nm[e+1]
		a[e+2] = -t2*fm[e+2] - t1*nm[e+2]
		a[e+3] = -t2*fm[e+3] - t1*nm[e+3]
		a[e+4] = -t2*fm[e+4] - t1*nm[e+4]
		b[e] = t1 * 2.0 * n0[e]
		b[e+1] = t1 * 2.0 * n0[e+1]
		b[e+2] = t1 * 2.0 * n0[e+2]
		b[e+3] = t1 * 2.0 * n0[e+3]
		b[e+4] = t1 * 2.0 * n0[e+4]
		c[e] = t2*fp[e] - t1*np[e]
		c[e+1] = t2*fp[e+1] - t1*np[e+1]
		c[e+2] = t2*fp[e+2] - t1*np[e+2]
		c[e+3] = t2*fp[e+3] - t1*np[e+3]
		c[e+4] = t2*fp[e+4] - t1*np[e+4]
	}
}
