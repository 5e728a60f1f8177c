package main

// flatYDoc heads fast_dwflaty_amd64.s.
const flatYDoc = `// The AVX2 flat kernel of the depthwise convolution (fast_dwflaty.go):
// a 3×3 window at stride 1 with as many output columns as input columns,
// on small planes (7×7 to 14×14: MobileNet's and EfficientNet's later
// layers). Output position p of the plane (row-major, the input's row
// pitch) sums, for each tap t, w[t] × in[p + off_t], where off_t moves the
// tap's rows and columns, but with the lanes whose input lies outside the
// image zeroed: the tap's load is ANDed with a mask per vector and tap
// (masks), which covers a row's left and right ends (where p + off_t
// wraps to the row before or after) and the rows above and below the
// image. Nothing is copied or transposed; loads reach past the plane by
// up to a row and a column each way (the caller makes that memory
// readable). Each output's taps are summed in order from zero by fused
// multiply-adds, the masked ones adding 0·w: the other depthwise kernels'
// results bit for bit. Four vectors go side by side (four independent
// sums: one chain was bound by the multiply-adds' latency), then single
// vectors, then a masked store of the last partial one.
//
// The argument block (dwFlatArgs), 8 bytes a field:
//   0 dst     the channel's output plane
//   8 src     its first tap's source: the input plane − (padT·W + padL)·4
//  16 w       the nine weights
//  24 masks   [vectors][9][8]int32
//  32 pitch   bytes per input row (W·4)
//  40 nv      whole vectors
//  48 last    the partial vector's store mask ([8]int32), nil if none
`

// flatY writes dwFlatY3.
func flatY(w func(string, ...any)) {
	const k = 3
	name := "dwFlatY3"
	w("")
	w("// func %s(p *dwFlatArgs)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-8", name)
	w("\tMOVQ p+0(FP), R8")
	w("\tMOVQ 0(R8), DI")
	w("\tMOVQ 8(R8), R10")
	w("\tMOVQ 32(R8), DX")
	w("\tLEAQ (R10)(DX*1), R11")
	w("\tLEAQ (R11)(DX*1), R12")
	w("\tMOVQ 16(R8), AX")
	for t := 0; t < k*k; t++ {
		w("\tVBROADCASTSS %d(AX), %s", 4*t, wreg3(k, t/k, t%k))
	}
	w("\tMOVQ 24(R8), R9")
	w("\tMOVQ 40(R8), CX")
	rowReg := []string{"R10", "R11", "R12"}
	// tap emits tap t of vector j (0-3) into accumulator Yj via temp.
	tap := func(t, j int, tmp string) {
		ky, kx := t/k, t%k
		w("\tVMOVUPS %d(%s), %s", 4*kx+32*j, rowReg[ky], tmp)
		w("\tVANDPS %d(R9), %s, %s", 32*(9*j+t), tmp, tmp)
		w("\tVFMADD231PS %s, %s, Y%d", tmp, wreg3(k, ky, kx), j)
	}
	advance := func(v int) {
		for _, r := range append([]string{"DI"}, rowReg...) {
			w("\tADDQ $%d, %s", 32*v, r)
		}
		w("\tADDQ $%d, R9", 32*9*v)
	}
	w("")
	w("%s_four:", name)
	w("\tCMPQ CX, $4")
	w("\tJLT %s_one", name)
	for j := 0; j < 4; j++ {
		w("\tVXORPS Y%d, Y%d, Y%d", j, j, j)
	}
	temps := []string{"Y4", "Y5", "Y6"}
	i := 0
	for t := 0; t < k*k; t++ {
		for j := 0; j < 4; j++ {
			tap(t, j, temps[i%3])
			i++
		}
	}
	for j := 0; j < 4; j++ {
		w("\tVMOVUPS Y%d, %d(DI)", j, 32*j)
	}
	advance(4)
	w("\tSUBQ $4, CX")
	w("\tJMP %s_four", name)
	w("")
	w("%s_one:", name)
	w("\tTESTQ CX, CX")
	w("\tJEQ %s_tail", name)
	w("\tVXORPS Y0, Y0, Y0")
	for t := 0; t < k*k; t++ {
		tap(t, 0, temps[t%3])
	}
	w("\tVMOVUPS Y0, (DI)")
	advance(1)
	w("\tDECQ CX")
	w("\tJMP %s_one", name)
	w("")
	w("%s_tail:", name)
	w("\tMOVQ 48(R8), AX")
	w("\tTESTQ AX, AX")
	w("\tJEQ %s_done", name)
	w("\tVXORPS Y0, Y0, Y0")
	for t := 0; t < k*k; t++ {
		tap(t, 0, temps[t%3])
	}
	w("\tVMOVDQU (AX), Y4")
	w("\tVMASKMOVPS Y0, Y4, (DI)")
	w("")
	w("%s_done:", name)
	w("\tVZEROUPPER")
	w("\tRET")
}
