//go:build amd64 && !purego

#include "textflag.h"
#include "transpose8_amd64.h"

// func transpose8x8F32(dst *byte, ldd int, src *byte, lds int)
// dst row j (ldd bytes apart), element i = src row i (lds bytes apart),
// element j: an 8×8 float32 block transposed in AVX registers.
TEXT ·transpose8x8F32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	LEAQ (CX)(CX*2), R8 // 3·lds
	LEAQ (SI)(CX*4), R9 // row 4
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(CX*1), Y1
	VMOVUPS (SI)(CX*2), Y2
	VMOVUPS (SI)(R8*1), Y3
	VMOVUPS (R9), Y4
	VMOVUPS (R9)(CX*1), Y5
	VMOVUPS (R9)(CX*2), Y6
	VMOVUPS (R9)(R8*1), Y7
	TRANSPOSE8
	LEAQ (DX)(DX*2), R8
	LEAQ (DI)(DX*4), R9
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, (DI)(DX*1)
	VMOVUPS Y10, (DI)(DX*2)
	VMOVUPS Y11, (DI)(R8*1)
	VMOVUPS Y12, (R9)
	VMOVUPS Y13, (R9)(DX*1)
	VMOVUPS Y14, (R9)(DX*2)
	VMOVUPS Y15, (R9)(R8*1)
	VZEROUPPER
	RET
