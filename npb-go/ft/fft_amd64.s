//go:build amd64 && !purego

#include "textflag.h"

// BFLY(off): two complex values at byte off of the current rows:
// c = a + b; d = u1 * (a - b), the product's real parts ur*dr - ui*di and
// imaginary parts ur*di + ui*dr (VADDSUBPD: subtract in even lanes, add in
// odd ones), as Go computes a complex product.
#define BFLY(off) \
	VMOVUPD off(SI), Y0; \
	VMOVUPD off(DI), Y1; \
	VADDPD Y1, Y0, Y2; \
	VMOVUPD Y2, off(R8); \
	VSUBPD Y1, Y0, Y3; \
	VMULPD Y14, Y3, Y4; \
	VPERMILPD $5, Y3, Y5; \
	VMULPD Y15, Y5, Y5; \
	VADDSUBPD Y5, Y4, Y6; \
	VMOVUPD Y6, off(R9)

// func butterflies16AVX2(u1 complex128, lk, ny1 int, xa, xb, ya, yb *complex128)
TEXT ·butterflies16AVX2(SB), NOSPLIT, $0-64
	VBROADCASTSD u1_real+0(FP), Y14
	VBROADCASTSD u1_imag+8(FP), Y15
	MOVQ lk+16(FP), CX
	MOVQ ny1+24(FP), DX
	SHLQ $4, DX // bytes between rows
	MOVQ xa+32(FP), SI
	MOVQ xb+40(FP), DI
	MOVQ ya+48(FP), R8
	MOVQ yb+56(FP), R9
row:
	TESTQ CX, CX
	JZ done
	BFLY(0)
	BFLY(32)
	BFLY(64)
	BFLY(96)
	BFLY(128)
	BFLY(160)
	BFLY(192)
	BFLY(224)
	ADDQ DX, SI
	ADDQ DX, DI
	ADDQ DX, R8
	ADDQ DX, R9
	DECQ CX
	JMP row
done:
	VZEROUPPER
	RET
