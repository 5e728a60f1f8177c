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

// func colSums(src, dst *float32, planes, h, w int, init float32)
//
// For each of planes h×w planes (src, one after another) and each column
// x: dst[x] = init + src[0][x] + src[1][x] + ... + src[h-1][x], added
// in that order; dst advances w per plane. Sixteen columns per vector,
// the last w%16 under a mask. h ≥ 1.
TEXT ·colSums(SB), NOSPLIT, $0-44
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ planes+16(FP), R8
	MOVQ h+24(FP), R9
	MOVQ w+32(FP), R10
	VBROADCASTSS init+40(FP), Z1
	MOVQ R10, R11
	SHLQ $2, R11 // a row, in bytes
	MOVQ R9, R12
	IMULQ R11, R12 // a plane, in bytes
	TESTQ R8, R8
	JEQ csdone
csplane:
	XORQ AX, AX // the chunk's first column
cschunk:
	MOVQ R10, CX
	SUBQ AX, CX
	JLE csnext
	MOVL $0xFFFF, DX
	CMPQ CX, $16
	JGE csfull
	MOVL $1, DX
	SHLL CX, DX
	DECL DX
csfull:
	KMOVW DX, K1
	VMOVAPS Z1, Z0
	LEAQ (SI)(AX*4), BX
	MOVQ R9, CX
csrow:
	VMOVUPS.Z (BX), K1, Z2
	VADDPS Z2, Z0, Z0
	ADDQ R11, BX
	DECQ CX
	JNE csrow
	VMOVUPS Z0, K1, (DI)(AX*4)
	ADDQ $16, AX
	JMP cschunk
csnext:
	ADDQ R12, SI
	ADDQ R11, DI
	DECQ R8
	JNE csplane
csdone:
	VZEROUPPER
	RET
