//go:build !amd64 || purego

package main

// haveAVX2 is false where stencil_amd64.s is not built: the Go loops run.
var haveAVX2 = false

func lineSumsAVX2(out, a, b, c, d *float64, n int) { panic("mg: no AVX2 kernels in this build") }

func residLineAVX2(r, v, u, u1, u2 *float64, n int, a0, a2, a3 float64) {
	panic("mg: no AVX2 kernels in this build")
}

func psinvLineAVX2(u, r, r1, r2 *float64, n int, c0, c1, c2 float64) {
	panic("mg: no AVX2 kernels in this build")
}
