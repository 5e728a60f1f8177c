package main

import "fmt"

// sweepYDoc heads fast_dwsweepy_amd64.s.
const sweepYDoc = `// The AVX2 sweep kernels of the depthwise convolution (fast_dwsweepy.go):
// four output rows of one channel side by side, eight columns per vector,
// for a 3×3 window at stride S both ways (S 1 or 2), straight from the
// NCHW input rows (no padded copy). The nine weights stay in Y7-Y15; per
// vector of columns each of the 3·S+3 input rows the four output rows
// read is loaded once per tap column and added, times the tap's weight,
// into every output row that reads it (18 loads for 36 multiply-adds at
// stride 1). At stride 2 a tap column's sixteen input columns are two
// loads, and tap columns 0 and 1 take the even and the odd lanes of one
// pair (VSHUFPS within the 128-bit halves: the sums' lanes come out in
// the order 0 1 4 5 2 3 6 7, which one VPERMPD per stored row undoes).
// Vectors whose loads all lie inside the row load plainly; the others
// (the row's first and last) load under masks (VMASKMOVPS: the lanes
// outside the row read as zeros and are not touched). Each output row's
// sum runs over its taps in order (rows, then columns) from zero, as the
// other depthwise kernels': the results are theirs bit for bit.
//
// The argument block (dwSweepYArgs), 8 bytes a field:
//   0 dst      first output row
//   8 dstRow   bytes from one output row to the next
//  16 rowPtr   [3·S+3]: the block's input rows (a row of zeros outside the image)
//  24 w        the channel's nine weights
//  32 masks    per vector: the load masks ([S=2: 4, else 3][8]int32)
//  40 colStep  bytes of input per output vector (32·S)
//  48 col0     byte offset of the first vector's first tap (−4·padL)
//  56 colA     the first vector loading plainly (its col offset)
//  64 colB     the end of the vectors loading plainly
//  72 colEnd   col0 + nv·colStep
//  80 last     the last vector's store mask ([8]int32), nil when whole
//  88 blocks   blocks of four output rows (counted down)
//  96 dstAdj   bytes from the end of a block's vectors to the next block
// 104 srcStep  bytes from one block's input rows to the next's
`

// sweepY writes dwSweepY3s1 and dwSweepY3s2.
func sweepY(w func(string, ...any)) {
	for _, s := range []int{1, 2} {
		kernelY(w, 3, s)
	}
}

// kernelY writes dwSweepY<K>s<S> (K = 3: the weights fill Y7-Y15).
func kernelY(w func(string, ...any), k, s int) {
	name := fmt.Sprintf("dwSweepY%ds%d", k, s)
	rows := 3*s + k
	nm := k // masks per vector: one per tap column; stride 2: two per pair
	if s == 2 {
		nm = 2 * ((k + 1) / 2)
	}
	w("")
	w("// func %s(p *dwSweepYArgs)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-8", name)
	w("\tMOVQ p+0(FP), R8")
	w("\tMOVQ 0(R8), DI")
	w("\tXORQ SI, SI")
	w("\tMOVQ 16(R8), R10")
	w("\tMOVQ 24(R8), AX")
	for t := 0; t < k*k; t++ {
		w("\tVBROADCASTSS %d(AX), %s", 4*t, wreg3(k, t/k, t%k))
	}
	w("")
	w("\tMOVQ 104(R8), R11")
	w("")
	w("%s_block:", name)
	w("\tMOVQ 32(R8), R15")
	w("\tMOVQ 48(R8), BX")
	w("\tMOVQ 8(R8), R13")
	w("\tLEAQ (DI)(R13*2), R12")
	w("")
	w("%s_vec:", name)
	for i := 0; i < 4; i++ {
		w("\tVXORPS Y%d, Y%d, Y%d", i, i, i)
	}
	w("\tCMPQ BX, 56(R8)")
	w("\tJLT %s_masked", name)
	w("\tCMPQ BX, 64(R8)")
	w("\tJGE %s_masked", name)
	bodyY(w, k, s, rows, false)
	w("\tJMP %s_sum", name)
	w("")
	w("%s_masked:", name)
	bodyY(w, k, s, rows, true)
	w("")
	w("%s_sum:", name)
	if s == 2 {
		for i := 0; i < 4; i++ {
			w("\tVPERMPD $0xD8, Y%d, Y%d", i, i)
		}
	}
	w("\tADDQ 40(R8), BX")
	w("\tCMPQ BX, 72(R8)")
	w("\tJEQ %s_last", name)
	storeRowsY(w, "")
	w("\tADDQ $32, DI")
	w("\tADDQ $32, R12")
	w("\tADDQ $%d, R15", 32*nm)
	w("\tJMP %s_vec", name)
	w("")
	w("%s_last:", name)
	w("\tMOVQ 80(R8), AX")
	w("\tTESTQ AX, AX")
	w("\tJEQ %s_whole", name)
	w("\tVMOVDQU (AX), Y4")
	storeRowsY(w, "Y4")
	w("\tJMP %s_next", name)
	w("%s_whole:", name)
	storeRowsY(w, "")
	w("%s_next:", name)
	w("\tADDQ $32, DI")
	w("\tADDQ 96(R8), DI")
	w("\tADDQ 104(R8), SI")
	w("\tDECQ 88(R8)")
	w("\tJNE %s_block", name)
	w("\tVZEROUPPER")
	w("\tRET")
}

// bodyY emits one vector's loads and multiply-adds: plain loads, or
// masked ones (the mask of load m read from 32·m(R15) into Y6). Masking
// only the loads that leave the row, a branch per load, measured no
// faster.
func bodyY(w func(string, ...any), k, s, rows int, masked bool) {
	load := func(off, m int, dst string) {
		if masked {
			w("\tVMOVDQU %d(R15), Y6", 32*m)
			w("\tVMASKMOVPS %d(AX), Y6, %s", off, dst)
		} else {
			w("\tVMOVUPS %d(AX), %s", off, dst)
		}
	}
	for j := 0; j < rows; j++ {
		// the output rows i reading input row j: j = S·i + ky
		type use struct{ i, ky int }
		var uses []use
		for i := 0; i < 4; i++ {
			if ky := j - s*i; ky >= 0 && ky < k {
				uses = append(uses, use{i, ky})
			}
		}
		if len(uses) == 0 {
			continue
		}
		w("\tMOVQ %d(R10), AX", 8*j)
		w("\tADDQ SI, AX")
		w("\tADDQ BX, AX")
		if !masked && j >= rows-4*s {
			// the next block's input row (the row 4·S below)
			w("\tPREFETCHT0 (AX)(R11*1)")
		}
		for kx := 0; kx < k; kx++ {
			src := "Y4"
			switch {
			case s == 1:
				load(4*kx, kx, "Y4")
			case kx%2 == 1:
				src = "Y6" // the odd lanes of tap column kx-1's loads
			default:
				load(4*kx, kx, "Y4")
				load(4*kx+32, kx+1, "Y5")
				if kx+1 < k {
					w("\tVSHUFPS $0xDD, Y5, Y4, Y6")
				}
				w("\tVSHUFPS $0x88, Y5, Y4, Y4")
			}
			for _, u := range uses {
				w("\tVFMADD231PS %s, %s, Y%d", src, wreg3(k, u.ky, kx), u.i)
			}
		}
	}
}

// wreg3 is the register of tap (ky, kx)'s weight.
func wreg3(k, ky, kx int) string { return fmt.Sprintf("Y%d", 7+ky*k+kx) }

// storeRowsY emits the stores of a block's four output rows from Y0-Y3
// (DI and R12 = DI + 2·R13 address rows 0 and 2, R13 is a row's bytes),
// under the mask in register mask ("" for none).
func storeRowsY(w func(string, ...any), mask string) {
	for i, o := range []string{"(DI)", "(DI)(R13*1)", "(R12)", "(R12)(R13*1)"} {
		if mask == "" {
			w("\tVMOVUPS Y%d, %s", i, o)
		} else {
			w("\tVMASKMOVPS Y%d, %s, %s", i, mask, o)
		}
	}
}
