//go:build amd64 && !purego

package adi

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 forms of BT's block kernels (bt_blocks_amd64.s)
// and of the right-hand side's flux loops (flux_amd64.s), most of BT's time
// and a fifth of SP's: the reference's compiler vectorises these loops and
// Go's does not. They do each element's operations in the Go code's order,
// without fused multiply-adds, so their results are bit for bit the Go
// code's (TestBlockKernelsAVX2, TestFluxKernelsAVX2), and a run's output
// does not depend on the CPU. Build with -tags purego to leave them out.
var haveAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2

// matmulSubAVX2 is matmulSubGo; c must not overlap a or b.
//
//go:noescape
func matmulSubAVX2(a, b, c *block)

// binvcrhsAVX2 is binvcrhsGo for c and r; it leaves other values than
// binvcrhsGo in lhs's columns at and left of the diagonal, which no
// caller reads (lhs is scratch once solved). lhs, c and r must not overlap.
//
//go:noescape
func binvcrhsAVX2(lhs, c *block, r *[5]float64)

// lhsBlocksAVX2 is lhsBlocksGo.
//
//go:noescape
func lhsBlocksAVX2(a, b, c, fm, nm, n0, fp, np *block, t1, t2 float64)

//go:noescape
func fluxDensityAVX2(r, u, um, up, wm, wp *float64, n int, d0, t2 float64)

//go:noescape
func fluxMomentumAVX2(r, u, um, up, t, tm, tp, vm, vp *float64, n int, dm, cc, t2 float64)

//go:noescape
func fluxMomentumNormalAVX2(r, u, um, up, v, vm, vp, u5m, u5p, sqm, sqp *float64, n int, dm, cc, t2, c2 float64)

//go:noescape
func fluxEnergyAAVX2(r, u5, u5m, u5p, q, qm, qp *float64, n int, d4, con3 float64)

//go:noescape
func fluxEnergyBAVX2(r, v, vm, vp, u5, u5m, u5p, ri, rim, rip, sqm, sqp *float64, n int, con4, con5, t2, c1, c2 float64)
