//go:build amd64 && !purego

#include "textflag.h"

// SP's left-hand sides and line solves across lines (sp_kernels.go) and
// the rhs's interior dissipation (rhs.go), four points at a time over the
// first n points (n a multiple of 4); the callers finish the rest in Go.
// The arrays come in a table of pointers (p), each to the array's point 0
// of the loop. Each element's operations are the Go loop's, in its order,
// with no fused multiply-adds, so results are bit for bit the Go loop's.

// LD(k, dst): dst = the 4 points at the offset in BX of the table's array k.
#define LD(k, dst) \
	MOVQ (k*8)(AX), R8; \
	VMOVUPD (R8)(BX*1), dst

// ST(src, k): the 4 points at the offset in BX of the table's array k = src.
#define ST(src, k) \
	MOVQ (k*8)(AX), R8; \
	VMOVUPD src, (R8)(BX*1)

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
	MOVQ $0x3ff0000000000000, DX // 1.0
	MOVQ DX, X15
	VBROADCASTSD X15, Y15
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
	MOVQ $0x3ff0000000000000, DX // 1.0
	MOVQ DX, X15
	VBROADCASTSD X15, Y15
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
	MOVQ $0x3ff0000000000000, DX // 1.0
	MOVQ DX, X15
	VBROADCASTSD X15, Y15
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

// func dissInteriorAVX2(p *[6]*float64, n int, dssp float64)
// p: R Umm Um U Up Upp; R -= dssp * (Umm - 4*Um + 6*U - 4*Up + Upp)
TEXT ·dissInteriorAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	VBROADCASTSD dssp+16(FP), Y15
	MOVQ $0x4010000000000000, DX // 4.0
	MOVQ DX, X14
	VBROADCASTSD X14, Y14
	MOVQ $0x4018000000000000, DX // 6.0
	MOVQ DX, X13
	VBROADCASTSD X13, Y13
	SHLQ $3, CX
	XORQ BX, BX
diss:
	CMPQ BX, CX
	JGE dissDone
	LD(1, Y0)           // Umm
	LD(2, Y1)
	VMULPD Y14, Y1, Y1  // 4*Um
	VSUBPD Y1, Y0, Y0
	LD(3, Y2)
	VMULPD Y13, Y2, Y2  // 6*U
	VADDPD Y2, Y0, Y0
	LD(4, Y3)
	VMULPD Y14, Y3, Y3  // 4*Up
	VSUBPD Y3, Y0, Y0
	LD(5, Y4)
	VADDPD Y4, Y0, Y0
	VMULPD Y0, Y15, Y0
	LD(0, Y5)
	VSUBPD Y0, Y5, Y5
	ST(Y5, 0)
	ADDQ $32, BX
	JMP diss
dissDone:
	VZEROUPPER
	RET
