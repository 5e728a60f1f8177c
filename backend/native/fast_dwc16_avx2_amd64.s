// The channel-vector depthwise kernel and its transposes (fast_dwc16.go),
// AVX2 forms: sixteen channels as two ymm halves. dwc16Y sums the taps as
// dwc16 does (in order, a fused multiply-add each onto the running sum
// from zero), so both give the same bits; columns go 4 at a time (eight
// accumulators), then one by one. tr8x8 moves an 8×8 block (masked at the
// edges) for transpose16's AVX2 form. Written by hand.

//go:build amd64 && !purego

#include "textflag.h"
#include "transpose8_amd64.h"

// func dwc16Y(p *dwcArgs)
TEXT ·dwc16Y(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 16(R8), R9
	MOVQ 24(R8), R10
	MOVQ 32(R8), R11
	MOVQ 40(R8), R12
	MOVQ 48(R8), R13
	MOVQ 56(R8), R14

row:
	TESTQ R12, R12
	JLE done
	MOVQ SI, BX
	MOVQ R13, CX

blk4:
	CMPQ CX, $4
	JL blk1
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ DX, DX
	MOVQ R9, R15

tap4:
	MOVQ (R10)(DX*8), AX
	ADDQ BX, AX
	VMOVUPS (R15), Y8
	VMOVUPS 32(R15), Y9
	VFMADD231PS 0(AX), Y8, Y0
	VFMADD231PS 32(AX), Y9, Y1
	VFMADD231PS 64(AX), Y8, Y2
	VFMADD231PS 96(AX), Y9, Y3
	VFMADD231PS 128(AX), Y8, Y4
	VFMADD231PS 160(AX), Y9, Y5
	VFMADD231PS 192(AX), Y8, Y6
	VFMADD231PS 224(AX), Y9, Y7
	ADDQ $64, R15
	INCQ DX
	CMPQ DX, R11
	JB tap4
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ $256, DI
	ADDQ $256, BX
	SUBQ $4, CX
	JMP blk4

blk1:
	TESTQ CX, CX
	JEQ nextrow
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ DX, DX
	MOVQ R9, R15

tap1:
	MOVQ (R10)(DX*8), AX
	ADDQ BX, AX
	VMOVUPS (R15), Y8
	VMOVUPS 32(R15), Y9
	VFMADD231PS 0(AX), Y8, Y0
	VFMADD231PS 32(AX), Y9, Y1
	ADDQ $64, R15
	INCQ DX
	CMPQ DX, R11
	JB tap1
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, DI
	ADDQ $64, BX
	DECQ CX
	JMP blk1

nextrow:
	ADDQ R14, SI
	DECQ R12
	JMP row

done:
	VZEROUPPER
	RET

// LOADROW loads source row n (0-7) into reg where n < rows (R11), its
// columns masked by Y15; the rows past rows stay zero.
#define LOADROW(n, reg) \
	CMPQ R11, $n \
	JLE loaded \
	VMASKMOVPS (SI), Y15, reg \
	ADDQ DX, SI

// MASKED and PLAIN store a destination row r at a: its first rows lanes
// (the mask in Y0), or all eight.
#define MASKED(r, a) VMASKMOVPS r, Y0, a
#define PLAIN(r, a) VMOVUPS r, a

// STOREROWS(st) stores the transposed rows Y8-Y15 with st, destination
// row j < cols (R12) at DI + (j/2)·R10 for even j and R9 + (j/2)·R10 for
// odd j, then jumps to stored.
#define STOREROWS(st) \
	st(Y8, (DI)) \
	CMPQ R12, $1 \
	JLE stored \
	st(Y9, (R9)) \
	CMPQ R12, $2 \
	JLE stored \
	st(Y10, (DI)(R10*1)) \
	CMPQ R12, $3 \
	JLE stored \
	st(Y11, (R9)(R10*1)) \
	CMPQ R12, $4 \
	JLE stored \
	LEAQ (DI)(R10*2), DI \
	LEAQ (R9)(R10*2), R9 \
	st(Y12, (DI)) \
	CMPQ R12, $5 \
	JLE stored \
	st(Y13, (R9)) \
	CMPQ R12, $6 \
	JLE stored \
	st(Y14, (DI)(R10*1)) \
	CMPQ R12, $7 \
	JLE stored \
	st(Y15, (R9)(R10*1))

// func tr8x8(dstE, dstO *float32, stride2 int, src *float32, srcStride int, rows, cols int)
// dst row j, lanes i = src[i][j] for i < rows, j < cols (each at most 8;
// strides in bytes): the source's columns past cols are not read, its rows
// past rows read as zeros, and each destination row j < cols gets its
// first rows lanes written (all eight with plain stores where rows is 8).
// Destination row j lies at dstE + (j/2)·stride2 for even j, at dstO +
// (j/2)·stride2 for odd j.
TEXT ·tr8x8(SB), NOSPLIT, $0-56
	MOVQ dstE+0(FP), DI
	MOVQ dstO+8(FP), R9
	MOVQ stride2+16(FP), R10
	MOVQ src+24(FP), SI
	MOVQ srcStride+32(FP), DX
	MOVQ rows+40(FP), R11
	MOVQ cols+48(FP), R12
	MOVQ $8, AX
	CMPQ R11, AX
	CMOVQGT AX, R11
	CMPQ R12, AX
	CMOVQGT AX, R12
	LEAQ ·laneMask(SB), BX
	MOVQ $16, AX
	SUBQ R12, AX
	VMOVDQU (BX)(AX*4), Y15
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LOADROW(0, Y0)
	LOADROW(1, Y1)
	LOADROW(2, Y2)
	LOADROW(3, Y3)
	LOADROW(4, Y4)
	LOADROW(5, Y5)
	LOADROW(6, Y6)
	LOADROW(7, Y7)
loaded:
	TRANSPOSE8
	CMPQ R11, $8
	JEQ full
	MOVQ $16, AX
	SUBQ R11, AX
	VMOVDQU (BX)(AX*4), Y0
	STOREROWS(MASKED)
	JMP stored
full:
	STOREROWS(PLAIN)
stored:
	VZEROUPPER
	RET
