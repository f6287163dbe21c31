//go:build amd64 && !purego

package main

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 forms of resid's and psinv's line loops
// (stencil_amd64.s, stencil_avx2.go), most of MG's time, which the
// reference's compiler vectorises and Go's does not. They do each
// point's operations in the Go loops' order without fused multiply-adds,
// so results are bit for bit the Go code's (TestStencilsAVX2). Build
// with -tags purego to leave them out.
var haveAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2

//go:noescape
func lineSumsAVX2(out, a, b, c, d *float64, n int)

//go:noescape
func residLineAVX2(r, v, u, u1, u2 *float64, n int, a0, a2, a3 float64)

//go:noescape
func psinvLineAVX2(u, r, r1, r2 *float64, n int, c0, c1, c2 float64)
