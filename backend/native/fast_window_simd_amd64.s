// The exact maximum of the pooling fast path (fast_window_simd.go), 8
// float32 lanes per step: VMAXPS, except where the operands compare equal
// (then their bitwise AND: +0 over -0, the value itself otherwise), which
// is the generic maximum for operands that are not NaN. NaNs are not
// propagated but reported: the result says whether any lane was unordered.
// Written by hand; see fast_window_simd_test.go.

//go:build amd64 && !purego

#include "textflag.h"

// func maxExact8(d, a, b *float32, n int) (nan bool)
TEXT ·maxExact8(SB), NOSPLIT, $0-33
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	VXORPS Y7, Y7, Y7
loop:
	CMPQ AX, CX
	JAE done
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (DX)(AX*4), Y1
	VMAXPS Y1, Y0, Y2
	VANDPS Y1, Y0, Y3
	VCMPPS $0x00, Y1, Y0, Y4
	VBLENDVPS Y4, Y3, Y2, Y5
	VCMPPS $0x03, Y1, Y0, Y6
	VORPS Y6, Y7, Y7
	VMOVUPS Y5, (DI)(AX*4)
	ADDQ $8, AX
	JMP loop
done:
	VPTEST Y7, Y7
	SETNE nan+32(FP)
	VZEROUPPER
	RET
