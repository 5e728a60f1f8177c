// The transforms of the Winograd convolution (fast_conv_winograd.go),
// AVX2: eight tiles at a time, one per lane, in the lane order the
// in-lane shuffles leave them (tiles 0, 1, 4, 5, 2, 3, 6, 7: winoPerm),
// which the output's unpacks put back in order.

//go:build amd64 && !purego

#include "textflag.h"

// HROW loads the 18 columns of a padded input row at r and leaves its
// horizontal transform for the eight tiles in h0-h3: with k0-k3 the
// tiles' columns 0-3 (columns 2l+j of the row for tile l), h0 = k0 - k2,
// h1 = k1 + k2, h2 = k2 - k1, h3 = k1 - k3. Uses Y0-Y7.
#define HROW(r, h0, h1, h2, h3) \
	VMOVUPS 0(r), Y0 \
	VMOVUPS 32(r), Y1 \
	VMOVUPS 8(r), Y2 \
	VMOVUPS 40(r), Y3 \
	VSHUFPS $0x88, Y1, Y0, Y4 \
	VSHUFPS $0xdd, Y1, Y0, Y5 \
	VSHUFPS $0x88, Y3, Y2, Y6 \
	VSHUFPS $0xdd, Y3, Y2, Y7 \
	VSUBPS Y6, Y4, h0 \
	VADDPS Y6, Y5, h1 \
	VSUBPS Y5, Y6, h2 \
	VSUBPS Y7, Y5, h3

// func winoIn8(p *winoInArgs)
// For each of n channels: the four padded rows from src (rows row bytes
// apart), eight tiles' 4×4 patches (tile l: columns 2l to 2l+3), their
// Bᵀ d B (rows by HROW, then v0 = h_0 - h_2, v1 = h_1 + h_2, v2 = h_2 -
// h_1, v3 = h_1 - h_3, per column) stored as eight floats at dst + ξ·xs
// for ξ = 4i + j; then src moves on by plane bytes and dst by cs.
TEXT ·winoIn8(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	MOVQ 0(AX), DI  // dst
	MOVQ 8(AX), SI  // src
	MOVQ 16(AX), CX // n
	MOVQ 24(AX), R8 // plane
	MOVQ 32(AX), R9 // row
	MOVQ 40(AX), R10 // xs
	MOVQ 48(AX), R15 // cs
	LEAQ (R10)(R10*2), R11 // 3·xs
	LEAQ (R9)(R9*2), R13 // 3·row
	LEAQ (DI)(R10*4), BX // ξ 4
	LEAQ (BX)(R10*4), DX // ξ 8
	LEAQ (DX)(R10*4), R12 // ξ 12
	TESTQ CX, CX
	JLE indone
inloop:
	LEAQ (SI)(R9*2), R14
	HROW(R14, Y8, Y9, Y10, Y11) // h_2
	HROW(SI, Y12, Y13, Y14, Y15) // h_0
	VSUBPS Y8, Y12, Y12
	VSUBPS Y9, Y13, Y13
	VSUBPS Y10, Y14, Y14
	VSUBPS Y11, Y15, Y15
	VMOVUPS Y12, (DI)
	VMOVUPS Y13, (DI)(R10*1)
	VMOVUPS Y14, (DI)(R10*2)
	VMOVUPS Y15, (DI)(R11*1)
	LEAQ (SI)(R9*1), R14
	HROW(R14, Y12, Y13, Y14, Y15) // h_1
	VADDPS Y8, Y12, Y0
	VADDPS Y9, Y13, Y1
	VADDPS Y10, Y14, Y2
	VADDPS Y11, Y15, Y3
	VMOVUPS Y0, (BX)
	VMOVUPS Y1, (BX)(R10*1)
	VMOVUPS Y2, (BX)(R10*2)
	VMOVUPS Y3, (BX)(R11*1)
	VSUBPS Y12, Y8, Y8
	VSUBPS Y13, Y9, Y9
	VSUBPS Y14, Y10, Y10
	VSUBPS Y15, Y11, Y11
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, (DX)(R10*1)
	VMOVUPS Y10, (DX)(R10*2)
	VMOVUPS Y11, (DX)(R11*1)
	LEAQ (SI)(R13*1), R14
	HROW(R14, Y8, Y9, Y10, Y11) // h_3
	VSUBPS Y8, Y12, Y12
	VSUBPS Y9, Y13, Y13
	VSUBPS Y10, Y14, Y14
	VSUBPS Y11, Y15, Y15
	VMOVUPS Y12, (R12)
	VMOVUPS Y13, (R12)(R10*1)
	VMOVUPS Y14, (R12)(R10*2)
	VMOVUPS Y15, (R12)(R11*1)
	ADDQ R8, SI
	ADDQ R15, DI
	ADDQ R15, BX
	ADDQ R15, DX
	ADDQ R15, R12
	DECQ CX
	JNE inloop
indone:
	VZEROUPPER
	RET

// func winoOut8(p *winoOutArgs)
// For each of n channels: the 16 products of eight tiles (eight floats
// at src + ξ·xs), s_0 = m_0 + (m_1 + m_2), s_1 = (m_1 - m_2) - m_3 per
// column, then per row of s: y_0 = s_0 + (s_1 + s_2), y_1 = (s_1 - s_2)
// - s_3, the tiles' two outputs of the row interleaved in order: 16
// outputs of row 0 at dst and, with rows 2, of row 1 at dst + ld; only
// the first cols (< 16: masked). Then src moves on by step and dst by
// plane bytes.
TEXT ·winoOut8(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	MOVQ 0(AX), DI   // dst
	MOVQ 8(AX), SI   // src
	MOVQ 16(AX), CX  // n
	MOVQ 24(AX), R8  // plane
	MOVQ 32(AX), R9  // ld
	MOVQ 40(AX), R10 // xs
	MOVQ 56(AX), R13 // rows
	MOVQ 64(AX), R14 // cols
	LEAQ (R10)(R10*2), R11 // 3·xs
	// the masks of the first cols of 16 lanes: 64 bytes from ·laneMask + 64 - 4·cols
	LEAQ ·laneMask+64(SB), AX
	SHLQ $2, R14
	SUBQ R14, AX
	SHRQ $2, R14
	TESTQ CX, CX
	JLE outdone
outloop:
	LEAQ (SI)(R10*4), BX // ξ 4
	LEAQ (BX)(R10*4), DX // ξ 8
	LEAQ (DX)(R10*4), R12 // ξ 12
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R10*1), Y1
	VMOVUPS (BX)(R10*2), Y2
	VMOVUPS (BX)(R11*1), Y3
	VMOVUPS (DX), Y4
	VMOVUPS (DX)(R10*1), Y5
	VMOVUPS (DX)(R10*2), Y6
	VMOVUPS (DX)(R11*1), Y7
	VSUBPS Y4, Y0, Y8
	VSUBPS Y5, Y1, Y9
	VSUBPS Y6, Y2, Y10
	VSUBPS Y7, Y3, Y11
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	VADDPS (SI), Y0, Y0
	VADDPS (SI)(R10*1), Y1, Y1
	VADDPS (SI)(R10*2), Y2, Y2
	VADDPS (SI)(R11*1), Y3, Y3
	VSUBPS (R12), Y8, Y8
	VSUBPS (R12)(R10*1), Y9, Y9
	VSUBPS (R12)(R10*2), Y10, Y10
	VSUBPS (R12)(R11*1), Y11, Y11
	// rows of s: Y0-Y3 (s_0), Y8-Y11 (s_1)
	VADDPS Y2, Y1, Y12
	VSUBPS Y2, Y1, Y13
	VADDPS Y12, Y0, Y12
	VSUBPS Y3, Y13, Y13
	VADDPS Y10, Y9, Y14
	VSUBPS Y10, Y9, Y15
	VADDPS Y14, Y8, Y14
	VSUBPS Y11, Y15, Y15
	VUNPCKLPS Y13, Y12, Y0
	VUNPCKHPS Y13, Y12, Y1
	VUNPCKLPS Y15, Y14, Y2
	VUNPCKHPS Y15, Y14, Y3
	CMPQ R14, $16
	JNE outmask
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	CMPQ R13, $2
	JNE outnext
	VMOVUPS Y2, (DI)(R9*1)
	VMOVUPS Y3, 32(DI)(R9*1)
	JMP outnext
outmask:
	VMOVDQU (AX), Y4
	VMOVDQU 32(AX), Y5
	VMASKMOVPS Y0, Y4, (DI)
	VMASKMOVPS Y1, Y5, 32(DI)
	CMPQ R13, $2
	JNE outnext
	VMASKMOVPS Y2, Y4, (DI)(R9*1)
	VMASKMOVPS Y3, Y5, 32(DI)(R9*1)
outnext:
	MOVQ p+0(FP), R12
	ADDQ 48(R12), SI // step
	ADDQ R8, DI
	DECQ CX
	JNE outloop
outdone:
	VZEROUPPER
	RET

// func copyFinite(dst, src *float32, n int) bool
// dst[i] = src[i] for i < n; reports whether every value is finite (x - x
// is +0 for each: an infinity or NaN leaves a NaN in the running OR).
TEXT ·copyFinite(SB), NOSPLIT, $0-25
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VXORPS Y2, Y2, Y2
	XORQ AX, AX
cf8:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JA cftail
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS Y0, (DI)(AX*4)
	VSUBPS Y0, Y0, Y1
	VORPS Y1, Y2, Y2
	MOVQ DX, AX
	JMP cf8
cftail:
	CMPQ AX, CX
	JAE cfdone
	VMOVSS (SI)(AX*4), X0
	VMOVSS X0, (DI)(AX*4)
	VSUBSS X0, X0, X1
	VORPS Y1, Y2, Y2
	INCQ AX
	JMP cftail
cfdone:
	VPTEST Y2, Y2
	SETEQ ret+24(FP)
	VZEROUPPER
	RET
