//go:build amd64 && !purego

#include "textflag.h"

// The 27-point stencils' line loops (stencil_avx2.go), four points at a
// time over n points (n a multiple of 4), each point's operations in the
// Go code's order without fused multiply-adds, so results are bit for bit
// the Go loops' (TestStencilsAVX2).

// func lineSumsAVX2(out, a, b, c, d *float64, n int)
// out[j] = ((a[j] + b[j]) + c[j]) + d[j]
TEXT ·lineSumsAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), AX
	MOVQ a+8(FP), BX
	MOVQ b+16(FP), CX
	MOVQ c+24(FP), DX
	MOVQ d+32(FP), SI
	MOVQ n+40(FP), DI
	SHLQ $3, DI
	XORQ R8, R8
sums:
	CMPQ R8, DI
	JGE sumsDone
	VMOVUPD (BX)(R8*1), Y0
	VADDPD (CX)(R8*1), Y0, Y0
	VADDPD (DX)(R8*1), Y0, Y0
	VADDPD (SI)(R8*1), Y0, Y0
	VMOVUPD Y0, (AX)(R8*1)
	ADDQ $32, R8
	JMP sums
sumsDone:
	VZEROUPPER
	RET

// func residLineAVX2(r, v, u, u1, u2 *float64, n int, a0, a2, a3 float64)
// r[i] = ((v[i] - a0*u[i]) - a2*((u2[i] + u1[i-1]) + u1[i+1])) - a3*(u2[i-1] + u2[i+1])
TEXT ·residLineAVX2(SB), NOSPLIT, $0-72
	MOVQ r+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ u+16(FP), CX
	MOVQ u1+24(FP), DX
	MOVQ u2+32(FP), SI
	MOVQ n+40(FP), DI
	VBROADCASTSD a0+48(FP), Y13
	VBROADCASTSD a2+56(FP), Y14
	VBROADCASTSD a3+64(FP), Y15
	SHLQ $3, DI
	XORQ R8, R8
resid:
	CMPQ R8, DI
	JGE residDone
	VMULPD (CX)(R8*1), Y13, Y0
	VMOVUPD (BX)(R8*1), Y1
	VSUBPD Y0, Y1, Y1
	VMOVUPD (SI)(R8*1), Y2
	VADDPD -8(DX)(R8*1), Y2, Y2
	VADDPD 8(DX)(R8*1), Y2, Y2
	VMULPD Y14, Y2, Y2
	VSUBPD Y2, Y1, Y1
	VMOVUPD -8(SI)(R8*1), Y3
	VADDPD 8(SI)(R8*1), Y3, Y3
	VMULPD Y15, Y3, Y3
	VSUBPD Y3, Y1, Y1
	VMOVUPD Y1, (AX)(R8*1)
	ADDQ $32, R8
	JMP resid
residDone:
	VZEROUPPER
	RET

// func psinvLineAVX2(u, r, r1, r2 *float64, n int, c0, c1, c2 float64)
// u[i] = ((u[i] + c0*r[i]) + c1*((r[i-1] + r[i+1]) + r1[i])) + c2*((r2[i] + r1[i-1]) + r1[i+1])
TEXT ·psinvLineAVX2(SB), NOSPLIT, $0-64
	MOVQ u+0(FP), AX
	MOVQ r+8(FP), BX
	MOVQ r1+16(FP), CX
	MOVQ r2+24(FP), DX
	MOVQ n+32(FP), DI
	VBROADCASTSD c0+40(FP), Y13
	VBROADCASTSD c1+48(FP), Y14
	VBROADCASTSD c2+56(FP), Y15
	SHLQ $3, DI
	XORQ R8, R8
psinv:
	CMPQ R8, DI
	JGE psinvDone
	VMULPD (BX)(R8*1), Y13, Y0
	VADDPD (AX)(R8*1), Y0, Y0
	VMOVUPD -8(BX)(R8*1), Y1
	VADDPD 8(BX)(R8*1), Y1, Y1
	VADDPD (CX)(R8*1), Y1, Y1
	VMULPD Y14, Y1, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD (DX)(R8*1), Y2
	VADDPD -8(CX)(R8*1), Y2, Y2
	VADDPD 8(CX)(R8*1), Y2, Y2
	VMULPD Y15, Y2, Y2
	VADDPD Y2, Y0, Y0
	VMOVUPD Y0, (AX)(R8*1)
	ADDQ $32, R8
	JMP psinv
psinvDone:
	VZEROUPPER
	RET
