// The wide-row depthwise kernels (fast_dwwide.go), AVX-512: sixteen
// output columns of one channel per vector, read straight from the NCHW
// input rows. For each output row and each vector of 16 columns x0…,
// dst[x] = Σ over the tap rows r and columns kx of w[r][kx] ×
// src[r][x·sw − padL + kx], the taps in order, each a fused multiply-add
// onto the running sum from zero; the input columns outside the row are
// masked off (a masked-off lane neither reads nor faults, and reads as
// zero, as a padded copy would), so there is no padded copy; tap rows
// outside the image read a row of zeros. Stride 2 loads 32 input columns and keeps the even ones
// (one two-vector permute).

//go:build amd64 && !purego

#include "textflag.h"

// The argument block (dwWideArgs):
//   0 dst     first output row
//   8 delta   bytes added to every tap row's address (0)
//  16 dstRow  bytes from one output row to the next (x4)
//  24 rowPtr  [4][16]: per output row of a block (x1: the first) and tap
//             row, its input row (a row of zeros above or below the image)
//  32 wPtr    per tap row: its kw weights
//  40 taps    tap rows
//  48 kw      taps per row
//  56 nv      vectors per output row
//  64 masks   [nv][kw] input lanes inside the row (stride 2: 32 bits)
//  72 colStep bytes of input per output vector (64·sw)
//  80 col0    byte offset of the first vector's first tap (−4·padL)
//  88 last    output lanes of the last vector
//  96 idx     stride 2: the even-lane permutation
// 104 rows    output rows (x4: blocks of four)
// 112 dstAdj  bytes from the end of a row's (x4: block's) vectors to the next
// 120 srcStep bytes from one output row's input rows to the next's (x4:
//             the next block's)
// 128 colEnd  col0 + nv·colStep
//
// dwWide1 and dwWide2 compute one output row at a time: each vector's sum
// is one chain of dependent fused multiply-adds (4 cycles each on Zen 4).
// dwWide1x4 and dwWide2x4 compute four output rows side by side (four
// chains; the weight broadcast once per tap, the column masks shared),
// each row from its own tap rows.

// func dwWide1(p *dwWideArgs)
TEXT ·dwWide1(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 24(R8), R10
	MOVQ 32(R8), R11
	KMOVW 88(R8), K3

row1:
	MOVQ 56(R8), R14
	MOVQ 64(R8), R15
	MOVQ 80(R8), BX

vec1:
	VPXORD Z0, Z0, Z0
	XORQ CX, CX

tap1:
	MOVQ (R10)(CX*8), AX
	ADDQ SI, AX
	ADDQ BX, AX
	MOVQ (R11)(CX*8), DX
	XORQ R12, R12

kx1:
	MOVL (R15)(R12*4), R13
	KMOVW R13, K1
	VMOVUPS.Z (AX)(R12*4), K1, Z1
	VFMADD231PS.BCST (DX)(R12*4), Z1, Z0
	INCQ R12
	CMPQ R12, 48(R8)
	JB kx1
	INCQ CX
	CMPQ CX, 40(R8)
	JB tap1

	CMPQ R14, $1
	JNE full1
	VMOVUPS Z0, K3, (DI)
	JMP next1

full1:
	VMOVUPS Z0, (DI)

next1:
	ADDQ $64, DI
	ADDQ 72(R8), BX
	MOVQ 48(R8), R12
	LEAQ (R15)(R12*4), R15
	DECQ R14
	JNE vec1

	ADDQ 112(R8), DI
	ADDQ 120(R8), SI
	DECQ 104(R8)
	JNE row1
	VZEROUPPER
	RET


// func dwWide2(p *dwWideArgs)
TEXT ·dwWide2(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 24(R8), R10
	MOVQ 32(R8), R11
	KMOVW 88(R8), K3
	MOVQ 96(R8), AX
	VMOVUPS (AX), Z31

row2:
	MOVQ 56(R8), R14
	MOVQ 64(R8), R15
	MOVQ 80(R8), BX

vec2:
	VPXORD Z0, Z0, Z0
	XORQ CX, CX

tap2:
	MOVQ (R10)(CX*8), AX
	ADDQ SI, AX
	ADDQ BX, AX
	MOVQ (R11)(CX*8), DX
	XORQ R12, R12

kx2:
	MOVL (R15)(R12*4), R13
	KMOVW R13, K1
	SHRL $16, R13
	KMOVW R13, K2
	VMOVUPS.Z (AX)(R12*4), K1, Z1
	VMOVUPS.Z 64(AX)(R12*4), K2, Z2
	VPERMT2PS Z2, Z31, Z1
	VFMADD231PS.BCST (DX)(R12*4), Z1, Z0
	INCQ R12
	CMPQ R12, 48(R8)
	JB kx2
	INCQ CX
	CMPQ CX, 40(R8)
	JB tap2

	CMPQ R14, $1
	JNE full2
	VMOVUPS Z0, K3, (DI)
	JMP next2

full2:
	VMOVUPS Z0, (DI)

next2:
	ADDQ $64, DI
	ADDQ 72(R8), BX
	MOVQ 48(R8), R12
	LEAQ (R15)(R12*4), R15
	DECQ R14
	JNE vec2

	ADDQ 112(R8), DI
	ADDQ 120(R8), SI
	DECQ 104(R8)
	JNE row2
	VZEROUPPER
	RET


// func dwWide1x4(p *dwWideArgs)
TEXT ·dwWide1x4(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 24(R8), R10
	KMOVW 88(R8), K3

row1x4:
	MOVQ 64(R8), R15
	MOVQ 80(R8), BX

vec1x4:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ CX, CX

tap1x4:
	MOVQ (R10)(CX*8), AX
	ADDQ SI, AX
	ADDQ BX, AX
	MOVQ 128(R10)(CX*8), R11
	ADDQ SI, R11
	ADDQ BX, R11
	MOVQ 256(R10)(CX*8), R9
	ADDQ SI, R9
	ADDQ BX, R9
	MOVQ 384(R10)(CX*8), R14
	ADDQ SI, R14
	ADDQ BX, R14
	MOVQ 32(R8), DX
	MOVQ (DX)(CX*8), DX
	XORQ R12, R12

kx1x4:
	MOVL (R15)(R12*4), R13
	KMOVW R13, K1
	VBROADCASTSS (DX)(R12*4), Z30
	VMOVUPS.Z (AX)(R12*4), K1, Z4
	VMOVUPS.Z (R11)(R12*4), K1, Z5
	VMOVUPS.Z (R9)(R12*4), K1, Z6
	VMOVUPS.Z (R14)(R12*4), K1, Z7
	VFMADD231PS Z4, Z30, Z0
	VFMADD231PS Z5, Z30, Z1
	VFMADD231PS Z6, Z30, Z2
	VFMADD231PS Z7, Z30, Z3
	INCQ R12
	CMPQ R12, 48(R8)
	JB kx1x4
	INCQ CX
	CMPQ CX, 40(R8)
	JB tap1x4

	MOVQ 16(R8), R13
	LEAQ (DI)(R13*2), R12
	ADDQ 72(R8), BX
	CMPQ BX, 128(R8)
	JEQ last1x4
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, (DI)(R13*1)
	VMOVUPS Z2, (R12)
	VMOVUPS Z3, (R12)(R13*1)
	ADDQ $64, DI
	MOVQ 48(R8), R12
	LEAQ (R15)(R12*4), R15
	JMP vec1x4

last1x4:
	VMOVUPS Z0, K3, (DI)
	VMOVUPS Z1, K3, (DI)(R13*1)
	VMOVUPS Z2, K3, (R12)
	VMOVUPS Z3, K3, (R12)(R13*1)
	ADDQ $64, DI
	ADDQ 112(R8), DI
	ADDQ 120(R8), SI
	DECQ 104(R8)
	JNE row1x4
	VZEROUPPER
	RET


// func dwWide2x4(p *dwWideArgs)
TEXT ·dwWide2x4(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 24(R8), R10
	KMOVW 88(R8), K3
	MOVQ 96(R8), AX
	VMOVUPS (AX), Z31

row2x4:
	MOVQ 64(R8), R15
	MOVQ 80(R8), BX

vec2x4:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ CX, CX

tap2x4:
	MOVQ (R10)(CX*8), AX
	ADDQ SI, AX
	ADDQ BX, AX
	MOVQ 128(R10)(CX*8), R11
	ADDQ SI, R11
	ADDQ BX, R11
	MOVQ 256(R10)(CX*8), R9
	ADDQ SI, R9
	ADDQ BX, R9
	MOVQ 384(R10)(CX*8), R14
	ADDQ SI, R14
	ADDQ BX, R14
	MOVQ 32(R8), DX
	MOVQ (DX)(CX*8), DX
	XORQ R12, R12

kx2x4:
	MOVL (R15)(R12*4), R13
	KMOVW R13, K1
	VBROADCASTSS (DX)(R12*4), Z30
	SHRL $16, R13
	KMOVW R13, K2
	VMOVUPS.Z (AX)(R12*4), K1, Z4
	VMOVUPS.Z 64(AX)(R12*4), K2, Z8
	VMOVUPS.Z (R11)(R12*4), K1, Z5
	VMOVUPS.Z 64(R11)(R12*4), K2, Z9
	VMOVUPS.Z (R9)(R12*4), K1, Z6
	VMOVUPS.Z 64(R9)(R12*4), K2, Z10
	VMOVUPS.Z (R14)(R12*4), K1, Z7
	VMOVUPS.Z 64(R14)(R12*4), K2, Z11
	VPERMT2PS Z8, Z31, Z4
	VPERMT2PS Z9, Z31, Z5
	VPERMT2PS Z10, Z31, Z6
	VPERMT2PS Z11, Z31, Z7
	VFMADD231PS Z4, Z30, Z0
	VFMADD231PS Z5, Z30, Z1
	VFMADD231PS Z6, Z30, Z2
	VFMADD231PS Z7, Z30, Z3
	INCQ R12
	CMPQ R12, 48(R8)
	JB kx2x4
	INCQ CX
	CMPQ CX, 40(R8)
	JB tap2x4

	MOVQ 16(R8), R13
	LEAQ (DI)(R13*2), R12
	ADDQ 72(R8), BX
	CMPQ BX, 128(R8)
	JEQ last2x4
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, (DI)(R13*1)
	VMOVUPS Z2, (R12)
	VMOVUPS Z3, (R12)(R13*1)
	ADDQ $64, DI
	MOVQ 48(R8), R12
	LEAQ (R15)(R12*4), R15
	JMP vec2x4

last2x4:
	VMOVUPS Z0, K3, (DI)
	VMOVUPS Z1, K3, (DI)(R13*1)
	VMOVUPS Z2, K3, (R12)
	VMOVUPS Z3, K3, (R12)(R13*1)
	ADDQ $64, DI
	ADDQ 112(R8), DI
	ADDQ 120(R8), SI
	DECQ 104(R8)
	JNE row2x4
	VZEROUPPER
	RET

