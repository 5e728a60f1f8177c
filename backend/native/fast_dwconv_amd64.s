// The stride-2 deinterleave of the direct depthwise convolution
// (fast_dwconv.go) and its AVX-512 row kernel; the AVX2 row kernel is
// generated (fast_dwrows_amd64.s, internal/dwgen).

//go:build amd64 && !purego

#include "textflag.h"

// func evensRows(d, s *float32, n, rows, dStride, sStride int)
// Per row: d[j] = s[2j] for j < n (reading s[0, 2n-1) only), then d and s
// move on by their strides (floats). 8 at a time while the odd partner of
// the block's last element is inside the row, then one by one.
TEXT ·evensRows(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ dStride+32(FP), R9
	MOVQ sStride+40(FP), R10
	SHLQ $2, R9
	SHLQ $2, R10

evrow:
	TESTQ R8, R8
	JLE evdone
	XORQ AX, AX // j
	MOVQ SI, BX

evvec:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JAE evscalar
	VMOVUPS (BX), Y0
	VMOVUPS 32(BX), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VPERMPD $0xd8, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ $64, BX
	MOVQ DX, AX
	JMP evvec

evscalar:
	CMPQ AX, CX
	JAE evnext
	MOVL (BX), DX
	MOVL DX, (DI)(AX*4)
	ADDQ $8, BX
	INCQ AX
	JMP evscalar

evnext:
	ADDQ R9, DI
	ADDQ R10, SI
	DECQ R8
	JMP evrow

evdone:
	VZEROUPPER
	RET

// func dwRows512(p *dwArgs)
// dwRows with AVX-512: columns 64 at a time (four accumulators), then 16,
// then a tail masked by K1; the same taps in the same order.
TEXT ·dwRows512(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 16(R8), R9
	MOVQ 24(R8), R10
	MOVQ 32(R8), R11
	MOVQ 40(R8), CX
	MOVQ 48(R8), R12
	MOVQ CX, BX
	ANDQ $-16, BX
	MOVQ CX, R14
	SUBQ $64, R14 // last start of a 64-column block
	// K1: the lanes of the tail (n%16)
	MOVQ CX, R13
	ANDQ $15, R13
	MOVQ $1, AX
	SHLXQ R13, AX, AX
	DECQ AX
	KMOVW AX, K1

zrow:
	TESTQ R12, R12
	JLE zdone
	XORQ AX, AX

zloop64:
	CMPQ AX, R14
	JG zloop16
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	XORQ DX, DX

ztap64:
	MOVQ (R9)(DX*8), R13
	ADDQ SI, R13
	LEAQ (R13)(AX*4), R13
	VBROADCASTSS (R10)(DX*4), Z4
	VFMADD231PS (R13), Z4, Z0
	VFMADD231PS 64(R13), Z4, Z1
	VFMADD231PS 128(R13), Z4, Z2
	VFMADD231PS 192(R13), Z4, Z3
	INCQ DX
	CMPQ DX, R11
	JB ztap64
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	VMOVUPS Z2, 128(DI)(AX*4)
	VMOVUPS Z3, 192(DI)(AX*4)
	ADDQ $64, AX
	JMP zloop64

zloop16:
	CMPQ AX, BX
	JAE ztail
	VPXORD Z0, Z0, Z0
	XORQ DX, DX

ztap16:
	MOVQ (R9)(DX*8), R13
	ADDQ SI, R13
	VBROADCASTSS (R10)(DX*4), Z4
	VFMADD231PS (R13)(AX*4), Z4, Z0
	INCQ DX
	CMPQ DX, R11
	JB ztap16
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ $16, AX
	JMP zloop16

ztail:
	CMPQ AX, CX
	JAE znext
	VPXORD Z0, Z0, Z0
	XORQ DX, DX

ztaptail:
	MOVQ (R9)(DX*8), R13
	ADDQ SI, R13
	LEAQ (R13)(AX*4), R13
	VMOVUPS.Z (R13), K1, Z5
	VBROADCASTSS (R10)(DX*4), Z4
	VFMADD231PS Z5, Z4, Z0
	INCQ DX
	CMPQ DX, R11
	JB ztaptail
	VMOVUPS Z0, K1, (DI)(AX*4)

znext:
	ADDQ 56(R8), DI
	ADDQ 64(R8), SI
	DECQ R12
	JMP zrow

zdone:
	VZEROUPPER
	RET
