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

// func colSumsZ(src, dst *float32, planes, h, w int, init float32)
//
// For each of planes h×w planes (src, one after another) and each column
// x: dst[x] = init + src[0][x] + src[1][x] + ... + src[h-1][x], added
// in that order; dst advances w per plane. Sixteen columns per vector,
// the last w%16 under a mask. h ≥ 1.
TEXT ·colSumsZ(SB), NOSPLIT, $0-44
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

// Lane indices of VPERMT2PS over two vectors (32 floats): the even ones,
// the odd ones, and the even ones from 2 on (lane 15 is set apart).
DATA max3Even<>+0(SB)/4, $0
DATA max3Even<>+4(SB)/4, $2
DATA max3Even<>+8(SB)/4, $4
DATA max3Even<>+12(SB)/4, $6
DATA max3Even<>+16(SB)/4, $8
DATA max3Even<>+20(SB)/4, $10
DATA max3Even<>+24(SB)/4, $12
DATA max3Even<>+28(SB)/4, $14
DATA max3Even<>+32(SB)/4, $16
DATA max3Even<>+36(SB)/4, $18
DATA max3Even<>+40(SB)/4, $20
DATA max3Even<>+44(SB)/4, $22
DATA max3Even<>+48(SB)/4, $24
DATA max3Even<>+52(SB)/4, $26
DATA max3Even<>+56(SB)/4, $28
DATA max3Even<>+60(SB)/4, $30
GLOBL max3Even<>(SB), RODATA|NOPTR, $64
DATA max3Odd<>+0(SB)/4, $1
DATA max3Odd<>+4(SB)/4, $3
DATA max3Odd<>+8(SB)/4, $5
DATA max3Odd<>+12(SB)/4, $7
DATA max3Odd<>+16(SB)/4, $9
DATA max3Odd<>+20(SB)/4, $11
DATA max3Odd<>+24(SB)/4, $13
DATA max3Odd<>+28(SB)/4, $15
DATA max3Odd<>+32(SB)/4, $17
DATA max3Odd<>+36(SB)/4, $19
DATA max3Odd<>+40(SB)/4, $21
DATA max3Odd<>+44(SB)/4, $23
DATA max3Odd<>+48(SB)/4, $25
DATA max3Odd<>+52(SB)/4, $27
DATA max3Odd<>+56(SB)/4, $29
DATA max3Odd<>+60(SB)/4, $31
GLOBL max3Odd<>(SB), RODATA|NOPTR, $64
DATA max3Next<>+0(SB)/4, $2
DATA max3Next<>+4(SB)/4, $4
DATA max3Next<>+8(SB)/4, $6
DATA max3Next<>+12(SB)/4, $8
DATA max3Next<>+16(SB)/4, $10
DATA max3Next<>+20(SB)/4, $12
DATA max3Next<>+24(SB)/4, $14
DATA max3Next<>+28(SB)/4, $16
DATA max3Next<>+32(SB)/4, $18
DATA max3Next<>+36(SB)/4, $20
DATA max3Next<>+40(SB)/4, $22
DATA max3Next<>+44(SB)/4, $24
DATA max3Next<>+48(SB)/4, $26
DATA max3Next<>+52(SB)/4, $28
DATA max3Next<>+56(SB)/4, $30
DATA max3Next<>+60(SB)/4, $0
GLOBL max3Next<>(SB), RODATA|NOPTR, $64

// MAX3X folds b into the running maximum a (AVX-512): VMAXPS, and where
// the two compare equal their bitwise AND (+0 over -0, the value
// otherwise): the generic maximum for operands that are not NaN; K7
// gathers the lanes where either is NaN.
#define MAX3X(b, a) \
	VCMPPS $3, b, a, K1 \
	KORW K1, K7, K7 \
	VCMPPS $0, b, a, K2 \
	VANDPS b, a, Z31 \
	VMAXPS b, a, a \
	VMOVAPS Z31, K2, a

// MAX3ROW loads the 33 columns of one row from R (bytes) and folds the
// three taps of the 16 windows into acc: the even columns, the odd ones,
// and the even ones from 2 on (the last from column 32).
#define MAX3ROW(R, acc) \
	VMOVUPS (R), Z0 \
	VMOVUPS 64(R), Z1 \
	VMOVAPS Z0, Z2 \
	VPERMT2PS Z1, Z28, Z2 \
	VMOVAPS Z0, Z3 \
	VPERMT2PS Z1, Z29, Z3 \
	VMOVAPS Z0, Z4 \
	VPERMT2PS Z1, Z30, Z4 \
	VBROADCASTSS 128(R), K3, Z4 \
	MAX3X(Z3, Z2) \
	MAX3X(Z4, Z2) \
	MAX3X(Z2, acc)

// func max3s2x16(src *float32, rowStep int, dst *float32, groups int) (nan bool)
//
// Max pooling 3×3 at stride 2, groups of 16 adjacent windows of one
// output row: src is the first tap of the first window (row 0, column
// 0), rowStep the floats from one input row to the next; window j of
// group g reads columns 32g + 2j .. 32g + 2j + 2 of three rows and its
// maximum goes to dst[16g + j]. The result reports whether any tap was
// NaN (then dst is not the generic maximum there). It reads 33 columns
// of each row per group, the last one column 32g + 32.
TEXT ·max3s2x16(SB), NOSPLIT, $0-33
	MOVQ src+0(FP), SI
	MOVQ rowStep+8(FP), R8
	SHLQ $2, R8
	MOVQ dst+16(FP), DI
	MOVQ groups+24(FP), CX
	VMOVDQU32 max3Even<>(SB), Z28
	VMOVDQU32 max3Odd<>(SB), Z29
	VMOVDQU32 max3Next<>(SB), Z30
	MOVL $0x8000, AX
	KMOVW AX, K3 // lane 15: the third tap from column 32
	KXORW K7, K7, K7
	TESTQ CX, CX
	JEQ m3done
m3group:
	// row 0 into Z5, rows 1 and 2 folded in
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVAPS Z0, Z5
	VPERMT2PS Z1, Z28, Z5
	VMOVAPS Z0, Z3
	VPERMT2PS Z1, Z29, Z3
	VMOVAPS Z0, Z4
	VPERMT2PS Z1, Z30, Z4
	VBROADCASTSS 128(SI), K3, Z4
	MAX3X(Z3, Z5)
	MAX3X(Z4, Z5)
	LEAQ (SI)(R8*1), BX
	MAX3ROW(BX, Z5)
	ADDQ R8, BX
	MAX3ROW(BX, Z5)
	VMOVUPS Z5, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNE m3group
m3done:
	KORTESTW K7, K7
	SETNE nan+32(FP)
	VZEROUPPER
	RET
