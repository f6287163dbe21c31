// Macros of SP's AVX2 kernels (sp_kernels_amd64.s, sp_lines_amd64.s). A
// kernel's arrays come in a table of pointers in AX; BX is the offset of
// the current point in bytes; R8 and DX are scratch.

// LD(k, dst): dst = the 4 points at the offset in BX of the table's array k.
#define LD(k, dst) \
	MOVQ (k*8)(AX), R8; \
	VMOVUPD (R8)(BX*1), dst

// ST(src, k): the 4 points at the offset in BX of the table's array k = src.
#define ST(src, k) \
	MOVQ (k*8)(AX), R8; \
	VMOVUPD src, (R8)(BX*1)

// CONST(bits, y, x): every lane of y = the float64 with these bits (x is
// y's lower half).
#define CONST(bits, y, x) \
	MOVQ $bits, DX; \
	VMOVQ DX, x; \
	VBROADCASTSD x, y

#define ONE 0x3ff0000000000000
#define HALF 0x3fe0000000000000
#define FOUR 0x4010000000000000
#define SIX 0x4018000000000000
#define SIGN 0x8000000000000000 // the sign bit: VXORPD with it negates, as Go's -x does
