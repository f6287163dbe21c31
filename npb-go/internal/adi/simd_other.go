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

func fwd3AVX2(p *[18]*float64, n int) { panic("adi: no AVX2 kernels in this build") }
func fwd1AVX2(p *[12]*float64, n int) { panic("adi: no AVX2 kernels in this build") }
func backAVX2(p *[5]*float64, n int)  { panic("adi: no AVX2 kernels in this build") }

func lhsRhonAVX2(r, ri *float64, n int, c3c4, dA, con43, d5, c1c5, dmx, d1 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func lhsUAVX2(p *[10]*float64, n int, ndtt2, dtt1, c2dtt1, dtt2 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func lhsPMAVX2(p *[17]*float64, n int, dtt2 float64) { panic("adi: no AVX2 kernels in this build") }

func lhsDissInteriorAVX2(p *[5]*float64, n int, comz1, comz4, comz6 float64) {
	panic("adi: no AVX2 kernels in this build")
}

func dissInteriorAVX2(p *[6]*float64, n int, dssp float64, comps, stride int, mask *[4]int64) {
	panic("adi: no AVX2 kernels in this build")
}

func invrXYAVX2(p *[5]*float64, n int, bt float64) { panic("adi: no AVX2 kernels in this build") }

func invrZAVX2(p *[16]*float64, n int, bt, c2iv float64) { panic("adi: no AVX2 kernels in this build") }

func dtTxinvrAVX2(p *[12]*float64, n int, dt, c2, bt float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fwd3Lines4AVX2(p *[8]*float64, stride, n int, st *[11][4]float64) {
	panic("adi: no AVX2 kernels in this build")
}

func fwd1Lines4AVX2(p *[6]*float64, stride, n int, st *[7][4]float64) {
	panic("adi: no AVX2 kernels in this build")
}

func backLines4AVX2(p *[3]*float64, stride, n int) { panic("adi: no AVX2 kernels in this build") }

func primitivesAVX2(p *[10]*float64, n int)         { panic("adi: no AVX2 kernels in this build") }
func speedAVX2(p *[5]*float64, n int, c1c2 float64) { panic("adi: no AVX2 kernels in this build") }

func fluxRowAVX2(a *fluxRowArgs, n int) { panic("adi: no AVX2 kernels in this build") }
