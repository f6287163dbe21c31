package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestButterfliesAVX2: the AVX2 butterflies give bit for bit the Go
// loop's rows, for row counts and strides as fftz2 passes them.
func TestButterfliesAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	val := func() complex128 {
		s := math.Pow(10, float64(rng.IntN(7)-3))
		return complex(rng.NormFloat64()*s, rng.NormFloat64()*s)
	}
	for _, lk := range []int{1, 2, 3, 8, 64} {
		for _, ny1 := range []int{16, 17, 18} {
			for rep := 0; rep < 50; rep++ {
				n := (lk-1)*ny1 + fftblockDefault
				xa, xb := make([]complex128, n), make([]complex128, n)
				for i := range xa {
					xa[i], xb[i] = val(), val()
				}
				u1 := val()
				ya1, yb1 := make([]complex128, n), make([]complex128, n)
				ya2, yb2 := make([]complex128, n), make([]complex128, n)
				butterflies16Go(u1, lk, ny1, xa, xb, ya1, yb1)
				butterflies16AVX2(u1, lk, ny1, &xa[0], &xb[0], &ya2[0], &yb2[0])
				for i := range ya1 {
					for _, p := range [][2]float64{{real(ya1[i]), real(ya2[i])}, {imag(ya1[i]), imag(ya2[i])}, {real(yb1[i]), real(yb2[i])}, {imag(yb1[i]), imag(yb2[i])}} {
						if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
							t.Fatalf("lk=%d ny1=%d: element %d: Go %v %v, AVX2 %v %v", lk, ny1, i, ya1[i], yb1[i], ya2[i], yb2[i])
						}
					}
				}
			}
		}
	}
}
