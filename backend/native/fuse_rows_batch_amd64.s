// AVX-512 loops of a row chain's steps over a block of rows
// (fuse_rows_batch_amd64.go): d = a op b where a and b are rows that
// advance by a stride each (zero: the same row for every row, a layer
// norm's weight), and d = a op v[r] or v[r] op a with one value per row
// (a mean, a reciprocal standard deviation). Each row is the loop of
// BINRR, BINRS or BINSR (fuse_rows_simd_amd64.h) on its AVX-512 path:
// sixteen lanes a step, the last n%16 under a k-mask, the operands in the
// same order, so the bits are those of a call per row. The caller
// checks rowsWide.

//go:build amd64 && !purego

#include "textflag.h"

// ROWHEAD loads the shared registers: DI d, SI a, CX n, R8 rows, R11 a's
// stride in bytes, BX n rounded down to 16, K1 the mask of n%16 lanes.
#define ROWHEAD \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ n+24(FP), CX \
	MOVQ rows+32(FP), R8 \
	MOVQ sa+40(FP), R11 \
	SHLQ $2, R11 \
	MOVQ CX, BX \
	ANDQ $-16, BX \
	MOVQ CX, R9 \
	SUBQ BX, R9 \
	MOVQ $1, R10 \
	SHLXQ R9, R10, R10 \
	DECQ R10 \
	KMOVW R10, K1 \
	TESTQ R8, R8 \
	JEQ done \
	TESTQ CX, CX \
	JEQ done

// d[r·n+j] = a[r·sa+j] op b[r·sb+j]
#define ROWSRR(name, op) \
TEXT name(SB), NOSPLIT, $0-56 \
	MOVQ b+16(FP), DX \
	MOVQ sb+48(FP), R12 \
	SHLQ $2, R12 \
	ROWHEAD \
row: \
	XORQ AX, AX \
inner: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Z0 \
	op (DX)(AX*4), Z0, Z1 \
	VMOVUPS Z1, (DI)(AX*4) \
	ADDQ $16, AX \
	JMP inner \
tail: \
	CMPQ AX, CX \
	JAE next \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	VMOVUPS.Z (DX)(AX*4), K1, Z2 \
	op Z2, Z0, Z1 \
	VMOVUPS Z1, K1, (DI)(AX*4) \
next: \
	LEAQ (DI)(CX*4), DI \
	ADDQ R11, SI \
	ADDQ R12, DX \
	DECQ R8 \
	JNE row \
done: \
	VZEROUPPER \
	RET

// d[r·n+j] = a[r·sa+j] op v[r]
#define ROWSRV(name, op) \
TEXT name(SB), NOSPLIT, $0-48 \
	MOVQ v+16(FP), DX \
	ROWHEAD \
row: \
	VBROADCASTSS (DX), Z2 \
	XORQ AX, AX \
inner: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Z0 \
	op Z2, Z0, Z1 \
	VMOVUPS Z1, (DI)(AX*4) \
	ADDQ $16, AX \
	JMP inner \
tail: \
	CMPQ AX, CX \
	JAE next \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	op Z2, Z0, Z1 \
	VMOVUPS Z1, K1, (DI)(AX*4) \
next: \
	LEAQ (DI)(CX*4), DI \
	ADDQ R11, SI \
	ADDQ $4, DX \
	DECQ R8 \
	JNE row \
done: \
	VZEROUPPER \
	RET

// d[r·n+j] = v[r] op a[r·sa+j]
#define ROWSVR(name, op) \
TEXT name(SB), NOSPLIT, $0-48 \
	MOVQ v+16(FP), DX \
	ROWHEAD \
row: \
	VBROADCASTSS (DX), Z2 \
	XORQ AX, AX \
inner: \
	CMPQ AX, BX \
	JAE tail \
	op (SI)(AX*4), Z2, Z1 \
	VMOVUPS Z1, (DI)(AX*4) \
	ADDQ $16, AX \
	JMP inner \
tail: \
	CMPQ AX, CX \
	JAE next \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	op Z0, Z2, Z1 \
	VMOVUPS Z1, K1, (DI)(AX*4) \
next: \
	LEAQ (DI)(CX*4), DI \
	ADDQ R11, SI \
	ADDQ $4, DX \
	DECQ R8 \
	JNE row \
done: \
	VZEROUPPER \
	RET

// func addRows32(d, a, b *float32, n, rows, sa, sb int)
ROWSRR(·addRows32, VADDPS)

// func subRows32(d, a, b *float32, n, rows, sa, sb int)
ROWSRR(·subRows32, VSUBPS)

// func mulRows32(d, a, b *float32, n, rows, sa, sb int)
ROWSRR(·mulRows32, VMULPS)

// func divRows32(d, a, b *float32, n, rows, sa, sb int)
ROWSRR(·divRows32, VDIVPS)

// func addRowsV32(d, a, v *float32, n, rows, sa int)
ROWSRV(·addRowsV32, VADDPS)

// func subRowsV32(d, a, v *float32, n, rows, sa int)
ROWSRV(·subRowsV32, VSUBPS)

// func mulRowsV32(d, a, v *float32, n, rows, sa int)
ROWSRV(·mulRowsV32, VMULPS)

// func divRowsV32(d, a, v *float32, n, rows, sa int)
ROWSRV(·divRowsV32, VDIVPS)

// func addVRows32(d, a, v *float32, n, rows, sa int)
ROWSVR(·addVRows32, VADDPS)

// func subVRows32(d, a, v *float32, n, rows, sa int)
ROWSVR(·subVRows32, VSUBPS)

// func mulVRows32(d, a, v *float32, n, rows, sa int)
ROWSVR(·mulVRows32, VMULPS)

// func divVRows32(d, a, v *float32, n, rows, sa int)
ROWSVR(·divVRows32, VDIVPS)

// func selMask32(d, x *float32, m *byte, c float32, n int, keep bool)
// d[j] = x[j] where m[j] is keep (a bool is true where its byte is not
// zero), else c: a select between the chain's value and a constant by a
// mask tensor (attention's causal mask), a bitwise pick as the fused
// select's. Sixteen lanes a step, the last n%16 under a k-mask (the mask's
// bytes past n are not read).
TEXT ·selMask32(SB), NOSPLIT, $0-41
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), DX
	VBROADCASTSS c+24(FP), Z3
	MOVQ n+32(FP), CX
	MOVBLZX keep+40(FP), R8
	MOVQ CX, BX
	ANDQ $-16, BX
	XORQ AX, AX
mloop:
	CMPQ AX, BX
	JAE mtail
	VPMOVZXBD (DX)(AX*1), Z1
	VPTESTMD Z1, Z1, K2
	TESTQ R8, R8
	JNE mkeep
	KNOTW K2, K2
mkeep:
	VMOVUPS (SI)(AX*4), Z0
	VBLENDMPS Z0, Z3, K2, Z4
	VMOVUPS Z4, (DI)(AX*4)
	ADDQ $16, AX
	JMP mloop
mtail:
	CMPQ AX, CX
	JAE mdone
	MOVQ CX, R9
	SUBQ AX, R9
	MOVQ $1, R10
	SHLXQ R9, R10, R10
	DECQ R10
	KMOVW R10, K1
	VPMOVZXBD.Z (DX)(AX*1), K1, Z1
	VPTESTMD Z1, Z1, K2
	TESTQ R8, R8
	JNE mtkeep
	KNOTW K2, K2
mtkeep:
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	VBLENDMPS Z0, Z3, K2, Z4
	VMOVUPS Z4, K1, (DI)(AX*4)
mdone:
	VZEROUPPER
	RET
