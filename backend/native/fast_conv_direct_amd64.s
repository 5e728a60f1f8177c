// The direct convolution tile (fast_conv_direct.go), AVX-512: an 8×32
// tile of C[r][j] = Σ_k a[8k + r] · b[offs[k] + j] (offs in bytes), the
// A panel packed (8 values per k step) and B read
// straight from zero-padded phase planes of the input at each tap's
// offset: the implicit GEMM without packing B. The first rows rows are
// stored, ldc floats apart. Written by a script.

//go:build amd64 && !purego

#include "textflag.h"

// func convTile8x32(kc int, a *float32, offs *int, b *float32, c *float32, ldc int, rows int)
TEXT ·convTile8x32(SB), NOSPLIT, $0-56
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ offs+16(FP), SI
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), DX
	SHLQ $2, DX
	MOVQ rows+48(FP), R9
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	TESTQ CX, CX
	JEQ store8
loop8:
	MOVQ (SI), R8
	VMOVUPS (BX)(R8*1), Z28
	VMOVUPS 64(BX)(R8*1), Z29
	VFMADD231PS.BCST 0(AX), Z28, Z0
	VFMADD231PS.BCST 0(AX), Z29, Z1
	VFMADD231PS.BCST 4(AX), Z28, Z2
	VFMADD231PS.BCST 4(AX), Z29, Z3
	VFMADD231PS.BCST 8(AX), Z28, Z4
	VFMADD231PS.BCST 8(AX), Z29, Z5
	VFMADD231PS.BCST 12(AX), Z28, Z6
	VFMADD231PS.BCST 12(AX), Z29, Z7
	VFMADD231PS.BCST 16(AX), Z28, Z8
	VFMADD231PS.BCST 16(AX), Z29, Z9
	VFMADD231PS.BCST 20(AX), Z28, Z10
	VFMADD231PS.BCST 20(AX), Z29, Z11
	VFMADD231PS.BCST 24(AX), Z28, Z12
	VFMADD231PS.BCST 24(AX), Z29, Z13
	VFMADD231PS.BCST 28(AX), Z28, Z14
	VFMADD231PS.BCST 28(AX), Z29, Z15
	ADDQ $32, AX
	ADDQ $8, SI
	DECQ CX
	JNE loop8
store8:
	CMPQ R9, $0
	JLE done8
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $1
	JLE done8
	VMOVUPS Z2, (DI)
	VMOVUPS Z3, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $2
	JLE done8
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $3
	JLE done8
	VMOVUPS Z6, (DI)
	VMOVUPS Z7, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $4
	JLE done8
	VMOVUPS Z8, (DI)
	VMOVUPS Z9, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $5
	JLE done8
	VMOVUPS Z10, (DI)
	VMOVUPS Z11, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $6
	JLE done8
	VMOVUPS Z12, (DI)
	VMOVUPS Z13, 64(DI)
	ADDQ DX, DI
	CMPQ R9, $7
	JLE done8
	VMOVUPS Z14, (DI)
	VMOVUPS Z15, 64(DI)
done8:
	VZEROUPPER
	RET
