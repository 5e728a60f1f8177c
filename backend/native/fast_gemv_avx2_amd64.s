// Packed matrix-vector blocks, AVX2 form (fast_gemv.go): the same steps,
// accumulators and sums as fast_gemv_amd64.s's gemvBlocks16, in two halves
// of eight rows, so both give the same bits. Written by hand.

//go:build amd64 && !purego

#include "textflag.h"

// func gemvBlocks16Y(x, w *float32, k int, y *float32, blocks int)
//
// gemvBlocks16 in eight accumulators: step p into accumulator p%4 (the
// last k%4 steps into the first), rows 0-7 and 8-15 of a block apart
// (Y0/Y1, Y2/Y3, Y4/Y5, Y6/Y7), added (0+1)+(2+3) at the end.
TEXT ·gemvBlocks16Y(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ k+16(FP), CX
	MOVQ y+24(FP), DX
	MOVQ blocks+32(FP), R15
	TESTQ R15, R15
	JEQ ydone
yblock:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ SI, AX
	MOVQ CX, BX
	SHRQ $2, BX
	JEQ ytail
yloop:
	VBROADCASTSS (AX), Y8
	VBROADCASTSS 4(AX), Y9
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS 32(DI), Y8, Y1
	VFMADD231PS 64(DI), Y9, Y2
	VFMADD231PS 96(DI), Y9, Y3
	VFMADD231PS 128(DI), Y10, Y4
	VFMADD231PS 160(DI), Y10, Y5
	VFMADD231PS 192(DI), Y11, Y6
	VFMADD231PS 224(DI), Y11, Y7
	ADDQ $16, AX
	ADDQ $256, DI
	DECQ BX
	JNE yloop
ytail:
	MOVQ CX, BX
	ANDQ $3, BX
	JEQ ysum
ystep:
	VBROADCASTSS (AX), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS 32(DI), Y8, Y1
	ADDQ $4, AX
	ADDQ $64, DI
	DECQ BX
	JNE ystep
ysum:
	VADDPS Y2, Y0, Y0
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y7, Y5, Y5
	VADDPS Y5, Y1, Y1
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ $64, DX
	DECQ R15
	JNE yblock
ydone:
	VZEROUPPER
	RET
