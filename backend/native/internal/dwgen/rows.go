package main

import "fmt"

// rowsDoc heads fast_dwwide_amd64.s.
const rowsDoc = `// The wide-row depthwise kernels (fast_dwwide.go), AVX-512: sixteen
// output columns of one channel per vector, read straight from the NCHW
// input rows. For each output row and each vector of 16 columns x0…,
// dst[x] = Σ over the tap rows r and columns kx of w[r][kx] ×
// src[r][x·sw − padL + kx], the taps in order, each a fused multiply-add
// onto the running sum from zero; the input columns outside the row are
// masked off (a masked-off lane neither reads nor faults, and reads as
// zero, as a padded copy would), so there is no padded copy; tap rows
// outside the image read a row of zeros. Stride 2 loads 32 input columns
// and keeps the even ones (one two-vector permute).
//
// The argument block (dwWideArgs):
//   0 dst     first output row
//   8 delta   bytes added to every tap row's address (0)
//  16 dstRow  bytes from one output row to the next (x4)
//  24 rowPtr  [4][16]: per output row of a block (x1: the first) and tap
//             row, its input row (a row of zeros above or below the image)
//  32 wPtr    per tap row: its kw weights
//  40 taps    tap rows
//  48 kw      taps per row
//  56 nv      vectors per output row
//  64 masks   [nv][kw] input lanes inside the row (stride 2: 32 bits)
//  72 colStep bytes of input per output vector (64·sw)
//  80 col0    byte offset of the first vector's first tap (−4·padL)
//  88 last    output lanes of the last vector
//  96 idx     stride 2: the even-lane permutation
// 104 rows    output rows (x4: blocks of four)
// 112 dstAdj  bytes from the end of a row's (x4: block's) vectors to the next
// 120 srcStep bytes from one output row's input rows to the next's (x4:
//             the next block's)
// 128 colEnd  col0 + nv·colStep
//
// dwWide1 and dwWide2 compute one output row at a time: each vector's sum
// is one chain of dependent fused multiply-adds (4 cycles each on Zen 4).
// dwWide1x4 and dwWide2x4 compute four output rows side by side (four
// chains; the weight broadcast once per tap, the column masks shared),
// each row from its own tap rows.
`

// rowKernel writes dwWide<S>: one output row at a time.
func rowKernel(w func(string, ...any), s int) {
	w("")
	w("// func dwWide%d(p *dwWideArgs)", s)
	w("TEXT ·dwWide%d(SB), NOSPLIT, $0-8", s)
	w("\tMOVQ p+0(FP), R8")
	w("\tMOVQ 0(R8), DI")
	w("\tMOVQ 8(R8), SI")
	w("\tMOVQ 24(R8), R10")
	w("\tMOVQ 32(R8), R11")
	w("\tKMOVW 88(R8), K3")
	if s == 2 {
		w("\tMOVQ 96(R8), AX")
		w("\tVMOVUPS (AX), Z31")
	}
	w("")
	w("row%d:", s)
	w("\tMOVQ 56(R8), R14")
	w("\tMOVQ 64(R8), R15")
	w("\tMOVQ 80(R8), BX")
	w("")
	w("vec%d:", s)
	w("\tVPXORD Z0, Z0, Z0")
	w("\tXORQ CX, CX")
	w("")
	w("tap%d:", s)
	w("\tMOVQ (R10)(CX*8), AX")
	w("\tADDQ SI, AX")
	w("\tADDQ BX, AX")
	w("\tMOVQ (R11)(CX*8), DX")
	w("\tXORQ R12, R12")
	w("")
	w("kx%d:", s)
	w("\tMOVL (R15)(R12*4), R13")
	w("\tKMOVW R13, K1")
	if s == 1 {
		w("\tVMOVUPS.Z (AX)(R12*4), K1, Z1")
	} else {
		w("\tSHRL $16, R13")
		w("\tKMOVW R13, K2")
		w("\tVMOVUPS.Z (AX)(R12*4), K1, Z1")
		w("\tVMOVUPS.Z 64(AX)(R12*4), K2, Z2")
		w("\tVPERMT2PS Z2, Z31, Z1")
	}
	w("\tVFMADD231PS.BCST (DX)(R12*4), Z1, Z0")
	w("\tINCQ R12")
	w("\tCMPQ R12, 48(R8)")
	w("\tJB kx%d", s)
	w("\tINCQ CX")
	w("\tCMPQ CX, 40(R8)")
	w("\tJB tap%d", s)
	w("")
	w("\tCMPQ R14, $1")
	w("\tJNE full%d", s)
	w("\tVMOVUPS Z0, K3, (DI)")
	w("\tJMP next%d", s)
	w("")
	w("full%d:", s)
	w("\tVMOVUPS Z0, (DI)")
	w("")
	w("next%d:", s)
	w("\tADDQ $64, DI")
	w("\tADDQ 72(R8), BX")
	w("\tMOVQ 48(R8), R12")
	w("\tLEAQ (R15)(R12*4), R15")
	w("\tDECQ R14")
	w("\tJNE vec%d", s)
	w("")
	w("\tADDQ 112(R8), DI")
	w("\tADDQ 120(R8), SI")
	w("\tDECQ 104(R8)")
	w("\tJNE row%d", s)
	w("\tVZEROUPPER")
	w("\tRET")
}

// rowKernel4 writes dwWide<S>x4: four output rows side by side, row i from
// rowPtr[i].
func rowKernel4(w func(string, ...any), s int) {
	n := fmt.Sprintf("%dx4", s)
	regs := []string{"AX", "R11", "R9", "R14"}
	w("")
	w("// func dwWide%s(p *dwWideArgs)", n)
	w("TEXT ·dwWide%s(SB), NOSPLIT, $0-8", n)
	w("\tMOVQ p+0(FP), R8")
	w("\tMOVQ 0(R8), DI")
	w("\tMOVQ 8(R8), SI")
	w("\tMOVQ 24(R8), R10")
	w("\tKMOVW 88(R8), K3")
	if s == 2 {
		w("\tMOVQ 96(R8), AX")
		w("\tVMOVUPS (AX), Z31")
	}
	w("")
	w("row%s:", n)
	w("\tMOVQ 64(R8), R15")
	w("\tMOVQ 80(R8), BX")
	w("")
	w("vec%s:", n)
	for i := range 4 {
		w("\tVPXORD Z%d, Z%d, Z%d", i, i, i)
	}
	w("\tXORQ CX, CX")
	w("")
	w("tap%s:", n)
	for i, r := range regs {
		off := ""
		if i > 0 {
			off = fmt.Sprint(128 * i)
		}
		w("\tMOVQ %s(R10)(CX*8), %s", off, r)
		w("\tADDQ SI, %s", r)
		w("\tADDQ BX, %s", r)
	}
	w("\tMOVQ 32(R8), DX")
	w("\tMOVQ (DX)(CX*8), DX")
	w("\tXORQ R12, R12")
	w("")
	w("kx%s:", n)
	w("\tMOVL (R15)(R12*4), R13")
	w("\tKMOVW R13, K1")
	w("\tVBROADCASTSS (DX)(R12*4), Z30")
	if s == 2 {
		w("\tSHRL $16, R13")
		w("\tKMOVW R13, K2")
	}
	for i, r := range regs {
		w("\tVMOVUPS.Z (%s)(R12*4), K1, Z%d", r, 4+i)
		if s == 2 {
			w("\tVMOVUPS.Z 64(%s)(R12*4), K2, Z%d", r, 8+i)
		}
	}
	if s == 2 {
		for i := range 4 {
			w("\tVPERMT2PS Z%d, Z31, Z%d", 8+i, 4+i)
		}
	}
	for i := range 4 {
		w("\tVFMADD231PS Z%d, Z30, Z%d", 4+i, i)
	}
	w("\tINCQ R12")
	w("\tCMPQ R12, 48(R8)")
	w("\tJB kx%s", n)
	w("\tINCQ CX")
	w("\tCMPQ CX, 40(R8)")
	w("\tJB tap%s", n)
	w("")
	w("\tMOVQ 16(R8), R13")
	w("\tLEAQ (DI)(R13*2), R12")
	w("\tADDQ 72(R8), BX")
	w("\tCMPQ BX, 128(R8)")
	w("\tJEQ last%s", n)
	storeRows(w, "")
	w("\tADDQ $64, DI")
	w("\tMOVQ 48(R8), R12")
	w("\tLEAQ (R15)(R12*4), R15")
	w("\tJMP vec%s", n)
	w("")
	w("last%s:", n)
	storeRows(w, "K3")
	w("\tADDQ $64, DI")
	w("\tADDQ 112(R8), DI")
	w("\tADDQ 120(R8), SI")
	w("\tDECQ 104(R8)")
	w("\tJNE row%s", n)
	w("\tVZEROUPPER")
	w("\tRET")
}
