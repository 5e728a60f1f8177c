// AVX2 implicit im2col packing (convpack.go): one panel of 16 columns.
// Written by hand.

//go:build amd64 && !purego

#include "textflag.h"

// MASKS sets Y11 (lanes 0-7) or, with the second register set, the
// mask of the lanes whose row y and column x fall inside the image: y and
// x arrive with their sign bits flipped (Y2-Y5 plus the tap's ty, tx in
// Y9, Y10), so one signed compare against H', W' (flipped too) is the
// unsigned y < H.
#define MASKS(yr, xr) \
	VPADDD Y9, yr, Y11 \
	VPCMPGTD Y11, Y6, Y11 \
	VPADDD Y10, xr, Y12 \
	VPCMPGTD Y12, Y7, Y12 \
	VPAND Y12, Y11, Y11

// func gatherConv16(dst, img *float32, cols, taps *int32, kb int, hw *int32, contig int)
// dst[16q + l] = img[off[l] + toff_q] for the k steps q < kb and the 16
// columns l of a panel, or 0 where the tap's row ty_q or column tx_q puts
// the position outside the H×W image (hw = {H, W}). cols points at the
// panel's 16 offsets in a column table (convPanelInts per 32 columns: the
// rows 32 ints on, the columns 64 on), taps holds (toff, ty, tx) per k
// step. contig says that the offsets are consecutive: one masked load per
// eight lanes instead of a gather.
TEXT ·gatherConv16(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ img+8(FP), DX
	MOVQ cols+16(FP), AX
	MOVQ taps+24(FP), SI
	MOVQ kb+32(FP), CX
	MOVQ hw+40(FP), BX
	MOVQ contig+48(FP), R8
	VPCMPEQD Y15, Y15, Y15
	VPSLLD $31, Y15, Y15
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VPXOR 128(AX), Y15, Y2
	VPXOR 160(AX), Y15, Y3
	VPXOR 256(AX), Y15, Y4
	VPXOR 288(AX), Y15, Y5
	VPBROADCASTD 0(BX), Y6
	VPXOR Y15, Y6, Y6
	VPBROADCASTD 4(BX), Y7
	VPXOR Y15, Y7, Y7
	MOVLQSX 0(AX), R10
	TESTQ CX, CX
	JEQ done
	TESTQ R8, R8
	JEQ gloop
cloop:
	VPBROADCASTD 4(SI), Y9
	VPBROADCASTD 8(SI), Y10
	MOVLQSX 0(SI), R12
	ADDQ R10, R12
	MASKS(Y2, Y4)
	VMASKMOVPS (DX)(R12*4), Y11, Y13
	VMOVUPS Y13, 0(DI)
	MASKS(Y3, Y5)
	VMASKMOVPS 32(DX)(R12*4), Y11, Y14
	VMOVUPS Y14, 32(DI)
	ADDQ $12, SI
	ADDQ $64, DI
	DECQ CX
	JNE cloop
	JMP done
gloop:
	VPBROADCASTD 0(SI), Y8
	VPBROADCASTD 4(SI), Y9
	VPBROADCASTD 8(SI), Y10
	MASKS(Y2, Y4)
	VPADDD Y8, Y0, Y12
	VPXOR Y13, Y13, Y13
	VGATHERDPS Y11, (DX)(Y12*4), Y13
	VMOVUPS Y13, 0(DI)
	MASKS(Y3, Y5)
	VPADDD Y8, Y1, Y12
	VPXOR Y14, Y14, Y14
	VGATHERDPS Y11, (DX)(Y12*4), Y14
	VMOVUPS Y14, 32(DI)
	ADDQ $12, SI
	ADDQ $64, DI
	DECQ CX
	JNE gloop
done:
	VZEROUPPER
	RET
