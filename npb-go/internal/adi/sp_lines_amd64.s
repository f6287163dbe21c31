//go:build amd64 && !purego

#include "textflag.h"
#include "sp_amd64.h"

// SP's x-line solves four lines at a time (sp_lines.go): along a line the
// elimination and the substitution are recurrences, so one line cannot
// be vectorised; four lines equally far apart are, one per lane, each
// lane doing the Go code's operations for its line in its order, without
// fused multiply-adds (bit for bit the Go code's results). The arrays
// come in a table of pointers (AX), each to line 0's point 0; SI is the
// distance between lines in bytes, DI three times it, BX the offset of
// point i in bytes.

// GATHER(k, off, y, x): y = array k's point at BX+off of the four lines
// (x is y's lower half; Y14 is scratch).
#define GATHER(k, off, y, x) \
	MOVQ (k*8)(AX), R8; \
	ADDQ BX, R8; \
	VMOVSD off(R8), x; \
	VMOVHPD off(R8)(SI*1), x, x; \
	VMOVSD off(R8)(SI*2), X14; \
	VMOVHPD off(R8)(DI*1), X14, X14; \
	VINSERTF128 $1, X14, y, y

// SCATTER(y, x, k, off): array k's point at BX+off of the four lines = y
// (x is y's lower half; Y14 is scratch).
#define SCATTER(y, x, k, off) \
	MOVQ (k*8)(AX), R8; \
	ADDQ BX, R8; \
	VMOVSD x, off(R8); \
	VMOVHPD x, off(R8)(SI*1); \
	VEXTRACTF128 $1, y, X14; \
	VMOVSD X14, off(R8)(SI*2); \
	VMOVHPD X14, off(R8)(DI*1)

// func fwd3Lines4AVX2(p *[8]*float64, stride, n int, st *[11][4]float64)
// p: L1 L2 L3 L4 L5 R1 R2 R3. Points 0 to n-3 of fwd3Line; st gets each
// lane's l3a l4a r1a r2a r3a l2b l3b l4b r1b r2b r3b for the last step.
TEXT ·fwd3Lines4AVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), AX
	MOVQ stride+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ (SI)(SI*2), DI
	SUBQ $2, CX
	SHLQ $3, CX
	XORQ BX, BX
	GATHER(2, 0, Y0, X0)   // l3a
	GATHER(3, 0, Y1, X1)   // l4a
	GATHER(5, 0, Y2, X2)   // r1a
	GATHER(6, 0, Y3, X3)   // r2a
	GATHER(7, 0, Y4, X4)   // r3a
	GATHER(1, 8, Y5, X5)   // l2b
	GATHER(2, 8, Y6, X6)   // l3b
	GATHER(3, 8, Y7, X7)   // l4b
	GATHER(5, 8, Y8, X8)   // r1b
	GATHER(6, 8, Y9, X9)   // r2b
	GATHER(7, 8, Y10, X10) // r3b
fwd3:
	CMPQ BX, CX
	JGE fwd3Done
	CONST(ONE, Y11, X11)
	VDIVPD Y0, Y11, Y11    // fac1
	VMULPD Y1, Y11, Y1     // l4a
	GATHER(4, 0, Y12, X12)
	VMULPD Y12, Y11, Y12   // l5a
	VMULPD Y2, Y11, Y2
	VMULPD Y3, Y11, Y3
	VMULPD Y4, Y11, Y4
	SCATTER(Y1, X1, 3, 0)
	SCATTER(Y12, X12, 4, 0)
	SCATTER(Y2, X2, 5, 0)
	SCATTER(Y3, X3, 6, 0)
	SCATTER(Y4, X4, 7, 0)
	VMULPD Y1, Y5, Y15
	VSUBPD Y15, Y6, Y6     // l3b
	VMULPD Y12, Y5, Y15
	VSUBPD Y15, Y7, Y7     // l4b
	VMULPD Y2, Y5, Y15
	VSUBPD Y15, Y8, Y8
	VMULPD Y3, Y5, Y15
	VSUBPD Y15, Y9, Y9
	VMULPD Y4, Y5, Y15
	VSUBPD Y15, Y10, Y10   // r3b
	GATHER(0, 16, Y13, X13) // c
	GATHER(1, 16, Y5, X5)
	VMULPD Y1, Y13, Y15
	VSUBPD Y15, Y5, Y5     // l2c: the next l2b
	GATHER(2, 16, Y11, X11)
	VMULPD Y12, Y13, Y15
	VSUBPD Y15, Y11, Y11   // l3c
	VMOVAPD Y6, Y0         // l3a = l3b
	VMOVAPD Y11, Y6        // l3b = l3c
	GATHER(5, 16, Y11, X11)
	VMULPD Y2, Y13, Y15
	VSUBPD Y15, Y11, Y11   // r1c
	VMOVAPD Y8, Y2
	VMOVAPD Y11, Y8
	GATHER(6, 16, Y11, X11)
	VMULPD Y3, Y13, Y15
	VSUBPD Y15, Y11, Y11   // r2c
	VMOVAPD Y9, Y3
	VMOVAPD Y11, Y9
	GATHER(7, 16, Y11, X11)
	VMULPD Y4, Y13, Y15
	VSUBPD Y15, Y11, Y11   // r3c
	VMOVAPD Y10, Y4
	VMOVAPD Y11, Y10
	VMOVAPD Y7, Y1         // l4a = l4b
	GATHER(3, 16, Y7, X7)  // l4b = L4[i+2]
	ADDQ $8, BX
	JMP fwd3
fwd3Done:
	MOVQ st+24(FP), R9
	VMOVUPD Y0, 0(R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y3, 96(R9)
	VMOVUPD Y4, 128(R9)
	VMOVUPD Y5, 160(R9)
	VMOVUPD Y6, 192(R9)
	VMOVUPD Y7, 224(R9)
	VMOVUPD Y8, 256(R9)
	VMOVUPD Y9, 288(R9)
	VMOVUPD Y10, 320(R9)
	VZEROUPPER
	RET

// func fwd1Lines4AVX2(p *[6]*float64, stride, n int, st *[7][4]float64)
// p: L1 L2 L3 L4 L5 R. Points 0 to n-3 of fwd1Line; st gets each lane's
// l3a l4a ra l2b l3b l4b rb for the last step.
TEXT ·fwd1Lines4AVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), AX
	MOVQ stride+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ (SI)(SI*2), DI
	SUBQ $2, CX
	SHLQ $3, CX
	XORQ BX, BX
	GATHER(2, 0, Y0, X0) // l3a
	GATHER(3, 0, Y1, X1) // l4a
	GATHER(5, 0, Y2, X2) // ra
	GATHER(1, 8, Y5, X5) // l2b
	GATHER(2, 8, Y6, X6) // l3b
	GATHER(3, 8, Y7, X7) // l4b
	GATHER(5, 8, Y8, X8) // rb
fwd1:
	CMPQ BX, CX
	JGE fwd1Done
	CONST(ONE, Y11, X11)
	VDIVPD Y0, Y11, Y11    // fac1
	VMULPD Y1, Y11, Y1     // l4a
	GATHER(4, 0, Y12, X12)
	VMULPD Y12, Y11, Y12   // l5a
	VMULPD Y2, Y11, Y2     // ra
	SCATTER(Y1, X1, 3, 0)
	SCATTER(Y12, X12, 4, 0)
	SCATTER(Y2, X2, 5, 0)
	VMULPD Y1, Y5, Y15
	VSUBPD Y15, Y6, Y6     // l3b
	VMULPD Y12, Y5, Y15
	VSUBPD Y15, Y7, Y7     // l4b
	VMULPD Y2, Y5, Y15
	VSUBPD Y15, Y8, Y8     // rb
	GATHER(0, 16, Y13, X13) // c
	GATHER(1, 16, Y5, X5)
	VMULPD Y1, Y13, Y15
	VSUBPD Y15, Y5, Y5     // l2c
	GATHER(2, 16, Y11, X11)
	VMULPD Y12, Y13, Y15
	VSUBPD Y15, Y11, Y11   // l3c
	VMOVAPD Y6, Y0
	VMOVAPD Y11, Y6
	GATHER(5, 16, Y11, X11)
	VMULPD Y2, Y13, Y15
	VSUBPD Y15, Y11, Y11   // rc
	VMOVAPD Y8, Y2
	VMOVAPD Y11, Y8
	VMOVAPD Y7, Y1
	GATHER(3, 16, Y7, X7)
	ADDQ $8, BX
	JMP fwd1
fwd1Done:
	MOVQ st+24(FP), R9
	VMOVUPD Y0, 0(R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VMOVUPD Y5, 96(R9)
	VMOVUPD Y6, 128(R9)
	VMOVUPD Y7, 160(R9)
	VMOVUPD Y8, 192(R9)
	VZEROUPPER
	RET

// func backLines4AVX2(p *[3]*float64, stride, n int)
// p: L4 L5 R. backLine: points n-3 down to 0.
TEXT ·backLines4AVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ stride+8(FP), SI
	MOVQ n+16(FP), BX
	LEAQ (SI)(SI*2), DI
	SUBQ $3, BX
	SHLQ $3, BX
	GATHER(2, 8, Y0, X0)  // x1 = R[n-2]
	GATHER(2, 16, Y1, X1) // x2 = R[n-1]
back:
	CMPQ BX, $0
	JL backDone
	GATHER(0, 0, Y2, X2)
	VMULPD Y0, Y2, Y2     // L4*x1
	GATHER(2, 0, Y3, X3)
	VSUBPD Y2, Y3, Y3
	GATHER(1, 0, Y4, X4)
	VMULPD Y1, Y4, Y4     // L5*x2
	VSUBPD Y4, Y3, Y3     // v
	SCATTER(Y3, X3, 2, 0)
	VMOVAPD Y0, Y1
	VMOVAPD Y3, Y0
	SUBQ $8, BX
	JMP back
backDone:
	VZEROUPPER
	RET
