//go:build amd64 && !purego

#include "textflag.h"

// The flux loops of the right-hand side (flux.go), four points at a time
// over the first n points (n a multiple of 4); the callers finish the rest
// in Go. Each element's operations are the Go loop's, in its order, with
// no fused multiply-adds, so results are bit for bit the Go loop's; 2.0*x
// is x+x, which is exact.

// SECOND(u, um, up, i, c, t, d): d = c * ((up[i] - 2*u[i]) + um[i]), the
// second difference of every term of these loops (t is scratch).
#define SECOND(u, um, up, i, c, t, d) \
	VMOVUPD (u)(i*1), t; \
	VADDPD t, t, t; \
	VMOVUPD (up)(i*1), d; \
	VSUBPD t, d, d; \
	VADDPD (um)(i*1), d, d; \
	VMULPD c, d, d

// func fluxDensityAVX2(r, u, um, up, wm, wp *float64, n int, d0, t2 float64)
TEXT ·fluxDensityAVX2(SB), NOSPLIT, $0-72
	MOVQ r+0(FP), AX
	MOVQ u+8(FP), BX
	MOVQ um+16(FP), CX
	MOVQ up+24(FP), DX
	MOVQ wm+32(FP), SI
	MOVQ wp+40(FP), DI
	MOVQ n+48(FP), R8
	VBROADCASTSD d0+56(FP), Y14
	VBROADCASTSD t2+64(FP), Y15
	SHLQ $3, R8
	XORQ R9, R9
density:
	CMPQ R9, R8
	JGE densityDone
	SECOND(BX, CX, DX, R9, Y14, Y0, Y1)
	VADDPD (AX)(R9*1), Y1, Y1
	VMOVUPD (DI)(R9*1), Y2
	VSUBPD (SI)(R9*1), Y2, Y2
	VMULPD Y15, Y2, Y2
	VSUBPD Y2, Y1, Y1
	VMOVUPD Y1, (AX)(R9*1)
	ADDQ $32, R9
	JMP density
densityDone:
	VZEROUPPER
	RET

// func fluxMomentumAVX2(r, u, um, up, t, tm, tp, vm, vp *float64, n int, dm, cc, t2 float64)
TEXT ·fluxMomentumAVX2(SB), NOSPLIT, $0-104
	MOVQ r+0(FP), AX
	MOVQ u+8(FP), BX
	MOVQ um+16(FP), CX
	MOVQ up+24(FP), DX
	MOVQ t+32(FP), SI
	MOVQ tm+40(FP), DI
	MOVQ tp+48(FP), R8
	MOVQ vm+56(FP), R9
	MOVQ vp+64(FP), R10
	MOVQ n+72(FP), R11
	VBROADCASTSD dm+80(FP), Y13
	VBROADCASTSD cc+88(FP), Y14
	VBROADCASTSD t2+96(FP), Y15
	SHLQ $3, R11
	XORQ R12, R12
momentum:
	CMPQ R12, R11
	JGE momentumDone
	SECOND(BX, CX, DX, R12, Y13, Y0, Y1)
	VADDPD (AX)(R12*1), Y1, Y1
	SECOND(SI, DI, R8, R12, Y14, Y2, Y3)
	VADDPD Y3, Y1, Y1
	VMOVUPD (DX)(R12*1), Y4
	VMULPD (R10)(R12*1), Y4, Y4
	VMOVUPD (CX)(R12*1), Y5
	VMULPD (R9)(R12*1), Y5, Y5
	VSUBPD Y5, Y4, Y4
	VMULPD Y15, Y4, Y4
	VSUBPD Y4, Y1, Y1
	VMOVUPD Y1, (AX)(R12*1)
	ADDQ $32, R12
	JMP momentum
momentumDone:
	VZEROUPPER
	RET

// func fluxMomentumNormalAVX2(r, u, um, up, v, vm, vp, u5m, u5p, sqm, sqp *float64, n int, dm, cc, t2, c2 float64)
TEXT ·fluxMomentumNormalAVX2(SB), NOSPLIT, $0-128
	MOVQ r+0(FP), AX
	MOVQ u+8(FP), BX
	MOVQ um+16(FP), CX
	MOVQ up+24(FP), DX
	MOVQ v+32(FP), SI
	MOVQ vm+40(FP), DI
	MOVQ vp+48(FP), R8
	MOVQ u5m+56(FP), R9
	MOVQ u5p+64(FP), R10
	MOVQ sqm+72(FP), R11
	MOVQ sqp+80(FP), R12
	MOVQ n+88(FP), R13
	VBROADCASTSD dm+96(FP), Y12
	VBROADCASTSD cc+104(FP), Y13
	VBROADCASTSD t2+112(FP), Y14
	VBROADCASTSD c2+120(FP), Y15
	SHLQ $3, R13
	XORQ R14, R14
normal:
	CMPQ R14, R13
	JGE normalDone
	SECOND(BX, CX, DX, R14, Y12, Y0, Y1)
	VADDPD (AX)(R14*1), Y1, Y1
	SECOND(SI, DI, R8, R14, Y13, Y2, Y3)
	VADDPD Y3, Y1, Y1
	VMOVUPD (DX)(R14*1), Y4
	VMULPD (R8)(R14*1), Y4, Y4
	VMOVUPD (CX)(R14*1), Y5
	VMULPD (DI)(R14*1), Y5, Y5
	VSUBPD Y5, Y4, Y4
	VMOVUPD (R10)(R14*1), Y6
	VSUBPD (R12)(R14*1), Y6, Y6
	VSUBPD (R9)(R14*1), Y6, Y6
	VADDPD (R11)(R14*1), Y6, Y6
	VMULPD Y15, Y6, Y6
	VADDPD Y6, Y4, Y4
	VMULPD Y14, Y4, Y4
	VSUBPD Y4, Y1, Y1
	VMOVUPD Y1, (AX)(R14*1)
	ADDQ $32, R14
	JMP normal
normalDone:
	VZEROUPPER
	RET

// func fluxEnergyAAVX2(r, u5, u5m, u5p, q, qm, qp *float64, n int, d4, con3 float64)
TEXT ·fluxEnergyAAVX2(SB), NOSPLIT, $0-80
	MOVQ r+0(FP), AX
	MOVQ u5+8(FP), BX
	MOVQ u5m+16(FP), CX
	MOVQ u5p+24(FP), DX
	MOVQ q+32(FP), SI
	MOVQ qm+40(FP), DI
	MOVQ qp+48(FP), R8
	MOVQ n+56(FP), R9
	VBROADCASTSD d4+64(FP), Y14
	VBROADCASTSD con3+72(FP), Y15
	SHLQ $3, R9
	XORQ R10, R10
energyA:
	CMPQ R10, R9
	JGE energyADone
	SECOND(BX, CX, DX, R10, Y14, Y0, Y1)
	VADDPD (AX)(R10*1), Y1, Y1
	SECOND(SI, DI, R8, R10, Y15, Y2, Y3)
	VADDPD Y3, Y1, Y1
	VMOVUPD Y1, (AX)(R10*1)
	ADDQ $32, R10
	JMP energyA
energyADone:
	VZEROUPPER
	RET

// func fluxEnergyBAVX2(r, v, vm, vp, u5, u5m, u5p, ri, rim, rip, sqm, sqp *float64, n int, con4, con5, t2, c1, c2 float64)
TEXT ·fluxEnergyBAVX2(SB), NOSPLIT, $0-144
	MOVQ r+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ vm+16(FP), CX
	MOVQ vp+24(FP), DX
	MOVQ u5+32(FP), SI
	MOVQ u5m+40(FP), DI
	MOVQ u5p+48(FP), R8
	MOVQ ri+56(FP), R9
	MOVQ rim+64(FP), R10
	MOVQ rip+72(FP), R11
	MOVQ sqm+80(FP), R12
	MOVQ sqp+88(FP), R13
	MOVQ n+96(FP), R14
	VBROADCASTSD con4+104(FP), Y11
	VBROADCASTSD con5+112(FP), Y12
	VBROADCASTSD t2+120(FP), Y13
	VBROADCASTSD c1+128(FP), Y14
	VBROADCASTSD c2+136(FP), Y15
	SHLQ $3, R14
	XORQ R15, R15
energyB:
	CMPQ R15, R14
	JGE energyBDone
	VMOVUPD (DX)(R15*1), Y0
	VMOVUPD (BX)(R15*1), Y1
	VMOVUPD (CX)(R15*1), Y2
	VMULPD Y0, Y0, Y3
	VADDPD Y1, Y1, Y4
	VMULPD Y1, Y4, Y4
	VSUBPD Y4, Y3, Y3
	VMULPD Y2, Y2, Y5
	VADDPD Y5, Y3, Y3
	VMULPD Y11, Y3, Y3
	VADDPD (AX)(R15*1), Y3, Y3
	VMOVUPD (R8)(R15*1), Y4
	VMULPD (R11)(R15*1), Y4, Y4
	VMOVUPD (SI)(R15*1), Y5
	VADDPD Y5, Y5, Y5
	VMULPD (R9)(R15*1), Y5, Y5
	VSUBPD Y5, Y4, Y4
	VMOVUPD (DI)(R15*1), Y6
	VMULPD (R10)(R15*1), Y6, Y6
	VADDPD Y6, Y4, Y4
	VMULPD Y12, Y4, Y4
	VADDPD Y4, Y3, Y3
	VMULPD (R8)(R15*1), Y14, Y4
	VMULPD (R13)(R15*1), Y15, Y5
	VSUBPD Y5, Y4, Y4
	VMULPD Y0, Y4, Y4
	VMULPD (DI)(R15*1), Y14, Y6
	VMULPD (R12)(R15*1), Y15, Y7
	VSUBPD Y7, Y6, Y6
	VMULPD Y2, Y6, Y6
	VSUBPD Y6, Y4, Y4
	VMULPD Y13, Y4, Y4
	VSUBPD Y4, Y3, Y3
	VMOVUPD Y3, (AX)(R15*1)
	ADDQ $32, R15
	JMP energyB
energyBDone:
	VZEROUPPER
	RET
