package adi

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBlockKernelsAVX2: the AVX2 kernels give bit for bit the Go kernels'
// c and r, on random blocks and on BT-like ones (a dominant diagonal).
func TestBlockKernelsAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(b []float64, diag float64) {
		for i := range b {
			b[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		}
		for m := 0; m*5+m < len(b) && len(b) == 25; m++ {
			b[5*m+m] += diag * (1 + rng.Float64())
		}
	}
	same := func(what string, i int, got, want []float64) {
		t.Helper()
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("case %d: %s[%d] = %v (AVX2), want %v (Go)", i, what, j, got[j], want[j])
			}
		}
	}
	for i := 0; i < 20000; i++ {
		diag := []float64{0, 10, 1000}[i%3]
		var a, b, c, lhs block
		var r [5]float64
		fill(a[:], 0)
		fill(b[:], 0)
		fill(c[:], 0)
		fill(lhs[:], diag)
		fill(r[:], 0)

		c1, c2 := c, c
		matmulSubGo(&a, &b, &c1)
		matmulSubAVX2(&a, &b, &c2)
		same("matmulSub c", i, c2[:], c1[:])

		var fm, nm, n0, fp, np block
		for _, x := range []*block{&fm, &nm, &n0, &fp, &np} {
			fill(x[:], 0)
		}
		t1, t2 := rng.Float64(), rng.NormFloat64()
		var a1, b1, cc1, a2, b2, cc2 block
		lhsBlocksGo(&a1, &b1, &cc1, &fm, &nm, &n0, &fp, &np, t1, t2)
		lhsBlocksAVX2(&a2, &b2, &cc2, &fm, &nm, &n0, &fp, &np, t1, t2)
		same("lhsBlocks a", i, a2[:], a1[:])
		same("lhsBlocks b", i, b2[:], b1[:])
		same("lhsBlocks c", i, cc2[:], cc1[:])

		l1, l2, r1, r2 := lhs, lhs, r, r
		c1, c2 = c, c
		binvcrhsGo(&l1, &c1, &r1)
		binvcrhsAVX2(&l2, &c2, &r2)
		same("binvcrhs c", i, c2[:], c1[:])
		same("binvcrhs r", i, r2[:], r1[:])
	}
}

// BenchmarkBlockKernels times the 5x5 kernels in Go and, where the CPU has
// it, AVX2.
func BenchmarkBlockKernels(b *testing.B) {
	var a, bb, c, lhs block
	var r [5]float64
	for i := range a {
		a[i], bb[i], c[i], lhs[i] = 1e-3*float64(i), 2e-3*float64(i), 1, 1e-3*float64(i%7)
	}
	for m := 0; m < 5; m++ {
		lhs[5*m+m] = 4
	}
	kernels := []struct {
		name string
		run  func()
	}{
		{"matmulSub/Go", func() { matmulSubGo(&a, &bb, &c) }},
		{"binvcrhs/Go", func() { l, cc, rr := lhs, c, r; binvcrhsGo(&l, &cc, &rr) }},
	}
	if haveAVX2 {
		kernels = append(kernels,
			struct {
				name string
				run  func()
			}{"matmulSub/AVX2", func() { matmulSubAVX2(&a, &bb, &c) }},
			struct {
				name string
				run  func()
			}{"binvcrhs/AVX2", func() { l, cc, rr := lhs, c, r; binvcrhsAVX2(&l, &cc, &rr) }})
	}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.run()
			}
		})
	}
}
