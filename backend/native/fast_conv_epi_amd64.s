// The fused batch-norm epilogue of convolutions (fast_conv_epi.go), AVX2:
// over rows of n float32 in place (epiArgs), per element v = d[k], then
// v·a where flags bit 2 is set, v + b where bit 3 is, v + r[k] where bit 0
// is (r[k]·rc + re instead of r[k] where bit 6 is also set: rc and re
// the row's, read and advanced in the block), (v < t) ? xs : v where bit
// 1 is (ReLU), the clamp's
// nanmax(v, lo) where bit 4 is and nanmin(v, hi) where bit 5 is (ReLU6;
// v itself where v is NaN), and d[k] = v; a and b are
// the row's values, read as a[i·sa], b[i·sb] for row i. Each step is the
// vector form of the fused loops' kernel for that node (fuse_rows_simd_amd64.s:
// the same instructions, the running value as the first source), so the
// results are theirs bit for bit. Multiply and add stay two roundings (no FMA).

//go:build amd64 && !purego

#include "textflag.h"

// FASTCLAMP(v) is the select and clamp where flags bit 7 allows their
// fast forms (setAffineArgs): ReLU's (v < t) ? t : v is max(t, v) with v
// the second source (which comes out on a tie, a signed zero, or a NaN);
// nanmax(v, lo) is max(lo, v + z), z = +0 where lo is +0 (turning a -0 to
// +0, the two-sided maximum's answer) and -0 otherwise (no change); and
// nanmin(v, hi), hi not -0, is min(hi, v). The same bits as the two-sided
// forms, in one to three instructions instead of nine.
#define FASTCLAMP(v) \
	TESTQ $2, R11 \
	JZ 2(PC) \
	VMAXPS v, Y4, v \
	TESTQ $16, R11 \
	JZ 3(PC) \
	VADDPS Y5, v, v \
	VMAXPS v, Y7, v \
	TESTQ $32, R11 \
	JZ 2(PC) \
	VMINPS v, Y8, v

// func affineRows32(p *epiArgs)
TEXT ·affineRows32(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), DX
	MOVQ 16(R8), R12
	MOVQ 24(R8), R13
	VBROADCASTSS 32(R8), Y4
	VBROADCASTSS 36(R8), Y5
	VBROADCASTSS 96(R8), Y7
	VBROADCASTSS 100(R8), Y8
	MOVQ 40(R8), CX
	MOVQ 48(R8), R14
	MOVQ 88(R8), R11
	MOVQ CX, BX
	ANDQ $-8, BX
	MOVQ CX, SI
	ANDQ $-32, SI
	TESTQ $128, R11
	JZ row
	VBROADCASTSS 136(R8), Y5 // the fast forms' zero: xs is t

row:
	TESTQ R14, R14
	JLE done
	VBROADCASTSS (R12), Y2
	VBROADCASTSS (R13), Y3
	TESTQ $64, R11
	JZ norc
	MOVQ 104(R8), R9
	VBROADCASTSS (R9), Y13
	MOVQ 120(R8), R10
	LEAQ (R9)(R10*4), R9
	MOVQ R9, 104(R8)
	MOVQ 112(R8), R9
	VBROADCASTSS (R9), Y14
	MOVQ 128(R8), R10
	LEAQ (R9)(R10*4), R9
	MOVQ R9, 112(R8)

norc:
	XORQ AX, AX
	TESTQ $128, R11
	JZ loop

// four vectors a step, the select and clamp in their fast forms
quad:
	CMPQ AX, SI
	JAE loop
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS 32(DI)(AX*4), Y1
	VMOVUPS 64(DI)(AX*4), Y9
	VMOVUPS 96(DI)(AX*4), Y10
	TESTQ $4, R11
	JZ qnomul
	VMULPS Y2, Y0, Y0
	VMULPS Y2, Y1, Y1
	VMULPS Y2, Y9, Y9
	VMULPS Y2, Y10, Y10

qnomul:
	TESTQ $8, R11
	JZ qnoadd
	VADDPS Y3, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y3, Y9, Y9
	VADDPS Y3, Y10, Y10

qnoadd:
	TESTQ $1, R11
	JZ qnorow
	TESTQ $64, R11
	JNZ qrowaff
	VADDPS (DX)(AX*4), Y0, Y0
	VADDPS 32(DX)(AX*4), Y1, Y1
	VADDPS 64(DX)(AX*4), Y9, Y9
	VADDPS 96(DX)(AX*4), Y10, Y10
	JMP qnorow

qrowaff:
	VMOVUPS (DX)(AX*4), Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6
	VADDPS Y6, Y0, Y0
	VMOVUPS 32(DX)(AX*4), Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6
	VADDPS Y6, Y1, Y1
	VMOVUPS 64(DX)(AX*4), Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6
	VADDPS Y6, Y9, Y9
	VMOVUPS 96(DX)(AX*4), Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6
	VADDPS Y6, Y10, Y10

qnorow:
	TESTQ $2, R11
	JZ qnosel
	VMAXPS Y0, Y4, Y0
	VMAXPS Y1, Y4, Y1
	VMAXPS Y9, Y4, Y9
	VMAXPS Y10, Y4, Y10

qnosel:
	TESTQ $16, R11
	JZ qnolo
	VADDPS Y5, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y5, Y9, Y9
	VADDPS Y5, Y10, Y10
	VMAXPS Y0, Y7, Y0
	VMAXPS Y1, Y7, Y1
	VMAXPS Y9, Y7, Y9
	VMAXPS Y10, Y7, Y10

qnolo:
	TESTQ $32, R11
	JZ qnohi
	VMINPS Y0, Y8, Y0
	VMINPS Y1, Y8, Y1
	VMINPS Y9, Y8, Y9
	VMINPS Y10, Y8, Y10

qnohi:
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y9, 64(DI)(AX*4)
	VMOVUPS Y10, 96(DI)(AX*4)
	ADDQ $32, AX
	JMP quad

loop:
	CMPQ AX, BX
	JAE tail
	VMOVUPS (DI)(AX*4), Y0
	TESTQ $4, R11
	JZ nomul
	VMULPS Y2, Y0, Y0

nomul:
	TESTQ $8, R11
	JZ noadd
	VADDPS Y3, Y0, Y0

noadd:
	TESTQ $1, R11
	JZ norow
	TESTQ $64, R11
	JNZ rowaff
	VADDPS (DX)(AX*4), Y0, Y0
	JMP norow

rowaff:
	VMOVUPS (DX)(AX*4), Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6
	VADDPS Y6, Y0, Y0

norow:
	TESTQ $128, R11
	JZ slowsel
	FASTCLAMP(Y0)
	JMP store

slowsel:
	TESTQ $2, R11
	JZ nosel
	VCMPPS $0x11, Y4, Y0, Y1
	VBLENDVPS Y1, Y5, Y0, Y0

nosel:
	TESTQ $48, R11
	JZ store
	VCMPPS $3, Y0, Y0, Y9
	VMOVAPS Y0, Y10
	TESTQ $16, R11
	JZ nolo
	VMAXPS Y7, Y10, Y11
	VMAXPS Y10, Y7, Y12
	VANDPS Y11, Y12, Y10

nolo:
	TESTQ $32, R11
	JZ nohi
	VMINPS Y8, Y10, Y11
	VMINPS Y10, Y8, Y12
	VORPS Y11, Y12, Y10

nohi:
	VBLENDVPS Y9, Y0, Y10, Y0

store:
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP loop

tail:
	CMPQ AX, CX
	JAE next
	MOVQ CX, R9
	SUBQ AX, R9
	SHLQ $2, R9
	LEAQ ·laneMask+64(SB), R10
	SUBQ R9, R10
	VMOVDQU (R10), Y15
	VMASKMOVPS (DI)(AX*4), Y15, Y0
	TESTQ $4, R11
	JZ tnomul
	VMULPS Y2, Y0, Y0

tnomul:
	TESTQ $8, R11
	JZ tnoadd
	VADDPS Y3, Y0, Y0

tnoadd:
	TESTQ $1, R11
	JZ tnorow
	VMASKMOVPS (DX)(AX*4), Y15, Y6
	TESTQ $64, R11
	JZ tplain
	VMULPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6

tplain:
	VADDPS Y6, Y0, Y0

tnorow:
	TESTQ $128, R11
	JZ tslowsel
	FASTCLAMP(Y0)
	JMP tstore

tslowsel:
	TESTQ $2, R11
	JZ tnosel
	VCMPPS $0x11, Y4, Y0, Y1
	VBLENDVPS Y1, Y5, Y0, Y0

tnosel:
	TESTQ $48, R11
	JZ tstore
	VCMPPS $3, Y0, Y0, Y9
	VMOVAPS Y0, Y10
	TESTQ $16, R11
	JZ tnolo
	VMAXPS Y7, Y10, Y11
	VMAXPS Y10, Y7, Y12
	VANDPS Y11, Y12, Y10

tnolo:
	TESTQ $32, R11
	JZ tnohi
	VMINPS Y8, Y10, Y11
	VMINPS Y10, Y8, Y12
	VORPS Y11, Y12, Y10

tnohi:
	VBLENDVPS Y9, Y0, Y10, Y0

tstore:
	VMASKMOVPS Y0, Y15, (DI)(AX*4)

next:
	MOVQ 56(R8), R9
	LEAQ (DI)(R9*4), DI
	MOVQ 64(R8), R9
	LEAQ (DX)(R9*4), DX
	MOVQ 72(R8), R9
	LEAQ (R12)(R9*4), R12
	MOVQ 80(R8), R9
	LEAQ (R13)(R9*4), R13
	DECQ R14
	JMP row

done:
	VZEROUPPER
	RET

// func affineRows16(p *epiArgs)
//
// affineRows32 in AVX-512: sixteen lanes per step and a masked last step,
// the same operations per element (multiply, add, the row's add, ReLU's
// select as a masked move, the clamp's two-sided maximum/minimum with a
// NaN kept), so the same bits.
TEXT ·affineRows16(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), R8
	MOVQ 0(R8), DI
	MOVQ 8(R8), DX
	MOVQ 16(R8), R12
	MOVQ 24(R8), R13
	VBROADCASTSS 32(R8), Z4
	VBROADCASTSS 36(R8), Z5
	VBROADCASTSS 96(R8), Z7
	VBROADCASTSS 100(R8), Z8
	MOVQ 40(R8), CX
	MOVQ 48(R8), R14
	MOVQ 88(R8), R11
	MOVQ CX, BX
	ANDQ $-16, BX
	// K3: the last step's lanes (n mod 16 of them)
	MOVQ CX, R9
	ANDQ $15, R9
	MOVQ $1, R10
	SHLXQ R9, R10, R10
	DECQ R10
	KMOVW R10, K3

z_row:
	TESTQ R14, R14
	JLE z_done
	VBROADCASTSS (R12), Z2
	VBROADCASTSS (R13), Z3
	TESTQ $64, R11
	JZ z_norc
	MOVQ 104(R8), R9
	VBROADCASTSS (R9), Z13
	MOVQ 120(R8), R10
	LEAQ (R9)(R10*4), R9
	MOVQ R9, 104(R8)
	MOVQ 112(R8), R9
	VBROADCASTSS (R9), Z14
	MOVQ 128(R8), R10
	LEAQ (R9)(R10*4), R9
	MOVQ R9, 112(R8)

z_norc:
	XORQ AX, AX

z_loop:
	CMPQ AX, BX
	JAE z_tail
	VMOVUPS (DI)(AX*4), Z0
	TESTQ $4, R11
	JZ z_nomul
	VMULPS Z2, Z0, Z0

z_nomul:
	TESTQ $8, R11
	JZ z_noadd
	VADDPS Z3, Z0, Z0

z_noadd:
	TESTQ $1, R11
	JZ z_norow
	TESTQ $64, R11
	JNZ z_rowaff
	VADDPS (DX)(AX*4), Z0, Z0
	JMP z_norow

z_rowaff:
	VMOVUPS (DX)(AX*4), Z6
	VMULPS Z13, Z6, Z6
	VADDPS Z14, Z6, Z6
	VADDPS Z6, Z0, Z0

z_norow:
	TESTQ $2, R11
	JZ z_nosel
	VCMPPS $0x11, Z4, Z0, K1
	VMOVAPS Z5, K1, Z0

z_nosel:
	TESTQ $48, R11
	JZ z_store
	VCMPPS $3, Z0, Z0, K2
	VMOVAPS Z0, Z10
	TESTQ $16, R11
	JZ z_nolo
	VMAXPS Z7, Z10, Z11
	VMAXPS Z10, Z7, Z12
	VANDPS Z11, Z12, Z10

z_nolo:
	TESTQ $32, R11
	JZ z_nohi
	VMINPS Z8, Z10, Z11
	VMINPS Z10, Z8, Z12
	VORPS Z11, Z12, Z10

z_nohi:
	VMOVAPS Z0, K2, Z10
	VMOVAPS Z10, Z0

z_store:
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ $16, AX
	JMP z_loop

z_tail:
	CMPQ AX, CX
	JAE z_next
	VPXORD Z0, Z0, Z0
	VMOVUPS (DI)(AX*4), K3, Z0
	TESTQ $4, R11
	JZ z_tnomul
	VMULPS Z2, Z0, Z0

z_tnomul:
	TESTQ $8, R11
	JZ z_tnoadd
	VADDPS Z3, Z0, Z0

z_tnoadd:
	TESTQ $1, R11
	JZ z_tnorow
	VPXORD Z6, Z6, Z6
	VMOVUPS (DX)(AX*4), K3, Z6
	TESTQ $64, R11
	JZ z_tplain
	VMULPS Z13, Z6, Z6
	VADDPS Z14, Z6, Z6

z_tplain:
	VADDPS Z6, Z0, Z0

z_tnorow:
	TESTQ $2, R11
	JZ z_tnosel
	VCMPPS $0x11, Z4, Z0, K1
	VMOVAPS Z5, K1, Z0

z_tnosel:
	TESTQ $48, R11
	JZ z_tstore
	VCMPPS $3, Z0, Z0, K2
	VMOVAPS Z0, Z10
	TESTQ $16, R11
	JZ z_tnolo
	VMAXPS Z7, Z10, Z11
	VMAXPS Z10, Z7, Z12
	VANDPS Z11, Z12, Z10

z_tnolo:
	TESTQ $32, R11
	JZ z_tnohi
	VMINPS Z8, Z10, Z11
	VMINPS Z10, Z8, Z12
	VORPS Z11, Z12, Z10

z_tnohi:
	VMOVAPS Z0, K2, Z10
	VMOVAPS Z10, Z0

z_tstore:
	VMOVUPS Z0, K3, (DI)(AX*4)

z_next:
	MOVQ 56(R8), R9
	LEAQ (DI)(R9*4), DI
	MOVQ 64(R8), R9
	LEAQ (DX)(R9*4), DX
	MOVQ 72(R8), R9
	LEAQ (R12)(R9*4), R12
	MOVQ 80(R8), R9
	LEAQ (R13)(R9*4), R13
	DECQ R14
	JMP z_row

z_done:
	VZEROUPPER
	RET
