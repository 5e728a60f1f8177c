// AVX2 row kernels of fused loops (fuse_rows_simd.go): 8 float32 lanes
// per step over n elements, the last n%8 through masked loads and stores
// (VMASKMOVPS neither reads nor writes the lanes past n). Each lane is the
// scalar op: vector add, subtract, multiply and divide round like their
// scalar forms, the left operand is the first source (for two NaNs, x86
// returns the first source's, as the scalar loops x[k] op y[k] do), and
// selects are bitwise blends. Written from the macros below; see
// fuse_rows_simd_test.go for the bit-for-bit checks.

//go:build amd64 && !purego

#include "textflag.h"

#include "fuse_rows_simd_amd64.h"

// func selRRREQ(d, a, b, x, y *float32, n int)
SELRRR(·selRRREQ, $0x00)

// func selRRRNE(d, a, b, x, y *float32, n int)
SELRRR(·selRRRNE, $0x04)

// func selRRRLT(d, a, b, x, y *float32, n int)
SELRRR(·selRRRLT, $0x11)

// func selRRRLE(d, a, b, x, y *float32, n int)
SELRRR(·selRRRLE, $0x12)

// func selRRRGT(d, a, b, x, y *float32, n int)
SELRRR(·selRRRGT, $0x1e)

// func selRRRGE(d, a, b, x, y *float32, n int)
SELRRR(·selRRRGE, $0x1d)

// func addRR32(d, x, y *float32, n int)
BINRR(·addRR32, VADDPS)

// func subRR32(d, x, y *float32, n int)
BINRR(·subRR32, VSUBPS)

// func mulRR32(d, x, y *float32, n int)
BINRR(·mulRR32, VMULPS)

// func divRR32(d, x, y *float32, n int)
BINRR(·divRR32, VDIVPS)

// func addRS32(d, x *float32, c float32, n int)
BINRS(·addRS32, VADDPS)

// func subRS32(d, x *float32, c float32, n int)
BINRS(·subRS32, VSUBPS)

// func mulRS32(d, x *float32, c float32, n int)
BINRS(·mulRS32, VMULPS)

// func divRS32(d, x *float32, c float32, n int)
BINRS(·divRS32, VDIVPS)

// func addSR32(d *float32, c float32, y *float32, n int)
BINSR(·addSR32, VADDPS)

// func subSR32(d *float32, c float32, y *float32, n int)
BINSR(·subSR32, VSUBPS)

// func mulSR32(d *float32, c float32, y *float32, n int)
BINSR(·mulSR32, VMULPS)

// func divSR32(d *float32, c float32, y *float32, n int)
BINSR(·divSR32, VDIVPS)

// func selSREQ(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSREQ, $0x00)

// func selSRNE(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRNE, $0x04)

// func selSRLT(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRLT, $0x11)

// func selSRLE(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRLE, $0x12)

// func selSRGT(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRGT, $0x1e)

// func selSRGE(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRGE, $0x1d)

// func selSRNLT(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRNLT, $0x15)

// func selSRNLE(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRNLE, $0x16)

// func selSRNGT(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRNGT, $0x1a)

// func selSRNGE(d, a *float32, b, xs float32, y *float32, n int)
SELSR(·selSRNGE, $0x19)

// func selRREQ(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRREQ, $0x00)

// func selRRNE(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRNE, $0x04)

// func selRRLT(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRLT, $0x11)

// func selRRLE(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRLE, $0x12)

// func selRRGT(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRGT, $0x1e)

// func selRRGE(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRGE, $0x1d)

// func selRRNLT(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRNLT, $0x15)

// func selRRNLE(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRNLE, $0x16)

// func selRRNGT(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRNGT, $0x1a)

// func selRRNGE(d, a *float32, b float32, x, y *float32, n int)
SELRR(·selRRNGE, $0x19)

// Maximum and minimum as the exact kernels (fmaximum, fminimum) compute
// them through float64: a NaN operand, the left one first, comes back
// quieted (as the conversions leave it), and -0 orders below +0. With x in
// Y0, y in Y2 and the quiet bit in all lanes of Y14, MINMAX leaves the
// result in Y1: mm (VMAXPS or VMINPS) returns its second source on
// equality, so mm(x, y) comb mm(y, x), comb VANDPS for the maximum and
// VORPS for the minimum, is the right zero (and the value itself for other
// equal values); lanes where either is a NaN then take x's or y's.
#define MINMAX(mm, comb) \
	mm Y2, Y0, Y3 \
	mm Y0, Y2, Y4 \
	comb Y3, Y4, Y1 \
	VCMPPS $3, Y0, Y0, Y5 \
	VCMPPS $3, Y2, Y2, Y6 \
	VBLENDVPS Y5, Y0, Y2, Y7 \
	VORPS Y14, Y7, Y7 \
	VORPS Y5, Y6, Y6 \
	VBLENDVPS Y6, Y7, Y1, Y1

#define QUIETBIT \
	MOVL $0x00400000, R11 \
	MOVQ R11, X14 \
	VPBROADCASTD X14, Y14

// d = mm(x, y)
#define MMRR(name, mm, comb) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ x+8(FP), SI \
	MOVQ y+16(FP), DX \
	MOVQ n+24(FP), CX \
	QUIETBIT \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	VMOVUPS (DX)(AX*4), Y2 \
	MINMAX(mm, comb) \
	VMOVUPS Y1, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	VMASKMOVPS (DX)(AX*4), Y15, Y2 \
	MINMAX(mm, comb) \
	VMASKMOVPS Y1, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET

// d = mm(x, c)
#define MMRS(name, mm, comb) \
TEXT name(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ x+8(FP), SI \
	VBROADCASTSS c+16(FP), Y2 \
	MOVQ n+24(FP), CX \
	QUIETBIT \
	HEAD \
loop: \
	CMPQ AX, BX \
	JAE tail \
	VMOVUPS (SI)(AX*4), Y0 \
	MINMAX(mm, comb) \
	VMOVUPS Y1, (DI)(AX*4) \
	ADDQ $8, AX \
	JMP loop \
tail: \
	TAILMASK \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	MINMAX(mm, comb) \
	VMASKMOVPS Y1, Y15, (DI)(AX*4) \
done: \
	VZEROUPPER \
	RET

// func maxRR32(d, x, y *float32, n int)
MMRR(·maxRR32, VMAXPS, VANDPS)

// func minRR32(d, x, y *float32, n int)
MMRR(·minRR32, VMINPS, VORPS)

// func maxRS32(d, x *float32, c float32, n int)
MMRS(·maxRS32, VMAXPS, VANDPS)

// func minRS32(d, x *float32, c float32, n int)
MMRS(·minRS32, VMINPS, VORPS)

// func nanSelRR32(d, a, y *float32, n int)
// d = a != a ? a : y: select(compare(NE, a, a), a, y), nanSelect's
// isnan(a) pick.
TEXT ·nanSelRR32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	HEAD
nsloop:
	CMPQ AX, BX
	JAE nstail
	VMOVUPS (SI)(AX*4), Y0
	VCMPPS $4, Y0, Y0, Y1
	VMOVUPS (DX)(AX*4), Y4
	VBLENDVPS Y1, Y0, Y4, Y5
	VMOVUPS Y5, (DI)(AX*4)
	ADDQ $8, AX
	JMP nsloop
nstail:
	CMPQ AX, CX
	JAE nsdone
	MOVQ CX, R9
	SUBQ AX, R9
	SHLQ $2, R9
	LEAQ ·laneMask+64(SB), R10
	SUBQ R9, R10
	VMOVDQU (R10), Y15
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VCMPPS $4, Y0, Y0, Y1
	VMASKMOVPS (DX)(AX*4), Y15, Y4
	VBLENDVPS Y1, Y0, Y4, Y5
	VMASKMOVPS Y5, Y15, (DI)(AX*4)
nsdone:
	VZEROUPPER
	RET

// func selPRR32(d, p, x, y *float32, n int)
// d = p != 0 ? x : y, lane by lane (a select on a predicate row of 0/1).
TEXT ·selPRR32(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ p+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	VXORPS Y7, Y7, Y7
	HEAD
sploop:
	CMPQ AX, BX
	JAE sptail
	VCMPPS $4, (R8)(AX*4), Y7, Y3
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (DX)(AX*4), Y1
	VBLENDVPS Y3, Y0, Y1, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ $8, AX
	JMP sploop
sptail:
	CMPQ AX, CX
	JAE spdone
	MOVQ CX, R9
	SUBQ AX, R9
	SHLQ $2, R9
	LEAQ ·laneMask+64(SB), R10
	SUBQ R9, R10
	VMOVDQU (R10), Y15
	VMASKMOVPS (R8)(AX*4), Y15, Y4
	VCMPPS $4, Y4, Y7, Y3
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VMASKMOVPS (DX)(AX*4), Y15, Y1
	VBLENDVPS Y3, Y0, Y1, Y2
	VMASKMOVPS Y2, Y15, (DI)(AX*4)
spdone:
	VZEROUPPER
	RET

DATA boolOne<>+0(SB)/4, $0x3f800000
GLOBL boolOne<>(SB), RODATA|NOPTR, $4

// func boolsF32(d *float32, b *byte, n int): d[k] = 1 where b[k] != 0,
// else 0, for k < n&^7 (the caller does the rest).
TEXT ·boolsF32(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	ANDQ $-8, CX
	XORQ AX, AX
	VPXOR Y2, Y2, Y2
	VBROADCASTSS boolOne<>(SB), Y3
bloop:
	CMPQ AX, CX
	JAE bdone
	VPMOVZXBD (SI)(AX*1), Y0
	VPCMPEQD Y2, Y0, Y1
	VANDNPS Y3, Y1, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP bloop
bdone:
	VZEROUPPER
	RET

// func cvtF32F64(d *float64, x *float32, n int): d[k] = float64(x[k]) for
// k < n&^7 (the caller does the rest); VCVTPS2PD quiets a signalling NaN
// as the scalar conversion does.
TEXT ·cvtF32F64(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	ANDQ $-8, CX
	XORQ AX, AX
cloop:
	CMPQ AX, CX
	JAE cdone
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	JMP cloop
cdone:
	VZEROUPPER
	RET

// func addF32F64(acc *float64, x *float32, n int): acc[k] += float64(x[k])
// where acc[k] is not NaN (a NaN accumulator is kept bit for bit), for
// k < n&^7 (the caller does the rest). The sum's first source is the
// accumulator, as in the scalar a + float64(v).
TEXT ·addF32F64(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	ANDQ $-8, CX
	XORQ AX, AX
aloop:
	CMPQ AX, CX
	JAE adone
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VCVTPS2PD (SI)(AX*4), Y2
	VCVTPS2PD 16(SI)(AX*4), Y3
	VADDPD Y2, Y0, Y4
	VADDPD Y3, Y1, Y5
	VCMPPD $3, Y0, Y0, Y6 // unordered: the accumulator is NaN
	VCMPPD $3, Y1, Y1, Y7
	VBLENDVPD Y6, Y0, Y4, Y4
	VBLENDVPD Y7, Y1, Y5, Y5
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	ADDQ $8, AX
	JMP aloop
adone:
	VZEROUPPER
	RET
