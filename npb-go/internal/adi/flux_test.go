package adi

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFluxKernelsAVX2: each flux loop gives bit for bit the same r with
// its AVX2 form as in Go, at every length (the AVX2 form does the leading
// multiple of 4 and Go the rest).
func TestFluxKernelsAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	arr := func(n int) []float64 {
		a := make([]float64, n)
		for i := range a {
			a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-2))
		}
		return a
	}
	k := func() float64 { return rng.NormFloat64() }
	kernels := []struct {
		name string
		run  func(r []float64, in [][]float64, c []float64)
		ins  int
	}{
		{"density", func(r []float64, in [][]float64, c []float64) {
			fluxDensity(r, in[0], in[1], in[2], in[3], in[4], c[0], c[1])
		}, 5},
		{"momentum", func(r []float64, in [][]float64, c []float64) {
			fluxMomentum(r, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], c[0], c[1], c[2])
		}, 8},
		{"momentumNormal", func(r []float64, in [][]float64, c []float64) {
			fluxMomentumNormal(r, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], c[0], c[1], c[2], c[3])
		}, 10},
		{"energyA", func(r []float64, in [][]float64, c []float64) {
			fluxEnergyA(r, in[0], in[1], in[2], in[3], in[4], in[5], c[0], c[1])
		}, 6},
		{"energyB", func(r []float64, in [][]float64, c []float64) {
			fluxEnergyB(r, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], c[0], c[1], c[2], c[3], c[4])
		}, 11},
	}
	defer func(v bool) { haveAVX2 = v }(haveAVX2)
	for _, kn := range kernels {
		for n := 0; n <= 70; n++ {
			for rep := 0; rep < 20; rep++ {
				r := arr(n)
				in := make([][]float64, kn.ins)
				for j := range in {
					in[j] = arr(n + rng.IntN(3)) // longer inputs are cut to r's length
				}
				c := []float64{k(), k(), k(), k(), k()}
				want, got := append([]float64(nil), r...), append([]float64(nil), r...)
				haveAVX2 = false
				kn.run(want, in, c)
				haveAVX2 = true
				kn.run(got, in, c)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s, n=%d: r[%d] = %v with AVX2, %v in Go", kn.name, n, i, got[i], want[i])
					}
				}
			}
		}
	}
}
