// Matrix-vector rows (fast_gemv.go): y[r] = Σ_p x[p]·w[r·ldw+p] for four
// rows at a time, 32 k steps per iteration on two accumulators per row,
// the last k%16 steps masked by K1. Written by hand.
//
// For rows of at most 2048 steps, each iteration also prefetches the next
// four rows' bytes as far as it reads the current ones (R12 runs one group
// of rows ahead): the hardware's stream prefetcher, which follows each
// row, starts afresh on every short row and trails behind. A row of 240
// steps read from memory went 9.7 → 17 GB/s; on rows of 4096 steps and
// more the group ahead is farther than the first-level cache holds (20 →
// 16 GB/s), and the hardware keeps up on its own.
//
// gemvBlocks16, below, reads weights packed once (a frozen weight's
// copy) in blocks of 16 rows, k-major: one stream per block, which the
// hardware prefetcher follows from start to end.

//go:build amd64 && !purego

#include "textflag.h"

// func gemvRows4(x, w *float32, k, ldw int, y *float32, rows int, mask int)
TEXT ·gemvRows4(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ k+16(FP), CX
	MOVQ ldw+24(FP), R8
	SHLQ $2, R8
	MOVQ y+32(FP), DX
	MOVQ rows+40(FP), R15
	MOVQ mask+48(FP), AX
	KMOVW AX, K1
	SHRQ $2, R15
	JEQ done
rowloop:
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	XORQ AX, AX
	MOVQ CX, BX
	SHRQ $5, BX
	JEQ tail16
loop32:
	VMOVUPS (SI)(AX*1), Z16
	VMOVUPS 64(SI)(AX*1), Z17
	VFMADD231PS (DI)(AX*1), Z16, Z0
	VFMADD231PS 64(DI)(AX*1), Z17, Z1
	VFMADD231PS (R9)(AX*1), Z16, Z2
	VFMADD231PS 64(R9)(AX*1), Z17, Z3
	VFMADD231PS (R10)(AX*1), Z16, Z4
	VFMADD231PS 64(R10)(AX*1), Z17, Z5
	VFMADD231PS (R11)(AX*1), Z16, Z6
	VFMADD231PS 64(R11)(AX*1), Z17, Z7
	CMPQ CX, $2048
	JGT next32 // long rows: no prefetch
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	PREFETCHT0 128(R12)
	PREFETCHT0 192(R12)
	PREFETCHT0 256(R12)
	PREFETCHT0 320(R12)
	PREFETCHT0 384(R12)
	PREFETCHT0 448(R12)
	ADDQ $512, R12
next32:
	ADDQ $128, AX
	DECQ BX
	JNE loop32
tail16:
	TESTQ $16, CX
	JEQ tailmask
	VMOVUPS (SI)(AX*1), Z16
	VFMADD231PS (DI)(AX*1), Z16, Z0
	VFMADD231PS (R9)(AX*1), Z16, Z2
	VFMADD231PS (R10)(AX*1), Z16, Z4
	VFMADD231PS (R11)(AX*1), Z16, Z6
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	PREFETCHT0 128(R12)
	PREFETCHT0 192(R12)
	ADDQ $64, AX
tailmask:
	KORTESTW K1, K1
	JEQ reduce
	VMOVUPS.Z (SI)(AX*1), K1, Z16
	VMOVUPS.Z (DI)(AX*1), K1, Z18
	VFMADD231PS Z18, Z16, Z1
	VMOVUPS.Z (R9)(AX*1), K1, Z18
	VFMADD231PS Z18, Z16, Z3
	VMOVUPS.Z (R10)(AX*1), K1, Z18
	VFMADD231PS Z18, Z16, Z5
	VMOVUPS.Z (R11)(AX*1), K1, Z18
	VFMADD231PS Z18, Z16, Z7
reduce:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z5, Z4, Z4
	VADDPS Z7, Z6, Z6
	VEXTRACTF64X4 $1, Z0, Y8
	VADDPS Y8, Y0, Y0
	VEXTRACTF64X4 $1, Z2, Y8
	VADDPS Y8, Y2, Y2
	VEXTRACTF64X4 $1, Z4, Y8
	VADDPS Y8, Y4, Y4
	VEXTRACTF64X4 $1, Z6, Y8
	VADDPS Y8, Y6, Y6
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	VHADDPS Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X8
	VADDPS X8, X0, X0
	VMOVUPS X0, (DX)
	ADDQ $16, DX
	LEAQ (R11)(R8*1), DI
	DECQ R15
	JNE rowloop
done:
	VZEROUPPER
	RET

// func gemvBlocks16Z(x, w *float32, k int, y *float32, blocks int)
//
// y[16b+i] = Σ_p x[p]·w[(b·k+p)·16+i] for blocks b: weights packed in
// blocks of 16 rows, k-major (gemvPacked), so each block is one
// contiguous stream of k·64 bytes. The steps go in fours into four
// accumulators (step p into p%4; the last k%4 steps into the first), added
// (0+1)+(2+3) at the end.
TEXT ·gemvBlocks16Z(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ k+16(FP), CX
	MOVQ y+24(FP), DX
	MOVQ blocks+32(FP), R15
	TESTQ R15, R15
	JEQ b16done
b16block:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ SI, AX
	MOVQ CX, BX
	SHRQ $2, BX
	JEQ b16tail
b16loop:
	VBROADCASTSS (AX), Z4
	VBROADCASTSS 4(AX), Z5
	VBROADCASTSS 8(AX), Z6
	VBROADCASTSS 12(AX), Z7
	VFMADD231PS (DI), Z4, Z0
	VFMADD231PS 64(DI), Z5, Z1
	VFMADD231PS 128(DI), Z6, Z2
	VFMADD231PS 192(DI), Z7, Z3
	ADDQ $16, AX
	ADDQ $256, DI
	DECQ BX
	JNE b16loop
b16tail:
	MOVQ CX, BX
	ANDQ $3, BX
	JEQ b16sum
b16step:
	VBROADCASTSS (AX), Z4
	VFMADD231PS (DI), Z4, Z0
	ADDQ $4, AX
	ADDQ $64, DI
	DECQ BX
	JNE b16step
b16sum:
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	VMOVUPS Z0, (DX)
	ADDQ $64, DX
	DECQ R15
	JNE b16block
b16done:
	VZEROUPPER
	RET
