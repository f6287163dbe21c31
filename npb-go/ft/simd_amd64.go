//go:build amd64 && !purego

package main

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 form of the FFT's butterflies
// (fft_amd64.s), the larger part of FT's time, which the reference's
// compiler vectorises and Go's does not. It computes each complex value
// as Go's complex arithmetic does (the product's parts as ac-bd and
// ad+bc, no fused multiply-adds), so results are bit for bit the Go
// code's (TestButterfliesAVX2). Build with -tags purego to leave it out.
var haveAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2

// butterflies16AVX2 is butterflies16Go on rows of 16 values ny1 apart:
// for each of lk rows, ya = xa + xb and yb = u1 * (xa - xb).
//
//go:noescape
func butterflies16AVX2(u1 complex128, lk, ny1 int, xa, xb, ya, yb *complex128)
