// Window sums, AVX2 form (fast_window.go's wholeSums): colSums in eight
// lanes, the same order per column, so the same bits as the AVX-512
// form. Written by hand.

//go:build amd64 && !purego

#include "textflag.h"

// func colSumsY(src, dst *float32, planes, h, w int, init float32)
//
// colSums in AVX2: for each of planes h×w planes and each column x,
// dst[x] = init + src[0][x] + ... + src[h-1][x], added in that order.
// Sixteen columns at a time (two chains side by side), then eight, then
// the last w%8 under a mask. h ≥ 1.
TEXT ·colSumsY(SB), NOSPLIT, $0-44
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ planes+16(FP), R8
	MOVQ h+24(FP), R9
	MOVQ w+32(FP), R10
	VBROADCASTSS init+40(FP), Y1
	MOVQ R10, R11
	SHLQ $2, R11 // a row, in bytes
	MOVQ R9, R12
	IMULQ R11, R12 // a plane, in bytes
	LEAQ ·laneMask+32(SB), R13 // the mask of n < 8 lanes: from word 8-n on
	TESTQ R8, R8
	JEQ done
plane:
	XORQ AX, AX // the chunk's first column
chunk:
	MOVQ R10, CX
	SUBQ AX, CX
	JLE next
	LEAQ (SI)(AX*4), BX
	CMPQ CX, $16
	JL chunk8
	VMOVAPS Y1, Y0
	VMOVAPS Y1, Y4
	MOVQ R9, CX
row16:
	VADDPS (BX), Y0, Y0
	VADDPS 32(BX), Y4, Y4
	ADDQ R11, BX
	DECQ CX
	JNE row16
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y4, 32(DI)(AX*4)
	ADDQ $16, AX
	JMP chunk
chunk8:
	CMPQ CX, $8
	JL tail
	VMOVAPS Y1, Y0
	MOVQ R9, CX
row8:
	VADDPS (BX), Y0, Y0
	ADDQ R11, BX
	DECQ CX
	JNE row8
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP chunk
tail:
	MOVQ $8, DX
	SUBQ CX, DX
	VMOVDQU (R13)(DX*4), Y3
	VMOVAPS Y1, Y0
	MOVQ R9, CX
rowt:
	VMASKMOVPS (BX), Y3, Y2
	VADDPS Y2, Y0, Y0
	ADDQ R11, BX
	DECQ CX
	JNE rowt
	VMASKMOVPS Y0, Y3, (DI)(AX*4)
next:
	ADDQ R12, SI
	ADDQ R11, DI
	DECQ R8
	JNE plane
done:
	VZEROUPPER
	RET

// MAXY folds b into the running maximum a (AVX2): the maximum both ways
// round and their bitwise AND, the generic maximum for operands that are
// not NaN (+0 over -0; the value otherwise); T is clobbered.
#define MAXY(b, a, T) \
	VMAXPS b, a, T \
	VMAXPS a, b, a \
	VANDPS T, a, a

// NANY ORs into Y15 the lanes where a or b is NaN; T is clobbered.
#define NANY(a, b, T) \
	VCMPPS $3, b, a, T \
	VORPS T, Y15, Y15

// func max3s2x8(src *float32, rowStep int, dst *float32, groups int) (nan bool)
//
// max3s2x16 in AVX2, groups of 8 windows: window j of group g reads
// columns 16g + 2j .. 16g + 2j + 2 of three rows, rowStep floats apart,
// and its maximum goes to dst[8g + j]. The three rows are folded first
// (the maximum of values that are not NaN does not depend on the order),
// columns 16g .. 16g+7 (Y0), 16g+8 .. 16g+15 (Y1), 16g+2 .. 16g+9 (Y2)
// and 16g+9 .. 16g+16 (Y3); then the windows' first taps (even columns),
// second (odd) and third (even from 2 on) in the in-lane order of
// VSHUFPS, folded, and put in column order by one VPERMPD. The result
// reports whether any tap was NaN (then dst is not the generic maximum
// there). It reads 17 columns of each row per group, the last one
// column 16g + 16.
TEXT ·max3s2x8(SB), NOSPLIT, $0-33
	MOVQ src+0(FP), SI
	MOVQ rowStep+8(FP), R8
	SHLQ $2, R8
	MOVQ dst+16(FP), DI
	MOVQ groups+24(FP), CX
	VXORPS Y15, Y15, Y15
	TESTQ CX, CX
	JEQ m3ydone

m3ygroup:
	LEAQ (SI)(R8*1), BX
	LEAQ (BX)(R8*1), DX
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 8(SI), Y2
	VMOVUPS 36(SI), Y3
	VMOVUPS (BX), Y4
	VMOVUPS 32(BX), Y5
	VMOVUPS 8(BX), Y6
	VMOVUPS 36(BX), Y7
	NANY(Y0, Y1, Y12)
	NANY(Y3, Y4, Y12)
	NANY(Y5, Y7, Y12)
	MAXY(Y4, Y0, Y12)
	MAXY(Y5, Y1, Y12)
	MAXY(Y6, Y2, Y12)
	MAXY(Y7, Y3, Y12)
	VMOVUPS (DX), Y4
	VMOVUPS 32(DX), Y5
	VMOVUPS 8(DX), Y6
	VMOVUPS 36(DX), Y7
	NANY(Y4, Y5, Y12)
	NANY(Y7, Y7, Y12)
	MAXY(Y4, Y0, Y12)
	MAXY(Y5, Y1, Y12)
	MAXY(Y6, Y2, Y12)
	MAXY(Y7, Y3, Y12)
	// per 128-bit lane: columns 0 2 8 10 | 4 6 12 14 (first taps),
	// 1 3 9 11 | 5 7 13 15 (second), 2 4 10 12 | 6 8 14 16 (third)
	VSHUFPS $0x88, Y1, Y0, Y8
	VSHUFPS $0xdd, Y1, Y0, Y9
	VSHUFPS $0xd8, Y3, Y2, Y10
	MAXY(Y9, Y8, Y12)
	MAXY(Y10, Y8, Y12)
	VPERMPD $0xd8, Y8, Y8
	VMOVUPS Y8, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNE m3ygroup

m3ydone:
	VPTEST Y15, Y15
	SETNE nan+32(FP)
	VZEROUPPER
	RET
