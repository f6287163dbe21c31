package main

import (
	"testing"

	"github.com/gompi/gompi/npb-go/internal/npb"
)

func BenchmarkGaussianPairs(b *testing.B) {
	x := make([]float64, 2*nk)
	seed := s
	npb.VranlcI8(len(x), &seed, a, x)
	var sum Sums
	b.SetBytes(int64(len(x) * 8))
	for i := 0; i < b.N; i++ {
		gaussianPairs(x, &sum)
	}
}

func BenchmarkVranlcI8(b *testing.B) {
	x := make([]float64, 2*nk)
	seed := s
	b.SetBytes(int64(len(x) * 8))
	for i := 0; i < b.N; i++ {
		npb.VranlcI8(len(x), &seed, a, x)
	}
}
