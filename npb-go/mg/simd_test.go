package main

import (
	"io"
	"math"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// TestStencilsAVX2 runs MG's class S and W with and without the AVX2
// stencils, on 1 and 2 in-process ranks, and wants the final residual
// norm bit for bit the same: the AVX2 lines compute what the Go loops do,
// in their order.
func TestStencilsAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 kernels on this CPU or build")
	}
	defer func(v bool) { haveAVX2 = v }(haveAVX2)
	classes := []byte("SW")
	if testing.Short() {
		classes = classes[:1]
	}
	for _, class := range classes {
		for _, np := range []int{1, 2} {
			var norm [2]float64
			for k, avx := range []bool{false, true} {
				haveAVX2 = avx
				err := mpi.Run(np, func(c *mpi.Comm) error {
					r, err := Run(c, class, io.Discard, Options{})
					if err == nil && c.Rank() == 0 {
						norm[k] = r.L2Norm
					}
					return err
				})
				if err != nil {
					t.Fatalf("class %c, %d ranks, AVX2 %v: %v", class, np, avx, err)
				}
			}
			if math.Float64bits(norm[0]) != math.Float64bits(norm[1]) {
				t.Errorf("class %c, %d ranks: L2 norm %v in Go, %v with AVX2", class, np, norm[0], norm[1])
			}
		}
	}
}
