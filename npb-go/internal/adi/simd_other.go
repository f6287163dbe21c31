//go:build !amd64 || purego

package adi

// haveAVX2 is false where the amd64 assembly is not built: the Go code
// runs, and these are never called.
var haveAVX2 = false

func matmulSubAVX2(a, b, c *block)              { panic("adi: no AVX2 kernels in this build") }
func binvcrhsAVX2(lhs, c *block, r *[5]float64) { panic("adi: no AVX2 kernels in this build") }

func lhsBlocksAVX2(a, b, c, fm, nm, n0, fp, np *block, t1, t2 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fluxDensityAVX2(r, u, um, up, wm, wp *float64, n int, d0, t2 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fluxMomentumAVX2(r, u, um, up, t, tm, tp, vm, vp *float64, n int, dm, cc, t2 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fluxMomentumNormalAVX2(r, u, um, up, v, vm, vp, u5m, u5p, sqm, sqp *float64, n int, dm, cc, t2, c2 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fluxEnergyAAVX2(r, u5, u5m, u5p, q, qm, qp *float64, n int, d4, con3 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fluxEnergyBAVX2(r, v, vm, vp, u5, u5m, u5p, ri, rim, rip, sqm, sqp *float64, n int, con4, con5, t2, c1, c2 float64) {
	panic("adi: no AVX2 kernels in this build")
}
