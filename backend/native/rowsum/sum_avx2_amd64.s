// Float32 sums in 64 slots and vector maxima, AVX2 forms (sum.go): the
// same slots, lanes and trees as sum_amd64.s's AVX-512 loops, so both
// give the same bits. Written by hand.

//go:build amd64 && !purego

#include "textflag.h"
#include "sum_amd64.h"

// ymTail<>: 64 all-ones words, then 64 zero words. The eight masks of a
// row's last t < 64 elements (lane i of accumulator k set when 8k+i < t)
// are the eight rows of 32 bytes from word 64-t on.
DATA ymTail<>+0(SB)/8, $0xffffffffffffffff
DATA ymTail<>+8(SB)/8, $0xffffffffffffffff
DATA ymTail<>+16(SB)/8, $0xffffffffffffffff
DATA ymTail<>+24(SB)/8, $0xffffffffffffffff
DATA ymTail<>+32(SB)/8, $0xffffffffffffffff
DATA ymTail<>+40(SB)/8, $0xffffffffffffffff
DATA ymTail<>+48(SB)/8, $0xffffffffffffffff
DATA ymTail<>+56(SB)/8, $0xffffffffffffffff
DATA ymTail<>+64(SB)/8, $0xffffffffffffffff
DATA ymTail<>+72(SB)/8, $0xffffffffffffffff
DATA ymTail<>+80(SB)/8, $0xffffffffffffffff
DATA ymTail<>+88(SB)/8, $0xffffffffffffffff
DATA ymTail<>+96(SB)/8, $0xffffffffffffffff
DATA ymTail<>+104(SB)/8, $0xffffffffffffffff
DATA ymTail<>+112(SB)/8, $0xffffffffffffffff
DATA ymTail<>+120(SB)/8, $0xffffffffffffffff
DATA ymTail<>+128(SB)/8, $0xffffffffffffffff
DATA ymTail<>+136(SB)/8, $0xffffffffffffffff
DATA ymTail<>+144(SB)/8, $0xffffffffffffffff
DATA ymTail<>+152(SB)/8, $0xffffffffffffffff
DATA ymTail<>+160(SB)/8, $0xffffffffffffffff
DATA ymTail<>+168(SB)/8, $0xffffffffffffffff
DATA ymTail<>+176(SB)/8, $0xffffffffffffffff
DATA ymTail<>+184(SB)/8, $0xffffffffffffffff
DATA ymTail<>+192(SB)/8, $0xffffffffffffffff
DATA ymTail<>+200(SB)/8, $0xffffffffffffffff
DATA ymTail<>+208(SB)/8, $0xffffffffffffffff
DATA ymTail<>+216(SB)/8, $0xffffffffffffffff
DATA ymTail<>+224(SB)/8, $0xffffffffffffffff
DATA ymTail<>+232(SB)/8, $0xffffffffffffffff
DATA ymTail<>+240(SB)/8, $0xffffffffffffffff
DATA ymTail<>+248(SB)/8, $0xffffffffffffffff
DATA ymTail<>+256(SB)/8, $0
DATA ymTail<>+264(SB)/8, $0
DATA ymTail<>+272(SB)/8, $0
DATA ymTail<>+280(SB)/8, $0
DATA ymTail<>+288(SB)/8, $0
DATA ymTail<>+296(SB)/8, $0
DATA ymTail<>+304(SB)/8, $0
DATA ymTail<>+312(SB)/8, $0
DATA ymTail<>+320(SB)/8, $0
DATA ymTail<>+328(SB)/8, $0
DATA ymTail<>+336(SB)/8, $0
DATA ymTail<>+344(SB)/8, $0
DATA ymTail<>+352(SB)/8, $0
DATA ymTail<>+360(SB)/8, $0
DATA ymTail<>+368(SB)/8, $0
DATA ymTail<>+376(SB)/8, $0
DATA ymTail<>+384(SB)/8, $0
DATA ymTail<>+392(SB)/8, $0
DATA ymTail<>+400(SB)/8, $0
DATA ymTail<>+408(SB)/8, $0
DATA ymTail<>+416(SB)/8, $0
DATA ymTail<>+424(SB)/8, $0
DATA ymTail<>+432(SB)/8, $0
DATA ymTail<>+440(SB)/8, $0
DATA ymTail<>+448(SB)/8, $0
DATA ymTail<>+456(SB)/8, $0
DATA ymTail<>+464(SB)/8, $0
DATA ymTail<>+472(SB)/8, $0
DATA ymTail<>+480(SB)/8, $0
DATA ymTail<>+488(SB)/8, $0
DATA ymTail<>+496(SB)/8, $0
DATA ymTail<>+504(SB)/8, $0
GLOBL ymTail<>(SB), RODATA|NOPTR, $512

// ymNegInf<>: -Inf, for the lanes past a row's end.
DATA ymNegInf<>+0(SB)/4, $0xff800000
GLOBL ymNegInf<>(SB), RODATA|NOPTR, $4

// func sum64addY(acc *[64]float32, x *float32, blocks int)
// sum64add in eight accumulators of eight lanes (slot j: accumulator j/8,
// lane j%8).
TEXT ·sum64addY(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	TESTQ CX, CX
	JEQ adone
aloop:
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	VADDPS 128(SI), Y4, Y4
	VADDPS 160(SI), Y5, Y5
	VADDPS 192(SI), Y6, Y6
	VADDPS 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ CX
	JNE aloop
adone:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VZEROUPPER
	RET

// TAILADD adds the masked lanes of the 32 bytes at off(SI) into acc and
// leaves its other lanes as they are (a masked load reads zeros there,
// and -0 + 0 would be +0): mask off(R13) in Y8, the sum blended in.
#define TAILADD(off, acc) \
	VMOVDQU off(R13), Y8 \
	VMASKMOVPS off(SI), Y8, Y9 \
	VADDPS Y9, acc, Y9 \
	VBLENDVPS Y8, Y9, acc, acc

// func sumRowsY(x *float32, n, rows int, d *float32)
// sumRows32x in eight accumulators of eight lanes: element i in slot
// i%64, the last n%64 under masks (set once: R13), then the AVX-512 form's
// tree: slots j, 16+j, 32+j, 48+j pairwise into sixteen lanes (Y0 lanes
// 0-7, Y1 lanes 8-15), then the lanes by halves.
TEXT ·sumRowsY(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), R8
	MOVQ d+24(FP), DI
	MOVQ CX, R11
	SHRQ $6, R11
	MOVQ CX, R12
	ANDQ $63, R12
	MOVQ $64, AX
	SUBQ R12, AX
	LEAQ ymTail<>(SB), R13
	LEAQ (R13)(AX*4), R13
	TESTQ R8, R8
	JEQ rdone
rrow:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ R11, BX
	TESTQ BX, BX
	JEQ rtail
rloop:
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	VADDPS 128(SI), Y4, Y4
	VADDPS 160(SI), Y5, Y5
	VADDPS 192(SI), Y6, Y6
	VADDPS 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ BX
	JNE rloop
rtail:
	TESTQ R12, R12
	JEQ rred
	TAILADD(0, Y0)
	TAILADD(32, Y1)
	TAILADD(64, Y2)
	TAILADD(96, Y3)
	TAILADD(128, Y4)
	TAILADD(160, Y5)
	TAILADD(192, Y6)
	TAILADD(224, Y7)
	LEAQ (SI)(R12*4), SI
rred:
	VADDPS Y2, Y0, Y0
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y7, Y5, Y5
	VADDPS Y5, Y1, Y1
	VADDPS Y1, Y0, Y0
	LANES8(VADDPS, VADDSS)
	DECQ R8
	JNE rrow
rdone:
	VZEROUPPER
	RET

// MAXFOLD folds the sixteen values in Y2, Y3 into the running maxima Y0,
// Y1 (x86's max: the value loaded unless the running one is greater) and
// ORs their NaN lanes into Y6.
#define MAXFOLD \
	VCMPPS $3, Y2, Y2, Y4 \
	VCMPPS $3, Y3, Y3, Y5 \
	VORPS Y4, Y6, Y6 \
	VORPS Y5, Y6, Y6 \
	VMAXPS Y2, Y0, Y0 \
	VMAXPS Y3, Y1, Y1

// func maxRowsY(x *float32, n, rows int, d *float32, nan *bool)
// maxRows32x in two accumulators of eight lanes (the AVX-512 form's
// sixteen lanes: Y0 lanes 0-7, Y1 lanes 8-15), the last n%16 elements
// under masks (R13; the lanes past the end -Inf), the NaN lanes ORed in
// Y6, then the same tree: the halves, 4, 2 and 1 apart.
TEXT ·maxRowsY(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), R8
	MOVQ d+24(FP), DI
	MOVQ nan+32(FP), R9
	MOVQ CX, R11
	SHRQ $4, R11
	MOVQ CX, R12
	ANDQ $15, R12
	MOVQ $64, AX
	SUBQ R12, AX
	LEAQ ymTail<>(SB), R13
	LEAQ (R13)(AX*4), R13
	VBROADCASTSS ymNegInf<>(SB), Y7
	TESTQ R8, R8
	JEQ xdone
xrow:
	VMOVAPS Y7, Y0
	VMOVAPS Y7, Y1
	VXORPS Y6, Y6, Y6
	MOVQ R11, BX
	TESTQ BX, BX
	JEQ xtail
xloop:
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	MAXFOLD
	ADDQ $64, SI
	DECQ BX
	JNE xloop
xtail:
	TESTQ R12, R12
	JEQ xred
	VMOVDQU (R13), Y8
	VMASKMOVPS (SI), Y8, Y2
	VBLENDVPS Y8, Y2, Y7, Y2
	VMOVDQU 32(R13), Y8
	VMASKMOVPS 32(SI), Y8, Y3
	VBLENDVPS Y8, Y3, Y7, Y3
	MAXFOLD
	LEAQ (SI)(R12*4), SI
xred:
	VMAXPS Y1, Y0, Y0
	LANES8(VMAXPS, VMAXSS)
	VMOVMSKPS Y6, AX
	TESTL AX, AX
	SETNE (R9)
	INCQ R9
	DECQ R8
	JNE xrow
xdone:
	VZEROUPPER
	RET
