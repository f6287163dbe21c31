//go:build amd64 && !purego

#include "textflag.h"

// fluxRowAVX2 (flux_row.go): the six flux kernels of flux_amd64.s fused,
// each group of four points through all of them. DI holds the arguments
// (fluxRowArgs, offsets as in TestFluxRowArgsLayout), R15 the group's
// byte offset, R13 the stride along the axis in bytes and R12 its
// negation, so that X's point, the next and the previous one along the
// axis are (X), (X)(R13*1) and (X)(R12*1) once X holds the array's
// address plus R15. Y13 holds t2. The results stay in Y8-Y12 (density,
// the momenta along and across, energy) until the group's stores.

// AT(off, reg): reg = the array at fluxRowArgs offset off, at this group.
#define AT(off, reg) \
	MOVQ off(DI), reg; \
	LEAQ (reg)(R15*1), reg

// SECOND(x, c, t, d): d = c * ((x[+1] - 2*x) + x[-1]), the second
// difference along the axis, as flux_amd64.s's SECOND (t is scratch).
#define SECOND(x, c, t, d) \
	VMOVUPD (x), t; \
	VADDPD t, t, t; \
	VMOVUPD (x)(R13*1), d; \
	VSUBPD t, d, d; \
	VADDPD (x)(R12*1), d, d; \
	VMULPD c, d, d

// MOMENTUM(u, t, dmoff, ccoff, res): the part of a momentum that the one
// along the axis (fluxMomentumNormalAVX2) and those across it
// (fluxMomentumAVX2) share, for r in AX and v in DX: res = r +
// dm*second(u) + cc*second(t), and Y4 = u[+1]*v[+1] - u[-1]*v[-1].
#define MOMENTUM(u, t, dmoff, ccoff, res) \
	VBROADCASTSD dmoff(DI), Y14; \
	SECOND(u, Y14, Y0, res); \
	VADDPD (AX), res, res; \
	VBROADCASTSD ccoff(DI), Y14; \
	SECOND(t, Y14, Y2, Y3); \
	VADDPD Y3, res, res; \
	VMOVUPD (u)(R13*1), Y4; \
	VMULPD (DX)(R13*1), Y4, Y4; \
	VMOVUPD (u)(R12*1), Y5; \
	VMULPD (DX)(R12*1), Y5, Y5; \
	VSUBPD Y5, Y4, Y4

// TANGENT(uoff, roff, toff, dmoff, res): a momentum across the axis
// (fluxMomentumAVX2), carried by the velocity at toff: res = MOMENTUM's
// res - t2*Y4, with con2 for cc.
#define TANGENT(uoff, roff, toff, dmoff, res) \
	AT(uoff, BX); \
	AT(roff, AX); \
	AT(toff, R9); \
	MOMENTUM(BX, R9, dmoff, 216, res); \
	VMULPD Y13, Y4, Y4; \
	VSUBPD Y4, res, res

#define FLUXGROUP \
	/* density (fluxDensityAVX2) */ \
	AT(0, AX); \
	AT(8, BX); \
	AT(16, CX); \
	VBROADCASTSD 168(DI), Y14; \
	SECOND(BX, Y14, Y0, Y8); \
	VADDPD (AX), Y8, Y8; \
	VMOVUPD (CX)(R13*1), Y2; \
	VSUBPD (CX)(R12*1), Y2, Y2; \
	VMULPD Y13, Y2, Y2; \
	VSUBPD Y2, Y8, Y8; \
	/* the momentum along the axis (fluxMomentumNormalAVX2); CX is its u */ \
	AT(24, AX); \
	AT(80, DX); \
	AT(88, SI); \
	AT(104, R8); \
	MOMENTUM(CX, DX, 176, 224, Y9); \
	VMOVUPD (SI)(R13*1), Y6; \
	VSUBPD (R8)(R13*1), Y6, Y6; \
	VSUBPD (SI)(R12*1), Y6, Y6; \
	VADDPD (R8)(R12*1), Y6, Y6; \
	VBROADCASTSD 240(DI), Y14; \
	VMULPD Y14, Y6, Y6; \
	VADDPD Y6, Y4, Y4; \
	VMULPD Y13, Y4, Y4; \
	VSUBPD Y4, Y9, Y9; \
	/* the momenta across the axis */ \
	TANGENT(32, 40, 48, 184, Y10); \
	TANGENT(56, 64, 72, 192, Y11); \
	/* energy, first part (fluxEnergyAAVX2); SI is u4 */ \
	AT(96, AX); \
	AT(112, R9); \
	VBROADCASTSD 200(DI), Y14; \
	SECOND(SI, Y14, Y0, Y12); \
	VADDPD (AX), Y12, Y12; \
	VBROADCASTSD 248(DI), Y14; \
	SECOND(R9, Y14, Y2, Y3); \
	VADDPD Y3, Y12, Y12; \
	/* energy, second part (fluxEnergyBAVX2); v in DX, square in R8 */ \
	VMOVUPD (DX)(R13*1), Y0; \
	VMOVUPD (DX), Y1; \
	VMOVUPD (DX)(R12*1), Y2; \
	VMULPD Y0, Y0, Y3; \
	VADDPD Y1, Y1, Y4; \
	VMULPD Y1, Y4, Y4; \
	VSUBPD Y4, Y3, Y3; \
	VMULPD Y2, Y2, Y5; \
	VADDPD Y5, Y3, Y3; \
	VBROADCASTSD 256(DI), Y14; \
	VMULPD Y14, Y3, Y3; \
	VADDPD Y12, Y3, Y3; \
	AT(120, R10); \
	VMOVUPD (SI)(R13*1), Y4; \
	VMULPD (R10)(R13*1), Y4, Y4; \
	VMOVUPD (SI), Y5; \
	VADDPD Y5, Y5, Y5; \
	VMULPD (R10), Y5, Y5; \
	VSUBPD Y5, Y4, Y4; \
	VMOVUPD (SI)(R12*1), Y6; \
	VMULPD (R10)(R12*1), Y6, Y6; \
	VADDPD Y6, Y4, Y4; \
	VBROADCASTSD 264(DI), Y14; \
	VMULPD Y14, Y4, Y4; \
	VADDPD Y4, Y3, Y3; \
	VBROADCASTSD 232(DI), Y14; \
	VBROADCASTSD 240(DI), Y15; \
	VMULPD (SI)(R13*1), Y14, Y4; \
	VMULPD (R8)(R13*1), Y15, Y5; \
	VSUBPD Y5, Y4, Y4; \
	VMULPD Y0, Y4, Y4; \
	VMULPD (SI)(R12*1), Y14, Y6; \
	VMULPD (R8)(R12*1), Y15, Y7; \
	VSUBPD Y7, Y6, Y6; \
	VMULPD Y2, Y6, Y6; \
	VSUBPD Y6, Y4, Y4; \
	VMULPD Y13, Y4, Y4; \
	VSUBPD Y4, Y3, Y12

// func fluxRowAVX2(a *fluxRowArgs, n int)
TEXT ·fluxRowAVX2(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), DI
	MOVQ n+8(FP), R14
	MOVQ R14, R11
	ANDQ $3, R11
	SUBQ R11, R14
	SHLQ $3, R14
	MOVQ 128(DI), R13
	MOVQ R13, R12
	NEGQ R12
	VBROADCASTSD 208(DI), Y13
	XORQ R15, R15
groups:
	CMPQ R15, R14
	JGE last
	FLUXGROUP
	MOVQ 0(DI), AX
	VMOVUPD Y8, (AX)(R15*1)
	MOVQ 24(DI), AX
	VMOVUPD Y9, (AX)(R15*1)
	MOVQ 40(DI), AX
	VMOVUPD Y10, (AX)(R15*1)
	MOVQ 64(DI), AX
	VMOVUPD Y11, (AX)(R15*1)
	MOVQ 96(DI), AX
	VMOVUPD Y12, (AX)(R15*1)
	ADDQ $32, R15
	JMP groups
last:
	TESTQ R11, R11
	JEQ done
	FLUXGROUP
	VMOVDQU 136(DI), Y15
	MOVQ 0(DI), AX
	VMASKMOVPD Y8, Y15, (AX)(R15*1)
	MOVQ 24(DI), AX
	VMASKMOVPD Y9, Y15, (AX)(R15*1)
	MOVQ 40(DI), AX
	VMASKMOVPD Y10, Y15, (AX)(R15*1)
	MOVQ 64(DI), AX
	VMASKMOVPD Y11, Y15, (AX)(R15*1)
	MOVQ 96(DI), AX
	VMASKMOVPD Y12, Y15, (AX)(R15*1)
done:
	VZEROUPPER
	RET
