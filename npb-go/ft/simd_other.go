//go:build !amd64 || purego

package main

// haveAVX2 is false where fft_amd64.s is not built: the Go code runs.
var haveAVX2 = false

func butterflies16AVX2(u1 complex128, lk, ny1 int, xa, xb, ya, yb *complex128) {
	panic("ft: no AVX2 kernels in this build")
}
