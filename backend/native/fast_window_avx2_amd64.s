// Window sums, AVX2 form (fast_window.go's wholeSums): colSums in eight
// lanes, the same order per column, so the same bits as the AVX-512
// form. Written by hand.

//go:build amd64 && !purego

#include "textflag.h"

// wsMask<>: 8 all-ones words, then 8 zero words. The mask of a row's
// first n < 8 lanes is the 32 bytes from word 8-n on.
DATA wsMask<>+0(SB)/8, $0xffffffffffffffff
DATA wsMask<>+8(SB)/8, $0xffffffffffffffff
DATA wsMask<>+16(SB)/8, $0xffffffffffffffff
DATA wsMask<>+24(SB)/8, $0xffffffffffffffff
DATA wsMask<>+32(SB)/8, $0
DATA wsMask<>+40(SB)/8, $0
DATA wsMask<>+48(SB)/8, $0
DATA wsMask<>+56(SB)/8, $0
GLOBL wsMask<>(SB), RODATA|NOPTR, $64

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
	LEAQ wsMask<>(SB), R13
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
