package main

import "fmt"

// rowsYDoc heads fast_dwrows_amd64.s.
const rowsYDoc = `// The row kernel of the direct depthwise convolution (fast_dwconv.go),
// AVX2 with FMA: for each of rows output rows and column x < n,
// dst[x] = Σ_t w[t] × src[offs[t] + x] (offs in bytes), the taps in order,
// each a fused multiply-add onto the running sum from zero; dst and src
// move on by their strides (bytes) from one row to the next.
//
// The argument block (dwArgs):
//   0 dst       first output row
//   8 src       the scratch the offsets are relative to
//  16 offs      per tap: byte offset into src
//  24 w         per tap: the weight
//  32 taps
//  40 n         outputs per row
//  48 rows
//  56 dstStride bytes from one output row to the next
//  64 srcStride bytes from one output row's source to the next's
//
// Rows go three at a time (then two, then one), and each block of a row
// group holds twelve sums at most: 3 rows × 4 vectors of 8 columns, 2 × 6
// or 1 × 12, then the columns left in fewer whole vectors, then a masked
// tail. Each sum is a chain of dependent multiply-adds (5 cycles each on
// Zen 2, two issued a cycle): four chains, the kernel's first form, left
// the FMA units idle more than half the time, twelve keep them busy. A
// tap costs one weight broadcast and one offset load for the whole block.
`

// rowsY writes dwRows: the AVX2 row kernel in row groups of three, two
// and one.
func rowsY(w func(string, ...any)) {
	w("")
	w("// func dwRows(p *dwArgs)")
	w("TEXT ·dwRows(SB), NOSPLIT, $0-8")
	w("\tMOVQ p+0(FP), R8")
	w("\tMOVQ 0(R8), DI")
	w("\tMOVQ 8(R8), SI")
	w("\tMOVQ 16(R8), R9")
	w("\tMOVQ 24(R8), R10")
	w("\tMOVQ 32(R8), R11")
	w("\tMOVQ 48(R8), R12")
	w("\tMOVQ 64(R8), BX")
	w("\tLEAQ (BX)(BX*1), R14 // the third row's source")
	w("\tMOVQ 40(R8), CX")
	w("\t// Y13: the tail's lanes (n mod 8)")
	w("\tMOVQ CX, DX")
	w("\tANDQ $7, DX")
	w("\tSHLQ $2, DX")
	w("\tLEAQ ·laneMask+64(SB), R13")
	w("\tSUBQ DX, R13")
	w("\tVMOVDQU (R13), Y13")
	w("\tSHLQ $2, CX // n in bytes")
	w("")
	w("rows3:")
	w("\tCMPQ R12, $3")
	w("\tJLT rows2")
	group(w, 3)
	w("\tMOVQ 56(R8), DX")
	w("\tLEAQ (DX)(DX*2), DX")
	w("\tADDQ DX, DI")
	w("\tLEAQ (BX)(BX*2), DX")
	w("\tADDQ DX, SI")
	w("\tSUBQ $3, R12")
	w("\tJMP rows3")
	w("")
	w("rows2:")
	w("\tCMPQ R12, $2")
	w("\tJLT rows1")
	group(w, 2)
	w("\tJMP done")
	w("")
	w("rows1:")
	w("\tTESTQ R12, R12")
	w("\tJLE done")
	group(w, 1)
	w("")
	w("done:")
	w("\tVZEROUPPER")
	w("\tRET")
}

// group writes the column loop of an r-row group (AX: the column in
// bytes): blocks of 12/r vectors a row, then the whole vectors left in one
// block, then the masked tail.
func group(w func(string, ...any), r int) {
	v := 12 / r
	w("\tXORQ AX, AX")
	w("")
	w("g%d_cols:", r)
	w("\tLEAQ %d(AX), DX", 32*v)
	w("\tCMPQ DX, CX")
	w("\tJA g%d_rest", r)
	block(w, r, v, false)
	w("\tJMP g%d_cols", r)
	w("")
	w("g%d_rest:", r)
	w("\tMOVQ CX, DX")
	w("\tSUBQ AX, DX")
	for u := v - 1; u >= 1; u-- {
		w("\tCMPQ DX, $%d", 32*u)
		w("\tJAE g%d_v%d", r, u)
	}
	w("\tJMP g%d_tail", r)
	for u := v - 1; u >= 1; u-- {
		w("")
		w("g%d_v%d:", r, u)
		block(w, r, u, false)
		w("\tJMP g%d_tail", r)
	}
	w("")
	w("g%d_tail:", r)
	w("\tCMPQ AX, CX")
	w("\tJAE g%d_end", r)
	block(w, r, 1, true)
	w("")
	w("g%d_end:", r)
}

// block writes one block of r rows × v vectors at column AX (masked by
// Y13: one vector a row, through Y14), then moves AX past it.
func block(w func(string, ...any), r, v int, masked bool) {
	label := fmt.Sprintf("g%d_t%d", r, v)
	if masked {
		label = fmt.Sprintf("g%d_tm", r)
	}
	acc := func(i, j int) string { return fmt.Sprintf("Y%d", i*v+j) }
	row := []string{"(R13)", "(R13)(BX*1)", "(R13)(R14*1)"}
	for i := 0; i < r; i++ {
		for j := 0; j < v; j++ {
			w("\tVXORPS %s, %s, %s", acc(i, j), acc(i, j), acc(i, j))
		}
	}
	w("\tXORQ DX, DX")
	w("")
	w("%s:", label)
	w("\tMOVQ (R9)(DX*8), R13")
	w("\tADDQ SI, R13")
	w("\tADDQ AX, R13")
	w("\tVBROADCASTSS (R10)(DX*4), Y12")
	for i := 0; i < r; i++ {
		for j := 0; j < v; j++ {
			if masked {
				w("\tVMASKMOVPS %s, Y13, Y14", row[i])
				w("\tVFMADD231PS Y14, Y12, %s", acc(i, j))
				continue
			}
			disp := ""
			if j > 0 {
				disp = fmt.Sprint(32 * j)
			}
			w("\tVFMADD231PS %s%s, Y12, %s", disp, row[i], acc(i, j))
		}
	}
	w("\tINCQ DX")
	w("\tCMPQ DX, R11")
	w("\tJB %s", label)
	w("\tLEAQ (DI)(AX*1), R13")
	for i := 0; i < r; i++ {
		if i > 0 {
			w("\tADDQ 56(R8), R13")
		}
		for j := 0; j < v; j++ {
			if masked {
				w("\tVMASKMOVPS %s, Y13, (R13)", acc(i, j))
				continue
			}
			disp := ""
			if j > 0 {
				disp = fmt.Sprint(32 * j)
			}
			w("\tVMOVUPS %s, %s(R13)", acc(i, j), disp)
		}
	}
	if !masked {
		w("\tADDQ $%d, AX", 32*v)
	}
}
