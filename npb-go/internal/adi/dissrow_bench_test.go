package adi

import (
	"fmt"
	"testing"
)

// BenchmarkDissRow times the rhs's interior dissipation (dissRow's stencil
// 3) over a cell of SP class A at 4 ranks (37 points a side with the
// ghosts; the five components in one call a row, as the rhs makes it),
// along each axis, in Go and with AVX2, in ns a point. The AVX2 form
// should be the faster on any AVX2 processor; when it is not, look for an
// instruction without VEX encoding in the kernels (see
// TestAVX2KernelsVEXOnly).
// Example: go test -run NONE -bench DissRow ./npb-go/internal/adi
func BenchmarkDissRow(b *testing.B) {
	const nx = 37
	cv := nx * nx * nx
	u := make([]float64, 5*cv)
	rhs := make([]float64, 5*cv)
	for i := range u {
		u[i] = 1 + float64(i%13)/64
	}
	have := haveAVX2
	defer func() { haveAVX2 = have }()
	for d, sd := range []int{1, nx, nx * nx} {
		for _, avx := range []bool{false, true} {
			if avx && !have {
				continue
			}
			form := "go"
			if avx {
				form = "avx2"
			}
			b.Run(fmt.Sprintf("axis%d/%s", d, form), func(b *testing.B) {
				haveAVX2 = avx
				points := 0
				for it := 0; it < b.N; it++ {
					for k := 2; k < nx-2; k++ {
						for j := 2; j < nx-2; j++ {
							dissRow(3, 0.01, rhs, u, k*nx*nx+j*nx+2, nx-4, sd, 5, cv)
							points += 5 * (nx - 4)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(points), "ns/point")
			})
		}
	}
}
