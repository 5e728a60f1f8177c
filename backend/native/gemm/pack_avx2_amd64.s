// AVX2 packing for the 6×16 kernel (pack.go, convpack.go): B panels of
// 16 columns from a row-major B's partial last panel, a transposed B or
// an image (implicit im2col), and 6-row A panels of a row-major or
// transposed A, one or two vector moves per panel row where the Go loops
// spent a memmove call or a float at a time. (copyB16, a row-major B's
// full panels, is generated with copyB32 by gen/pack.go.) Written by hand.

//go:build amd64 && !purego

#include "textflag.h"

// pkMask<>: 16 all-ones words, then 16 zero words. The masks of a row's
// first n < 16 lanes are the two rows of 32 bytes from word 16-n on.
DATA pkMask<>+0(SB)/8, $0xffffffffffffffff
DATA pkMask<>+8(SB)/8, $0xffffffffffffffff
DATA pkMask<>+16(SB)/8, $0xffffffffffffffff
DATA pkMask<>+24(SB)/8, $0xffffffffffffffff
DATA pkMask<>+32(SB)/8, $0xffffffffffffffff
DATA pkMask<>+40(SB)/8, $0xffffffffffffffff
DATA pkMask<>+48(SB)/8, $0xffffffffffffffff
DATA pkMask<>+56(SB)/8, $0xffffffffffffffff
DATA pkMask<>+64(SB)/8, $0
DATA pkMask<>+72(SB)/8, $0
DATA pkMask<>+80(SB)/8, $0
DATA pkMask<>+88(SB)/8, $0
DATA pkMask<>+96(SB)/8, $0
DATA pkMask<>+104(SB)/8, $0
DATA pkMask<>+112(SB)/8, $0
DATA pkMask<>+120(SB)/8, $0
GLOBL pkMask<>(SB), RODATA|NOPTR, $128

// TRANSPOSE8 transposes the 8×8 block in Y0-Y7 (row i in Yi) into Y8-Y15
// (column j in Y(8+j)): pairs interleaved, then quads, then the 128-bit
// halves swapped. It clobbers Y0-Y7.
#define TRANSPOSE8 \
	VUNPCKLPS Y1, Y0, Y8 \
	VUNPCKHPS Y1, Y0, Y9 \
	VUNPCKLPS Y3, Y2, Y10 \
	VUNPCKHPS Y3, Y2, Y11 \
	VUNPCKLPS Y5, Y4, Y12 \
	VUNPCKHPS Y5, Y4, Y13 \
	VUNPCKLPS Y7, Y6, Y14 \
	VUNPCKHPS Y7, Y6, Y15 \
	VSHUFPS $0x44, Y10, Y8, Y0 \
	VSHUFPS $0xee, Y10, Y8, Y1 \
	VSHUFPS $0x44, Y11, Y9, Y2 \
	VSHUFPS $0xee, Y11, Y9, Y3 \
	VSHUFPS $0x44, Y14, Y12, Y4 \
	VSHUFPS $0xee, Y14, Y12, Y5 \
	VSHUFPS $0x44, Y15, Y13, Y6 \
	VSHUFPS $0xee, Y15, Y13, Y7 \
	VPERM2F128 $0x20, Y4, Y0, Y8 \
	VPERM2F128 $0x20, Y5, Y1, Y9 \
	VPERM2F128 $0x20, Y6, Y2, Y10 \
	VPERM2F128 $0x20, Y7, Y3, Y11 \
	VPERM2F128 $0x31, Y4, Y0, Y12 \
	VPERM2F128 $0x31, Y5, Y1, Y13 \
	VPERM2F128 $0x31, Y6, Y2, Y14 \
	VPERM2F128 $0x31, Y7, Y3, Y15

// func copyB16Part(dst, src *float32, ldb, kb, nn int)
// kb rows of one partial panel (its first 0 < nn < 16 columns) of a
// row-major B, the columns past nn zero: two masked loads (a masked-off
// lane neither reads nor faults) and two stores per row.
TEXT ·copyB16Part(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ldb+16(FP), DX
	MOVQ kb+24(FP), CX
	MOVQ nn+32(FP), AX
	SHLQ $2, DX
	NEGQ AX
	ADDQ $16, AX
	LEAQ pkMask<>(SB), BX
	VMOVDQU (BX)(AX*4), Y14
	VMOVDQU 32(BX)(AX*4), Y15
	TESTQ CX, CX
	JEQ cpdone
cprow:
	VMASKMOVPS (SI), Y14, Y0
	VMASKMOVPS 32(SI), Y15, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNE cprow
cpdone:
	VZEROUPPER
	RET

// func transposeB8(dst, src *float32, ldb, n8 int)
// 8 columns of a transposed B (each a contiguous run of k, ldb floats
// apart), 8 k steps at a time: eight ymm loaded, transposed in registers
// (pairs interleaved, then quads, then halves swapped), stored as the k
// steps' rows of half a 16-column panel (64 bytes apart).
TEXT ·transposeB8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ldb+16(FP), DX
	MOVQ n8+24(FP), CX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	LEAQ (SI)(DX*4), R8
	ADDQ DX, R8
	TESTQ CX, CX
	JEQ tbdone
tbloop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(DX*1), Y1
	VMOVUPS (SI)(DX*2), Y2
	VMOVUPS (SI)(BX*1), Y3
	VMOVUPS (SI)(DX*4), Y4
	VMOVUPS (R8), Y5
	VMOVUPS (SI)(BX*2), Y6
	VMOVUPS (R8)(DX*2), Y7
	TRANSPOSE8
	VMOVUPS Y8, 0(DI)
	VMOVUPS Y9, 64(DI)
	VMOVUPS Y10, 128(DI)
	VMOVUPS Y11, 192(DI)
	VMOVUPS Y12, 256(DI)
	VMOVUPS Y13, 320(DI)
	VMOVUPS Y14, 384(DI)
	VMOVUPS Y15, 448(DI)
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $512, DI
	DECQ CX
	JNE tbloop
tbdone:
	VZEROUPPER
	RET

// LOADA6 loads 8 k steps of the 6 rows of A (SI the first, DX bytes
// apart, BX = 3·DX, R8 = SI + 5·DX) into Y0-Y5, and zeros Y6, Y7.
#define LOADA6 \
	VMOVUPS (SI), Y0 \
	VMOVUPS (SI)(DX*1), Y1 \
	VMOVUPS (SI)(DX*2), Y2 \
	VMOVUPS (SI)(BX*1), Y3 \
	VMOVUPS (SI)(DX*4), Y4 \
	VMOVUPS (R8), Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7

// func transposeA6(p, src *float32, lda, n8 int)
// 8·n8 ≥ 8 k steps of a 6-row micro-panel of a row-major A (rows lda
// floats apart) into p, k-major (6 floats per step): each 8 steps loaded
// as 6 rows, transposed in registers, and stored as 8 floats per step 24
// bytes apart (the next step's store overwrites the two past it), the
// very last step's store masked to its 6 floats.
TEXT ·transposeA6(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lda+16(FP), DX
	MOVQ n8+24(FP), CX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	LEAQ (SI)(DX*4), R8
	ADDQ DX, R8
	DECQ CX
	JEQ talast
taloop:
	LOADA6
	TRANSPOSE8
	VMOVUPS Y8, 0(DI)
	VMOVUPS Y9, 24(DI)
	VMOVUPS Y10, 48(DI)
	VMOVUPS Y11, 72(DI)
	VMOVUPS Y12, 96(DI)
	VMOVUPS Y13, 120(DI)
	VMOVUPS Y14, 144(DI)
	VMOVUPS Y15, 168(DI)
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $192, DI
	DECQ CX
	JNE taloop
talast:
	LOADA6
	TRANSPOSE8
	VMOVUPS Y8, 0(DI)
	VMOVUPS Y9, 24(DI)
	VMOVUPS Y10, 48(DI)
	VMOVUPS Y11, 72(DI)
	VMOVUPS Y12, 96(DI)
	VMOVUPS Y13, 120(DI)
	VMOVUPS Y14, 144(DI)
	LEAQ pkMask<>(SB), AX
	VMOVDQU 40(AX), Y0
	VMASKMOVPS Y15, Y0, 168(DI)
	VZEROUPPER
	RET

// func copyA6T(p, src *float32, lda, kb int)
// One 6-row panel of a transposed A (each k step a run of 6 floats, lda
// floats apart), kb ≥ 1 steps: a masked load per step, stored as 8 floats
// (the next step overwrites the two past the panel row), the last step's
// store masked.
TEXT ·copyA6T(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lda+16(FP), DX
	MOVQ kb+24(FP), CX
	SHLQ $2, DX
	LEAQ pkMask<>(SB), BX
	VMOVDQU 40(BX), Y15
	DECQ CX
	JEQ calast
caloop:
	VMASKMOVPS (SI), Y15, Y0
	VMOVUPS Y0, (DI)
	ADDQ DX, SI
	ADDQ $24, DI
	DECQ CX
	JNE caloop
calast:
	VMASKMOVPS (SI), Y15, Y0
	VMASKMOVPS Y0, Y15, (DI)
	VZEROUPPER
	RET

// func copyA6T4(p, src *float32, lda, kb int)
// Four consecutive 6-row panels of a transposed A (panel i at p + 6·kb·i;
// each k step a run of 24 floats, lda floats apart), kb ≥ 1 steps: one
// run read per step for the four panels (copyA6T panel by panel read each
// source line four times, 4 KB strides evicting it in between), stored as
// 8 floats per panel row, the last step's stores masked.
TEXT ·copyA6T4(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lda+16(FP), DX
	MOVQ kb+24(FP), CX
	SHLQ $2, DX
	IMUL3Q $24, CX, R8
	LEAQ (DI)(R8*2), R9
	LEAQ pkMask<>(SB), BX
	VMOVDQU 40(BX), Y15
	DECQ CX
	JEQ c4last
c4loop:
	VMOVUPS (SI), Y0
	VMOVUPS 24(SI), Y1
	VMOVUPS 48(SI), Y2
	VMASKMOVPS 72(SI), Y15, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(R8*1)
	VMOVUPS Y2, (R9)
	VMOVUPS Y3, (R9)(R8*1)
	ADDQ DX, SI
	ADDQ $24, DI
	ADDQ $24, R9
	DECQ CX
	JNE c4loop
c4last:
	VMASKMOVPS (SI), Y15, Y0
	VMASKMOVPS 24(SI), Y15, Y1
	VMASKMOVPS 48(SI), Y15, Y2
	VMASKMOVPS 72(SI), Y15, Y3
	VMASKMOVPS Y0, Y15, (DI)
	VMASKMOVPS Y1, Y15, (DI)(R8*1)
	VMASKMOVPS Y2, Y15, (R9)
	VMASKMOVPS Y3, Y15, (R9)(R8*1)
	VZEROUPPER
	RET

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

// func gatherConv16(dst, img *float32, cols, taps *int32, kb int, hw *int32, contig int, masks *int32, period, ahead int)
// dst[16q + l] = img[off[l] + toff_q] for the k steps q < kb and the 16
// columns l of a panel, or 0 where the tap's row ty_q or column tx_q puts
// the position outside the H×W image (hw = {H, W}). cols points at the
// panel's 16 offsets in a column table (convPanelInts per 32 columns: the
// rows 32 ints on, the columns 64 on), taps holds (toff, ty, tx) per k
// step. contig says that the offsets are consecutive: one masked load per
// eight lanes instead of a gather. A tap's row and column, and so its
// lanes' masks, repeat every period k steps (the kernel's taps, channel
// after channel): with contig and period > 0, the masks of the first
// period steps are kept in masks (16 int32 per step) and read back for
// the later ones instead of computed again, and each of those steps
// prefetches the image where it reads, ahead bytes on (a later channel).
TEXT ·gatherConv16(SB), NOSPLIT, $0-80
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
	MOVQ period+64(FP), R9
	TESTQ R9, R9
	JEQ cloop
	// R13: the masks kept, R14: the next step's, BX: their end
	MOVQ masks+56(FP), R13
	MOVQ R13, R14
	MOVQ R9, BX
	SHLQ $6, BX
	ADDQ R13, BX
	MOVQ R9, R11
	CMPQ R11, CX
	CMOVQGT CX, R11 // the steps whose masks are made: min(period, kb)
	SUBQ R11, CX
cfirst:
	VPBROADCASTD 4(SI), Y9
	VPBROADCASTD 8(SI), Y10
	MOVLQSX 0(SI), R12
	ADDQ R10, R12
	MASKS(Y2, Y4)
	VMOVDQU Y11, 0(R14)
	VMASKMOVPS (DX)(R12*4), Y11, Y13
	VMOVUPS Y13, 0(DI)
	MASKS(Y3, Y5)
	VMOVDQU Y11, 32(R14)
	VMASKMOVPS 32(DX)(R12*4), Y11, Y14
	VMOVUPS Y14, 32(DI)
	ADDQ $12, SI
	ADDQ $64, DI
	ADDQ $64, R14
	DECQ R11
	JNE cfirst
	TESTQ CX, CX
	JEQ done
	MOVQ R13, R14
	MOVQ ahead+72(FP), R9
creuse:
	MOVLQSX 0(SI), R12
	ADDQ R10, R12
	LEAQ (DX)(R12*4), R8
	PREFETCHT0 (R8)(R9*1)
	PREFETCHT0 60(R8)(R9*1)
	VMOVDQU 0(R14), Y11
	VMOVDQU 32(R14), Y12
	VMASKMOVPS (DX)(R12*4), Y11, Y13
	VMASKMOVPS 32(DX)(R12*4), Y12, Y14
	VMOVUPS Y13, 0(DI)
	VMOVUPS Y14, 32(DI)
	ADDQ $12, SI
	ADDQ $64, DI
	ADDQ $64, R14
	CMPQ R14, BX
	CMOVQEQ R13, R14
	DECQ CX
	JNE creuse
	JMP done
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
