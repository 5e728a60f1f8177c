// Float32 sums in 64 slots (sum.go). Written by hand.

//go:build amd64 && !purego

#include "textflag.h"
#include "sum_amd64.h"

// func sum64add(acc *[64]float32, x *float32, blocks int)
// acc[j] += x[64b + j] for every block b < blocks and slot j < 64: four
// accumulators of sixteen lanes, loaded, added to block by block, stored.
TEXT ·sum64addZ(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	TESTQ CX, CX
	JEQ sdone
sloop:
	VADDPS (SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	ADDQ $256, SI
	DECQ CX
	JNE sloop
sdone:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VZEROUPPER
	RET

// vmNegInf<>: -Inf, for the lanes past a row's end.
DATA vmNegInf<>+0(SB)/4, $0xff800000
GLOBL vmNegInf<>(SB), RODATA|NOPTR, $4

// func sumRows32x(x *float32, n, rows int, d *float32)
// d[r] = the slots' total of row r of x (rows of n ≥ 1 elements end to
// end; rowSum.add then rowSum.total): element i in slot i%64, four
// accumulators of sixteen lanes (the last n%64 elements added under a
// mask, the other lanes left as they are), then the same tree as total:
// accumulators pairwise, lanes by halves. The masks are set once.
TEXT ·sumRows32xZ(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), R8
	MOVQ d+24(FP), DI
	MOVQ CX, R11
	SHRQ $6, R11
	MOVQ CX, AX
	ANDQ $63, AX
	MOVQ AX, R12
	MOVQ $1, DX
	SHLXQ AX, DX, DX
	DECQ DX
	KMOVW DX, K1
	SHRQ $16, DX
	KMOVW DX, K2
	SHRQ $16, DX
	KMOVW DX, K3
	SHRQ $16, DX
	KMOVW DX, K4
	TESTQ R8, R8
	JEQ rdone
rrow:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ R11, BX
	TESTQ BX, BX
	JEQ rtail
rloop:
	VADDPS (SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	ADDQ $256, SI
	DECQ BX
	JNE rloop
rtail:
	TESTQ R12, R12
	JEQ rred
	VADDPS (SI), Z0, K1, Z0
	VADDPS 64(SI), Z1, K2, Z1
	VADDPS 128(SI), Z2, K3, Z2
	VADDPS 192(SI), Z3, K4, Z3
	LEAQ (SI)(R12*4), SI
rred:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS Y1, Y0, Y0
	LANES8(VADDPS, VADDSS)
	DECQ R8
	JNE rrow
rdone:
	VZEROUPPER
	RET

// func maxRows32x(x *float32, n, rows int, d *float32, nan *bool)
// d[r] = the maximum of row r of x (rows of n ≥ 1 elements end to end) in
// sixteen lanes, the last n%16 masked to -Inf (the mask set once), and
// nan[r] whether an element was NaN (then d[r] is not the fold's).
TEXT ·maxRows32xZ(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), R8
	MOVQ d+24(FP), DI
	MOVQ nan+32(FP), R9
	MOVQ CX, R11
	SHRQ $4, R11
	MOVQ CX, R12
	ANDQ $15, R12
	MOVQ $1, AX
	SHLXQ R12, AX, AX
	DECQ AX
	KMOVW AX, K1
	VBROADCASTSS vmNegInf<>(SB), Z7
	TESTQ R8, R8
	JEQ xdone
xrow:
	VMOVAPS Z7, Z0
	KXORW K2, K2, K2
	MOVQ R11, BX
	TESTQ BX, BX
	JEQ xtail
xloop:
	VMOVUPS (SI), Z1
	VCMPPS $3, Z1, Z1, K3
	KORW K3, K2, K2
	VMAXPS Z1, Z0, Z0
	ADDQ $64, SI
	DECQ BX
	JNE xloop
xtail:
	TESTQ R12, R12
	JEQ xred
	VMOVAPS Z7, Z1
	VMOVUPS (SI), K1, Z1
	VCMPPS $3, Z1, Z1, K3
	KORW K3, K2, K2
	VMAXPS Z1, Z0, Z0
	LEAQ (SI)(R12*4), SI
xred:
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPS Y1, Y0, Y0
	LANES8(VMAXPS, VMAXSS)
	KMOVW K2, AX
	TESTW AX, AX
	SETNE (R9)
	INCQ R9
	DECQ R8
	JNE xrow
xdone:
	VZEROUPPER
	RET
