//go:build amd64 && !purego

#include "textflag.h"
#include "sp_amd64.h"

// SP's left-hand sides and line solves across lines (sp_kernels.go) and
// the rhs's interior dissipation (rhs.go), four points at a time over the
// first n points (n a multiple of 4); the callers finish the rest in Go.
// The arrays come in a table of pointers (p), each to the array's point 0
// of the loop. Each element's operations are the Go loop's, in its order,
// with no fused multiply-adds, so results are bit for bit the Go loop's.

// ELIM(k, m, v): the table's array k -= m * v (Y13 and Y14 are scratch).
#define ELIM(k, m, v) \
	VMULPD v, m, Y14; \
	LD(k, Y13); \
	VSUBPD Y14, Y13, Y13; \
	ST(Y13, k)

// func fwd3AVX2(p *[18]*float64, n int)
// p: L3a L4a L5a R1a R2a R3a L2b L3b L4b R1b R2b R3b L1c L2c L3c R1c R2c R3c
TEXT ·fwd3AVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
	CONST(ONE, Y15, X15)
fwd3:
	CMPQ BX, CX
	JGE fwd3Done
	LD(0, Y0)
	VDIVPD Y0, Y15, Y0 // fac1 = 1.0 / L3a
	LD(1, Y1)
	VMULPD Y1, Y0, Y1  // l4a
	ST(Y1, 1)
	LD(2, Y2)
	VMULPD Y2, Y0, Y2  // l5a
	ST(Y2, 2)
	LD(3, Y3)
	VMULPD Y3, Y0, Y3  // r1a
	ST(Y3, 3)
	LD(4, Y4)
	VMULPD Y4, Y0, Y4  // r2a
	ST(Y4, 4)
	LD(5, Y5)
	VMULPD Y5, Y0, Y5  // r3a
	ST(Y5, 5)
	LD(6, Y6)          // b
	ELIM(7, Y6, Y1)
	ELIM(8, Y6, Y2)
	ELIM(9, Y6, Y3)
	ELIM(10, Y6, Y4)
	ELIM(11, Y6, Y5)
	LD(12, Y7)         // c
	ELIM(13, Y7, Y1)
	ELIM(14, Y7, Y2)
	ELIM(15, Y7, Y3)
	ELIM(16, Y7, Y4)
	ELIM(17, Y7, Y5)
	ADDQ $32, BX
	JMP fwd3
fwd3Done:
	VZEROUPPER
	RET

// func fwd1AVX2(p *[12]*float64, n int)
// p: L3a L4a L5a Ra L2b L3b L4b Rb L1c L2c L3c Rc
TEXT ·fwd1AVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
	CONST(ONE, Y15, X15)
fwd1:
	CMPQ BX, CX
	JGE fwd1Done
	LD(0, Y0)
	VDIVPD Y0, Y15, Y0 // fac1
	LD(1, Y1)
	VMULPD Y1, Y0, Y1  // l4a
	ST(Y1, 1)
	LD(2, Y2)
	VMULPD Y2, Y0, Y2  // l5a
	ST(Y2, 2)
	LD(3, Y3)
	VMULPD Y3, Y0, Y3  // ra
	ST(Y3, 3)
	LD(4, Y6)          // b
	ELIM(5, Y6, Y1)
	ELIM(6, Y6, Y2)
	ELIM(7, Y6, Y3)
	LD(8, Y7)          // c
	ELIM(9, Y7, Y1)
	ELIM(10, Y7, Y2)
	ELIM(11, Y7, Y3)
	ADDQ $32, BX
	JMP fwd1
fwd1Done:
	VZEROUPPER
	RET

// func backAVX2(p *[5]*float64, n int)
// p: Ra L4 L5 Rb Rc; Ra = Ra - L4*Rb - L5*Rc
TEXT ·backAVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	SHLQ $3, CX
	XORQ BX, BX
back:
	CMPQ BX, CX
	JGE backDone
	LD(0, Y0)
	LD(1, Y1)
	LD(3, Y3)
	VMULPD Y3, Y1, Y1
	VSUBPD Y1, Y0, Y0
	LD(2, Y2)
	LD(4, Y4)
	VMULPD Y4, Y2, Y2
	VSUBPD Y2, Y0, Y0
	ST(Y0, 0)
	ADDQ $32, BX
	JMP back
backDone:
	VZEROUPPER
	RET

// func lhsRhonAVX2(r, ri *float64, n int, c3c4, dA, con43, d5, c1c5, dmx, d1 float64)
// ru1 = c3c4*ri; r = max(max(dA+con43*ru1, d5+c1c5*ru1), max(dmx+ru1, d1)),
// max(a, b) being a when a > b, else b, as VMAXPD's.
TEXT ·lhsRhonAVX2(SB), NOSPLIT, $0-80
	MOVQ r+0(FP), DI
	MOVQ ri+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD c3c4+24(FP), Y8
	VBROADCASTSD dA+32(FP), Y9
	VBROADCASTSD con43+40(FP), Y10
	VBROADCASTSD d5+48(FP), Y11
	VBROADCASTSD c1c5+56(FP), Y12
	VBROADCASTSD dmx+64(FP), Y13
	VBROADCASTSD d1+72(FP), Y14
	SHLQ $3, CX
	XORQ BX, BX
rhon:
	CMPQ BX, CX
	JGE rhonDone
	VMOVUPD (SI)(BX*1), Y0
	VMULPD Y0, Y8, Y0   // ru1
	VMULPD Y0, Y10, Y1
	VADDPD Y1, Y9, Y1   // dA + con43*ru1
	VMULPD Y0, Y12, Y2
	VADDPD Y2, Y11, Y2  // d5 + c1c5*ru1
	VMAXPD Y2, Y1, Y1
	VADDPD Y0, Y13, Y3  // dmx + ru1
	VMAXPD Y14, Y3, Y3
	VMAXPD Y3, Y1, Y1
	VMOVUPD Y1, (DI)(BX*1)
	ADDQ $32, BX
	JMP rhon
rhonDone:
	VZEROUPPER
	RET

// func lhsUAVX2(p *[10]*float64, n int, ndtt2, dtt1, c2dtt1, dtt2 float64)
// p: L1 L2 L3 L4 L5 Vm Vp Rm R Rp
TEXT ·lhsUAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD ndtt2+16(FP), Y8
	VBROADCASTSD dtt1+24(FP), Y9
	VBROADCASTSD c2dtt1+32(FP), Y10
	VBROADCASTSD dtt2+40(FP), Y11
	CONST(ONE, Y15, X15)
	VXORPD Y12, Y12, Y12
	SHLQ $3, CX
	XORQ BX, BX
lhsU:
	CMPQ BX, CX
	JGE lhsUDone
	ST(Y12, 0)
	LD(5, Y0)
	VMULPD Y0, Y8, Y0   // -dtt2*Vm
	LD(7, Y1)
	VMULPD Y1, Y9, Y1   // dtt1*Rm
	VSUBPD Y1, Y0, Y0
	ST(Y0, 1)
	LD(8, Y2)
	VMULPD Y2, Y10, Y2
	VADDPD Y2, Y15, Y2  // 1.0 + c2dtt1*R
	ST(Y2, 2)
	LD(6, Y3)
	VMULPD Y3, Y11, Y3  // dtt2*Vp
	LD(9, Y4)
	VMULPD Y4, Y9, Y4   // dtt1*Rp
	VSUBPD Y4, Y3, Y3
	ST(Y3, 3)
	ST(Y12, 4)
	ADDQ $32, BX
	JMP lhsU
lhsUDone:
	VZEROUPPER
	RET

// func lhsPMAVX2(p *[17]*float64, n int, dtt2 float64)
// p: L1 ... L15 Sm Sp; the u+c (L6-L10) and u-c (L11-L15) factors.
TEXT ·lhsPMAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD dtt2+16(FP), Y15
	SHLQ $3, CX
	XORQ BX, BX
lhsPM:
	CMPQ BX, CX
	JGE lhsPMDone
	LD(0, Y0)
	LD(1, Y1)
	LD(2, Y2)
	LD(3, Y3)
	LD(4, Y4)
	LD(15, Y5)
	VMULPD Y5, Y15, Y5  // dtt2*Sm
	LD(16, Y6)
	VMULPD Y6, Y15, Y6  // dtt2*Sp
	ST(Y0, 5)
	VSUBPD Y5, Y1, Y7
	ST(Y7, 6)
	ST(Y2, 7)
	VADDPD Y6, Y3, Y7
	ST(Y7, 8)
	ST(Y4, 9)
	ST(Y0, 10)
	VADDPD Y5, Y1, Y7
	ST(Y7, 11)
	ST(Y2, 12)
	VSUBPD Y6, Y3, Y7
	ST(Y7, 13)
	ST(Y4, 14)
	ADDQ $32, BX
	JMP lhsPM
lhsPMDone:
	VZEROUPPER
	RET

// func lhsDissInteriorAVX2(p *[5]*float64, n int, comz1, comz4, comz6 float64)
// p: L1 ... L5
TEXT ·lhsDissInteriorAVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD comz1+16(FP), Y10
	VBROADCASTSD comz4+24(FP), Y11
	VBROADCASTSD comz6+32(FP), Y12
	SHLQ $3, CX
	XORQ BX, BX
lhsDiss:
	CMPQ BX, CX
	JGE lhsDissDone
	LD(0, Y0)
	VADDPD Y10, Y0, Y0
	ST(Y0, 0)
	LD(1, Y1)
	VSUBPD Y11, Y1, Y1
	ST(Y1, 1)
	LD(2, Y2)
	VADDPD Y12, Y2, Y2
	ST(Y2, 2)
	LD(3, Y3)
	VSUBPD Y11, Y3, Y3
	ST(Y3, 3)
	LD(4, Y4)
	VADDPD Y10, Y4, Y4
	ST(Y4, 4)
	ADDQ $32, BX
	JMP lhsDiss
lhsDissDone:
	VZEROUPPER
	RET

// DISSGROUP: Y5 = R - dssp*(Umm - 4*Um + 6*U - 4*Up + Upp) at the group
// at BX (dissInteriorAVX2's registers).
#define DISSGROUP \
	VMOVUPD (R9)(BX*1), Y0; \
	VMOVUPD (R10)(BX*1), Y1; \
	VMULPD Y14, Y1, Y1; \
	VSUBPD Y1, Y0, Y0; \
	VMOVUPD (R11)(BX*1), Y2; \
	VMULPD Y13, Y2, Y2; \
	VADDPD Y2, Y0, Y0; \
	VMOVUPD (R12)(BX*1), Y3; \
	VMULPD Y14, Y3, Y3; \
	VSUBPD Y3, Y0, Y0; \
	VMOVUPD (R13)(BX*1), Y4; \
	VADDPD Y4, Y0, Y0; \
	VMULPD Y0, Y15, Y0; \
	VMOVUPD (R8)(BX*1), Y5; \
	VSUBPD Y0, Y5, Y5

// func dissInteriorAVX2(p *[6]*float64, n int, dssp float64, comps, stride int, mask *[4]int64)
// p: R Umm Um U Up Upp; R -= dssp * (Umm - 4*Um + 6*U - 4*Up + Upp) on
// the n points from each pointer on, for comps components stride bytes
// apart in every array (the rhs's five, in one call): four points at a
// time, and the last n%4 by the same code with a masked store (mask's
// lanes), reading the arrays to the end of that group of four. The
// pointers live in R8-R13 and move by stride; the table is only read.
TEXT ·dissInteriorAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD dssp+16(FP), Y15
	MOVQ comps+24(FP), SI
	MOVQ stride+32(FP), DI
	MOVQ mask+40(FP), DX
	VMOVDQU (DX), Y12
	CONST(FOUR, Y14, X14)
	CONST(SIX, Y13, X13)
	MOVQ CX, R14
	ANDQ $3, R14
	SUBQ R14, CX
	SHLQ $3, CX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ 32(AX), R12
	MOVQ 40(AX), R13
dissComp:
	TESTQ SI, SI
	JLE dissDone
	XORQ BX, BX
diss:
	CMPQ BX, CX
	JGE dissTail
	DISSGROUP
	VMOVUPD Y5, (R8)(BX*1)
	ADDQ $32, BX
	JMP diss
dissTail:
	TESTQ R14, R14
	JEQ dissNext
	DISSGROUP
	VMASKMOVPD Y5, Y12, (R8)(BX*1)
dissNext:
	ADDQ DI, R8
	ADDQ DI, R9
	ADDQ DI, R10
	ADDQ DI, R11
	ADDQ DI, R12
	ADDQ DI, R13
	DECQ SI
	JMP dissComp
dissDone:
	VZEROUPPER
	RET

// func invrXYAVX2(p *[5]*float64, n int, bt float64)
// p: a b c r4 r5 (r1 r2 r3 r4 r5 for ninvr, r2 r3 r1 r4 r5 for pinvr):
// t1 = bt*c, t2 = 0.5*(r4+r5); a = -b, b = a, c = bt*(r4-r5),
// r4 = -t1 + t2, r5 = t1 + t2.
TEXT ·invrXYAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD bt+16(FP), Y14
	CONST(SIGN, Y13, X13)
	CONST(HALF, Y12, X12)
	SHLQ $3, CX
	XORQ BX, BX
invrXY:
	CMPQ BX, CX
	JGE invrXYDone
	LD(0, Y0)
	LD(1, Y1)
	LD(2, Y2)
	LD(3, Y3)
	LD(4, Y4)
	VMULPD Y2, Y14, Y5  // t1
	VADDPD Y4, Y3, Y6
	VMULPD Y6, Y12, Y6  // t2
	VXORPD Y13, Y1, Y1
	ST(Y1, 0)           // -b
	ST(Y0, 1)
	VSUBPD Y4, Y3, Y7
	VMULPD Y7, Y14, Y7
	ST(Y7, 2)
	VXORPD Y13, Y5, Y8
	VADDPD Y6, Y8, Y8
	ST(Y8, 3)
	VADDPD Y6, Y5, Y9
	ST(Y9, 4)
	ADDQ $32, BX
	JMP invrXY
invrXYDone:
	VZEROUPPER
	RET

// func invrZAVX2(p *[16]*float64, n int, bt, c2iv float64)
// p: r1 r2 r3 r4 r5 u1 u2 u3 u4 u5 us vs ws speed ainv qs (tzetar and add)
TEXT ·invrZAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	CONST(SIGN, Y13, X13)
	VBROADCASTSD bt+16(FP), Y14
	VBROADCASTSD c2iv+24(FP), Y15
	SHLQ $3, CX
	XORQ BX, BX
invrZ:
	CMPQ BX, CX
	JGE invrZDone
	LD(5, Y0)            // uzik1
	VMULPD Y0, Y14, Y1   // btuz = bt*uzik1
	LD(14, Y2)           // acinv
	VMULPD Y2, Y1, Y2    // btuz*acinv
	LD(3, Y3)            // r4
	LD(4, Y4)            // r5
	VADDPD Y4, Y3, Y5
	VMULPD Y5, Y2, Y5    // t1
	VSUBPD Y4, Y3, Y6
	VMULPD Y6, Y1, Y6    // t3 = btuz*(r4-r5)
	LD(2, Y7)            // r3
	VADDPD Y5, Y7, Y7    // t2 = r3 + t1
	LD(1, Y1)            // r2
	LD(0, Y2)            // r1, read before n1 replaces it
	ST(Y7, 0)            // n1
	LD(5, Y8)
	VADDPD Y7, Y8, Y8
	ST(Y8, 5)            // u1 += n1
	VXORPD Y13, Y0, Y8
	VMULPD Y1, Y8, Y8    // -uzik1*r2
	LD(10, Y9)           // xvel
	VMULPD Y7, Y9, Y10
	VADDPD Y10, Y8, Y8   // n2
	ST(Y8, 1)
	LD(6, Y10)
	VADDPD Y8, Y10, Y10
	ST(Y10, 6)
	VMULPD Y2, Y0, Y8    // uzik1*r1
	LD(11, Y10)          // yvel
	VMULPD Y7, Y10, Y11
	VADDPD Y11, Y8, Y8   // n3
	ST(Y8, 2)
	LD(7, Y11)
	VADDPD Y8, Y11, Y11
	ST(Y11, 7)
	LD(12, Y3)           // zvel
	VMULPD Y7, Y3, Y8
	VADDPD Y6, Y8, Y8    // n4 = zvel*t2 + t3
	ST(Y8, 3)
	LD(8, Y11)
	VADDPD Y8, Y11, Y11
	ST(Y11, 8)
	VXORPD Y13, Y9, Y9
	VMULPD Y1, Y9, Y9    // -xvel*r2
	VMULPD Y2, Y10, Y10  // yvel*r1
	VADDPD Y10, Y9, Y9
	VMULPD Y9, Y0, Y9    // uzik1*(...)
	LD(15, Y10)          // qs
	VMULPD Y7, Y10, Y10
	VADDPD Y10, Y9, Y9
	LD(13, Y11)          // ac
	VMULPD Y11, Y11, Y11 // ac2u
	VMULPD Y11, Y15, Y11 // c2iv*ac2u
	VMULPD Y5, Y11, Y11
	VADDPD Y11, Y9, Y9
	VMULPD Y6, Y3, Y3    // zvel*t3
	VADDPD Y3, Y9, Y9    // n5
	ST(Y9, 4)
	LD(9, Y11)
	VADDPD Y9, Y11, Y11
	ST(Y11, 9)
	ADDQ $32, BX
	JMP invrZ
invrZDone:
	VZEROUPPER
	RET

// func dtTxinvrAVX2(p *[12]*float64, n int, dt, c2, bt float64)
// p: R1 R2 R3 R4 R5 RI US VS WS SP AI QS
TEXT ·dtTxinvrAVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	CONST(SIGN, Y12, X12)
	VBROADCASTSD dt+16(FP), Y13
	VBROADCASTSD c2+24(FP), Y14
	VBROADCASTSD bt+32(FP), Y15
	SHLQ $3, CX
	XORQ BX, BX
txinvr:
	CMPQ BX, CX
	JGE txinvrDone
	LD(0, Y0)
	VMULPD Y13, Y0, Y0   // r1
	LD(1, Y1)
	VMULPD Y13, Y1, Y1
	LD(2, Y2)
	VMULPD Y13, Y2, Y2
	LD(3, Y3)
	VMULPD Y13, Y3, Y3
	LD(4, Y4)
	VMULPD Y13, Y4, Y4   // r5
	LD(10, Y5)
	VMULPD Y5, Y5, Y5    // ac2inv
	VMULPD Y5, Y14, Y5   // c2*ac2inv
	LD(11, Y6)
	VMULPD Y0, Y6, Y6    // qs*r1
	LD(6, Y7)            // uu
	VMULPD Y1, Y7, Y8
	VSUBPD Y8, Y6, Y6
	LD(7, Y9)            // vv
	VMULPD Y2, Y9, Y8
	VSUBPD Y8, Y6, Y6
	LD(8, Y10)           // ww
	VMULPD Y3, Y10, Y8
	VSUBPD Y8, Y6, Y6
	VADDPD Y4, Y6, Y6
	VMULPD Y6, Y5, Y5    // t1
	LD(5, Y11)           // ru1
	VMULPD Y11, Y15, Y6  // bt*ru1
	VMULPD Y0, Y7, Y7
	VSUBPD Y1, Y7, Y7
	VMULPD Y7, Y6, Y7    // t2
	LD(9, Y8)            // ac
	VMULPD Y8, Y6, Y6
	VMULPD Y5, Y6, Y6    // t3
	VSUBPD Y5, Y0, Y8
	ST(Y8, 0)            // r1 - t1
	VMULPD Y0, Y10, Y10
	VSUBPD Y3, Y10, Y10
	VXORPD Y12, Y11, Y8
	VMULPD Y10, Y8, Y8
	ST(Y8, 1)            // -ru1 * (ww*r1 - r4)
	VMULPD Y0, Y9, Y9
	VSUBPD Y2, Y9, Y9
	VMULPD Y9, Y11, Y9
	ST(Y9, 2)            // ru1 * (vv*r1 - r3)
	VXORPD Y12, Y7, Y8
	VADDPD Y6, Y8, Y8
	ST(Y8, 3)            // -t2 + t3
	VADDPD Y6, Y7, Y7
	ST(Y7, 4)            // t2 + t3
	ADDQ $32, BX
	JMP txinvr
txinvrDone:
	VZEROUPPER
	RET

// func primitivesAVX2(p *[10]*float64, n int)
// p: U1 U2 U3 U4 RI US VS WS SQ QS (computeRHS's first loop)
TEXT ·primitivesAVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	CONST(ONE, Y15, X15)
	CONST(HALF, Y14, X14)
	SHLQ $3, CX
	XORQ BX, BX
prim:
	CMPQ BX, CX
	JGE primDone
	LD(0, Y0)
	VDIVPD Y0, Y15, Y0  // rhoInv
	ST(Y0, 4)
	LD(1, Y1)
	LD(2, Y2)
	LD(3, Y3)
	VMULPD Y0, Y1, Y4
	ST(Y4, 5)
	VMULPD Y0, Y2, Y4
	ST(Y4, 6)
	VMULPD Y0, Y3, Y4
	ST(Y4, 7)
	VMULPD Y1, Y1, Y1
	VMULPD Y2, Y2, Y2
	VADDPD Y2, Y1, Y1
	VMULPD Y3, Y3, Y3
	VADDPD Y3, Y1, Y1
	VMULPD Y1, Y14, Y1
	VMULPD Y0, Y1, Y1   // sq
	ST(Y1, 8)
	VMULPD Y0, Y1, Y1
	ST(Y1, 9)           // sq * rhoInv
	ADDQ $32, BX
	JMP prim
primDone:
	VZEROUPPER
	RET

// func speedAVX2(p *[5]*float64, n int, c1c2 float64)
// p: RI U5 SQ SP AI; SP = sqrt(c1c2 * RI * (U5 - SQ)), AI = 1.0 / SP
TEXT ·speedAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD c1c2+16(FP), Y13
	CONST(ONE, Y15, X15)
	SHLQ $3, CX
	XORQ BX, BX
speed:
	CMPQ BX, CX
	JGE speedDone
	LD(0, Y0)
	VMULPD Y0, Y13, Y0
	LD(1, Y1)
	LD(2, Y2)
	VSUBPD Y2, Y1, Y1
	VMULPD Y1, Y0, Y0
	VSQRTPD Y0, Y0
	ST(Y0, 3)
	VDIVPD Y0, Y15, Y0
	ST(Y0, 4)
	ADDQ $32, BX
	JMP speed
speedDone:
	VZEROUPPER
	RET
