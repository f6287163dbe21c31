//go:build amd64 && !purego

package adi

import "golang.org/x/sys/cpu"

// haveAVX2 selects the AVX2 forms of BT's block kernels (bt_blocks_amd64.s),
// of the right-hand side's flux and dissipation loops (flux_amd64.s,
// sp_kernels_amd64.s) and of SP's left-hand sides and line solves across
// lines (sp_kernels_amd64.s): the reference's compiler vectorises these
// loops and Go's does not. They do each element's operations in the Go code's order,
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

// The SP kernels of sp_kernels_amd64.s: each is the Go loop of the
// function named without AVX2 (sp_kernels.go, rhs.go) over the first n
// points of the arrays in p, n a multiple of 4.

//go:noescape
func fwd3AVX2(p *[18]*float64, n int)

//go:noescape
func fwd1AVX2(p *[12]*float64, n int)

//go:noescape
func backAVX2(p *[5]*float64, n int)

//go:noescape
func lhsRhonAVX2(r, ri *float64, n int, c3c4, dA, con43, d5, c1c5, dmx, d1 float64)

//go:noescape
func lhsUAVX2(p *[10]*float64, n int, ndtt2, dtt1, c2dtt1, dtt2 float64)

//go:noescape
func lhsPMAVX2(p *[17]*float64, n int, dtt2 float64)

//go:noescape
func lhsDissInteriorAVX2(p *[5]*float64, n int, comz1, comz4, comz6 float64)

//go:noescape
func dissInteriorAVX2(p *[6]*float64, n int, dssp float64, comps, stride int, mask *[4]int64)

//go:noescape
func primitivesAVX2(p *[10]*float64, n int)

//go:noescape
func speedAVX2(p *[5]*float64, n int, c1c2 float64)

//go:noescape
func invrXYAVX2(p *[5]*float64, n int, bt float64)

//go:noescape
func invrZAVX2(p *[16]*float64, n int, bt, c2iv float64)

//go:noescape
func dtTxinvrAVX2(p *[12]*float64, n int, dt, c2, bt float64)

// The x lines' kernels of sp_lines_amd64.s: each runs its Go line
// kernel's recurrence on four lines stride bytes apart, one per lane
// (sp_lines.go).

//go:noescape
func fwd3Lines4AVX2(p *[8]*float64, stride, n int, st *[11][4]float64)

//go:noescape
func fwd1Lines4AVX2(p *[6]*float64, stride, n int, st *[7][4]float64)

//go:noescape
func backLines4AVX2(p *[3]*float64, stride, n int)

// fluxRowAVX2 does fluxRow's six loops over n points of a row
// (flux_row.go).
//
//go:noescape
func fluxRowAVX2(a *fluxRowArgs, n int)
