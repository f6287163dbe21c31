//go:build amd64 && !purego

#include "textflag.h"

// A block is 25 float64s, row-major: row m is bytes 40m to 40m+39. Each
// row is one YMM register of columns 0-3 (unaligned loads) and a scalar
// for column 4. Every element gets its products subtracted one at a time
// in the Go kernels' order: VMULPD then VSUBPD, never a fused
// multiply-add, so each result rounds as the Go code's does.

// MMROW(m): row m of c -= sum over k of a[m][k] * row k of b, with b's
// rows in Y0-Y4 (columns 0-3) and X5-X9 (column 4).
#define MMROW(m) \
	VMOVUPD (40*m)(CX), Y10; \
	VMOVSD (40*m+32)(CX), X12; \
	VBROADCASTSD (40*m)(AX), Y11; \
	VMULPD Y0, Y11, Y13; \
	VSUBPD Y13, Y10, Y10; \
	VMULSD X5, X11, X13; \
	VSUBSD X13, X12, X12; \
	VBROADCASTSD (40*m+8)(AX), Y11; \
	VMULPD Y1, Y11, Y13; \
	VSUBPD Y13, Y10, Y10; \
	VMULSD X6, X11, X13; \
	VSUBSD X13, X12, X12; \
	VBROADCASTSD (40*m+16)(AX), Y11; \
	VMULPD Y2, Y11, Y13; \
	VSUBPD Y13, Y10, Y10; \
	VMULSD X7, X11, X13; \
	VSUBSD X13, X12, X12; \
	VBROADCASTSD (40*m+24)(AX), Y11; \
	VMULPD Y3, Y11, Y13; \
	VSUBPD Y13, Y10, Y10; \
	VMULSD X8, X11, X13; \
	VSUBSD X13, X12, X12; \
	VBROADCASTSD (40*m+32)(AX), Y11; \
	VMULPD Y4, Y11, Y13; \
	VSUBPD Y13, Y10, Y10; \
	VMULSD X9, X11, X13; \
	VSUBSD X13, X12, X12; \
	VMOVUPD Y10, (40*m)(CX); \
	VMOVSD X12, (40*m+32)(CX)

// func matmulSubAVX2(a, b, c *block)
TEXT ·matmulSubAVX2(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	VMOVUPD 0(BX), Y0
	VMOVUPD 40(BX), Y1
	VMOVUPD 80(BX), Y2
	VMOVUPD 120(BX), Y3
	VMOVUPD 160(BX), Y4
	VMOVSD 32(BX), X5
	VMOVSD 72(BX), X6
	VMOVSD 112(BX), X7
	VMOVSD 152(BX), X8
	VMOVSD 192(BX), X9
	MMROW(0)
	MMROW(1)
	MMROW(2)
	MMROW(3)
	MMROW(4)
	VZEROUPPER
	RET

// PIVOT(p): X14 = pivot = 1/lhs[p][p] (X15 holds 1.0); scales row p of
// lhs into Y10 and X11, row p of c into Y12 and X13 and r[p] into X9, and
// stores them.
#define PIVOT(p) \
	VDIVSD (48*p)(AX), X15, X14; \
	VBROADCASTSD X14, Y14; \
	VMULPD (40*p)(AX), Y14, Y10; \
	VMOVUPD Y10, (40*p)(AX); \
	VMULSD (40*p+32)(AX), X14, X11; \
	VMOVSD X11, (40*p+32)(AX); \
	PIVOTC(p)

// PIVOTC(p): PIVOT for c and r only (the last column: lhs is done).
#define PIVOTC(p) \
	VMULPD (40*p)(BX), Y14, Y12; \
	VMOVUPD Y12, (40*p)(BX); \
	VMULSD (40*p+32)(BX), X14, X13; \
	VMOVSD X13, (40*p+32)(BX); \
	VMULSD (8*p)(CX), X14, X9; \
	VMOVSD X9, (8*p)(CX)

// ELIM(m, p): coeff = lhs[m][p]; row m of lhs -= coeff * pivot row, then
// ELIMC. Columns up to p of row m are not read again.
#define ELIM(m, p) \
	VBROADCASTSD (40*m+8*p)(AX), Y8; \
	VMULPD Y10, Y8, Y7; \
	VMOVUPD (40*m)(AX), Y6; \
	VSUBPD Y7, Y6, Y6; \
	VMOVUPD Y6, (40*m)(AX); \
	VMULSD X11, X8, X7; \
	VMOVSD (40*m+32)(AX), X6; \
	VSUBSD X7, X6, X6; \
	VMOVSD X6, (40*m+32)(AX); \
	ELIMC(m)

// ELIMC(m): row m of c and r[m] -= coeff (Y8) * the pivot rows.
#define ELIMC(m) \
	VMULPD Y12, Y8, Y5; \
	VMOVUPD (40*m)(BX), Y4; \
	VSUBPD Y5, Y4, Y4; \
	VMOVUPD Y4, (40*m)(BX); \
	VMULSD X13, X8, X5; \
	VMOVSD (40*m+32)(BX), X4; \
	VSUBSD X5, X4, X4; \
	VMOVSD X4, (40*m+32)(BX); \
	VMULSD X9, X8, X3; \
	VMOVSD (8*m)(CX), X2; \
	VSUBSD X3, X2, X2; \
	VMOVSD X2, (8*m)(CX)

// ELIMLAST(m): ELIM for the last pivot, coeff = lhs[m][4]: c and r only.
#define ELIMLAST(m) \
	VBROADCASTSD (40*m+32)(AX), Y8; \
	ELIMC(m)

// func binvcrhsAVX2(lhs, c *block, r *[5]float64)
TEXT ·binvcrhsAVX2(SB), NOSPLIT, $0-24
	MOVQ lhs+0(FP), AX
	MOVQ c+8(FP), BX
	MOVQ r+16(FP), CX
	MOVQ $0x3ff0000000000000, DX
	VMOVQ DX, X15
	PIVOT(0)
	ELIM(1, 0)
	ELIM(2, 0)
	ELIM(3, 0)
	ELIM(4, 0)
	PIVOT(1)
	ELIM(2, 1)
	ELIM(0, 1)
	ELIM(3, 1)
	ELIM(4, 1)
	PIVOT(2)
	ELIM(3, 2)
	ELIM(0, 2)
	ELIM(1, 2)
	ELIM(4, 2)
	PIVOT(3)
	ELIM(4, 3)
	ELIM(0, 3)
	ELIM(1, 3)
	ELIM(2, 3)
	VDIVSD 192(AX), X15, X14
	VBROADCASTSD X14, Y14
	PIVOTC(4)
	ELIMLAST(0)
	ELIMLAST(1)
	ELIMLAST(2)
	ELIMLAST(3)
	VZEROUPPER
	RET

// ABC(off): 4 elements at byte off of A, B and C (see lhsBlocksAVX2).
#define ABC(off) \
	VMULPD off(SI), Y12, Y0; \
	VMULPD off(DI), Y14, Y1; \
	VSUBPD Y1, Y0, Y0; \
	VMOVUPD Y0, off(AX); \
	VMULPD off(R8), Y13, Y2; \
	VMOVUPD Y2, off(BX); \
	VMULPD off(R9), Y15, Y3; \
	VMULPD off(R10), Y14, Y4; \
	VSUBPD Y4, Y3, Y3; \
	VMOVUPD Y3, off(CX)

// func lhsBlocksAVX2(a, b, c, fm, nm, n0, fp, np *block, t1, t2 float64)
TEXT ·lhsBlocksAVX2(SB), NOSPLIT, $0-80
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MOVQ fm+24(FP), SI
	MOVQ nm+32(FP), DI
	MOVQ n0+40(FP), R8
	MOVQ fp+48(FP), R9
	MOVQ np+56(FP), R10
	VBROADCASTSD t1+64(FP), Y14
	VBROADCASTSD t2+72(FP), Y15
	VADDPD Y14, Y14, Y13 // t1*2.0, exactly
	MOVQ $0x8000000000000000, DX
	VMOVQ DX, X12
	VBROADCASTSD X12, Y12
	VXORPD Y15, Y12, Y12 // -t2
	ABC(0)
	ABC(32)
	ABC(64)
	ABC(96)
	ABC(128)
	ABC(160)
	VMULSD 192(SI), X12, X0
	VMULSD 192(DI), X14, X1
	VSUBSD X1, X0, X0
	VMOVSD X0, 192(AX)
	VMULSD 192(R8), X13, X2
	VMOVSD X2, 192(BX)
	VMULSD 192(R9), X15, X3
	VMULSD 192(R10), X14, X4
	VSUBSD X4, X3, X3
	VMOVSD X3, 192(CX)
	VZEROUPPER
	RET
