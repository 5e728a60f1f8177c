// The tail columns of a product whose last B micro-panel holds few of
// them (tileMul): one column at a time as dot products along k, A read
// in place (AVX2 with FMA).

//go:build amd64 && !purego

#include "textflag.h"

// STORE6 stores the six sums (X0: rows 0-3, X4: rows 4-5) to the first
// rows of c (tailArgs at AX: c, ldc, rows, set at 72-96): set
// overwrites, else adds. Then returns.
#define STORE6 \
	MOVQ 72(AX), DI \
	MOVQ 80(AX), R8 \
	MOVQ 88(AX), R9 \
	MOVQ 96(AX), R10 \
	MOVQ $0, CX \
storeloop: \
	CMPQ CX, R9 \
	JGE done \
	CMPQ CX, $4 \
	JNE notfour \
	VMOVAPS X4, X0 \
notfour: \
	TESTQ R10, R10 \
	JNE storeset \
	VADDSS (DI), X0, X1 \
	VMOVSS X1, (DI) \
	JMP storenext \
storeset: \
	VMOVSS X0, (DI) \
storenext: \
	VPERMILPS $0x39, X0, X0 \
	ADDQ R8, DI \
	INCQ CX \
	JMP storeloop \
done: \
	VZEROUPPER \
	RET

// func dotTail6(p *tailArgs)
// For each row r < rows (at most 6): c[r] = (set) or += Σ_{k<kb}
// a_r[k] · b[k·bs], with a_r the row pointers (rows past the last point
// at the last), b's elements bs bytes apart and c's rows ldc bytes apart.
// Eight k steps at a time, one sum per lane, then the lanes added in a
// tree and the last kb mod 8 steps one by one.
TEXT ·dotTail6(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	MOVQ 0(AX), SI
	MOVQ 8(AX), DI
	MOVQ 16(AX), R8
	MOVQ 24(AX), R9
	MOVQ 32(AX), R10
	MOVQ 40(AX), R11
	MOVQ 48(AX), BX  // b
	MOVQ 56(AX), R12 // bs
	MOVQ 64(AX), CX  // kb
	LEAQ (R12)(R12*2), R13 // 3·bs
	LEAQ (BX)(R12*4), R14  // b + 4·bs
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	MOVQ CX, DX
	SHRQ $3, DX
	JEQ reduce
loop8:
	VMOVSS (BX), X6
	VINSERTPS $0x10, (BX)(R12*1), X6, X6
	VINSERTPS $0x20, (BX)(R12*2), X6, X6
	VINSERTPS $0x30, (BX)(R13*1), X6, X6
	VMOVSS (R14), X7
	VINSERTPS $0x10, (R14)(R12*1), X7, X7
	VINSERTPS $0x20, (R14)(R12*2), X7, X7
	VINSERTPS $0x30, (R14)(R13*1), X7, X7
	VINSERTF128 $1, X7, Y6, Y6
	VFMADD231PS (SI), Y6, Y0
	VFMADD231PS (DI), Y6, Y1
	VFMADD231PS (R8), Y6, Y2
	VFMADD231PS (R9), Y6, Y3
	VFMADD231PS (R10), Y6, Y4
	VFMADD231PS (R11), Y6, Y5
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	LEAQ (BX)(R12*8), BX
	LEAQ (R14)(R12*8), R14
	DECQ DX
	JNE loop8
reduce:
	// each sum's eight lanes: halves, then pairs, then the last two
	VEXTRACTF128 $1, Y0, X8
	VADDPS X8, X0, X0
	VEXTRACTF128 $1, Y1, X8
	VADDPS X8, X1, X1
	VEXTRACTF128 $1, Y2, X8
	VADDPS X8, X2, X2
	VEXTRACTF128 $1, Y3, X8
	VADDPS X8, X3, X3
	VEXTRACTF128 $1, Y4, X8
	VADDPS X8, X4, X4
	VEXTRACTF128 $1, Y5, X8
	VADDPS X8, X5, X5
	VHADDPS X1, X0, X0 // (r0 pairs, r1 pairs)
	VHADDPS X3, X2, X2
	VHADDPS X5, X4, X4
	VHADDPS X2, X0, X0 // lanes: r0, r1, r2, r3
	VHADDPS X4, X4, X4 // lanes: r4, r5, r4, r5
	ANDQ $7, CX
	JEQ store
tail:
	VMOVSS (BX), X6
	VBROADCASTSS X6, X6
	VMOVSS (SI), X7
	VINSERTPS $0x10, (DI), X7, X7
	VINSERTPS $0x20, (R8), X7, X7
	VINSERTPS $0x30, (R9), X7, X7
	VFMADD231PS X7, X6, X0
	VMOVSS (R10), X7
	VINSERTPS $0x10, (R11), X7, X7
	VFMADD231PS X7, X6, X4
	ADDQ $4, SI
	ADDQ $4, DI
	ADDQ $4, R8
	ADDQ $4, R9
	ADDQ $4, R10
	ADDQ $4, R11
	ADDQ R12, BX
	DECQ CX
	JNE tail
store:
	STORE6

// func dotTailP6(p *tailArgs)
// dotTail6 for a packed A micro-panel (six rows side by side per k step,
// rows past the last zero): per k step the rows' six values in one
// vector times the column's value broadcast, four k steps in flight on
// four sums, added at the end; the first rows of the sum are stored.
TEXT ·dotTailP6(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	MOVQ 0(AX), SI   // a[0]: the panel
	MOVQ 48(AX), BX  // b
	MOVQ 56(AX), R12 // bs
	MOVQ 64(AX), CX  // kb
	LEAQ (R12)(R12*2), R13 // 3·bs
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ CX, DX
	SHRQ $2, DX
	JEQ ptail
ploop4:
	VMOVUPS 0(SI), X4
	VMOVSD 16(SI), X5
	VINSERTF128 $1, X5, Y4, Y4
	VBROADCASTSS (BX), Y5
	VFMADD231PS Y5, Y4, Y0
	VMOVUPS 24(SI), X6
	VMOVSD 40(SI), X7
	VINSERTF128 $1, X7, Y6, Y6
	VBROADCASTSS (BX)(R12*1), Y7
	VFMADD231PS Y7, Y6, Y1
	VMOVUPS 48(SI), X8
	VMOVSD 64(SI), X9
	VINSERTF128 $1, X9, Y8, Y8
	VBROADCASTSS (BX)(R12*2), Y9
	VFMADD231PS Y9, Y8, Y2
	VMOVUPS 72(SI), X10
	VMOVSD 88(SI), X11
	VINSERTF128 $1, X11, Y10, Y10
	VBROADCASTSS (BX)(R13*1), Y11
	VFMADD231PS Y11, Y10, Y3
	ADDQ $96, SI
	LEAQ (BX)(R12*4), BX
	DECQ DX
	JNE ploop4
ptail:
	ANDQ $3, CX
	JEQ psum
ptailloop:
	VMOVUPS 0(SI), X4
	VMOVSD 16(SI), X5
	VINSERTF128 $1, X5, Y4, Y4
	VBROADCASTSS (BX), Y5
	VFMADD231PS Y5, Y4, Y0
	ADDQ $24, SI
	ADDQ R12, BX
	DECQ CX
	JNE ptailloop
psum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X4 // rows 4, 5
	STORE6
