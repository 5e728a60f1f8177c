// The packing routines: AVX-512 transposes and gathers, and the unrolled Go
// packers of gen_pack.go.

package main

import "fmt"

// packA14AVX512 writes transposeA14: 16 k steps of 14 rows of A at a time,
// loaded as 14 vectors (two zero rows make 16), transposed in registers by
// the usual four shuffle stages, and stored as 16 masked 14-float rows of
// the micro-panel. About 0.3 shuffles per float instead of a load and a
// store per float in Go.
func packA14AVX512(w func(string, ...any)) {
	z := func(i int) string { return fmt.Sprintf("Z%d", i) }
	w("// func transposeA14(p, src *float32, lda, n16 int)")
	w("TEXT ·transposeA14(SB), NOSPLIT, $0-32")
	w("\tMOVQ p+0(FP), DI")
	w("\tMOVQ src+8(FP), SI")
	w("\tMOVQ lda+16(FP), DX")
	w("\tMOVQ n16+24(FP), CX")
	w("\tSHLQ $2, DX")
	w("\tLEAQ (DX)(DX*2), BX") // 3 rows
	w("\tLEAQ (SI)(DX*4), R8")
	w("\tADDQ DX, R8") // row 5
	w("\tLEAQ (R8)(DX*4), R9")
	w("\tADDQ DX, R9") // row 10
	w("\tMOVL $0x3fff, AX")
	w("\tKMOVW AX, K1")
	w("\tTESTQ CX, CX")
	w("\tJEQ transposeA14_done")
	w("transposeA14_loop:")
	// row i: base register and index
	rows := []string{"(SI)", "(SI)(DX*1)", "(SI)(DX*2)", "(SI)(BX*1)", "(SI)(DX*4)", "(R8)", "(SI)(BX*2)",
		"(R8)(DX*2)", "(SI)(DX*8)", "(R8)(DX*4)", "(R9)", "(R8)(BX*2)", "(SI)(BX*4)", "(R8)(DX*8)"}
	for i, a := range rows {
		w("\tVMOVUPS %s, %s", a, z(i))
	}
	w("\tVPXORD Z14, Z14, Z14")
	w("\tVPXORD Z15, Z15, Z15")
	transpose16(w, z)
	// rows of 14 floats (56 bytes) stored in order as whole vectors, each
	// spilling 8 bytes into the next row before that row overwrites them;
	// the last one masked, so that nothing past the panel is written
	for q := 0; q < 16; q++ {
		r := z(q%4*4 + q/4)
		if q == 15 {
			w("\tVMOVUPS %s, K1, %d(DI)", r, 56*q)
			continue
		}
		w("\tVMOVUPS %s, %d(DI)", r, 56*q)
	}
	w("\tADDQ $64, SI")
	w("\tADDQ $64, R8")
	w("\tADDQ $64, R9")
	w("\tADDQ $%d, DI", 16*56)
	w("\tDECQ CX")
	w("\tJNE transposeA14_loop")
	w("transposeA14_done:")
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// gatherConv writes gatherConv32: one B micro-panel of 32 columns of an
// implicit im2col matrix, kb rows deep. Column l has a base offset, row and
// column in the image (cols: off[32], y[32], x[32], then a flag per half
// of 16 columns); k step q a tap offset, row and column (taps: 3 int32 per
// step). The value is img[off[l]+toff[q]] where y[l]+ty[q] and x[l]+tx[q]
// lie inside the image (one unsigned compare each against hw = {h, w}),
// else zero. A half whose offsets are consecutive (flag set: stride 1,
// one output row) is one masked load per step, any other a masked gather;
// no branch depends on the data.
func gatherConv(w func(string, ...any)) {
	w("// func gatherConv32(dst, img *float32, cols, taps *int32, kb int, hw *int32)")
	w("TEXT ·gatherConv32(SB), NOSPLIT, $0-48")
	w("\tMOVQ dst+0(FP), DI")
	w("\tMOVQ img+8(FP), DX")
	w("\tMOVQ cols+16(FP), AX")
	w("\tMOVQ taps+24(FP), SI")
	w("\tMOVQ kb+32(FP), CX")
	w("\tMOVQ hw+40(FP), BX")
	for i := 0; i < 6; i++ { // off, y, x for each half
		w("\tVMOVDQU32 %d(AX), Z%d", 64*i, i)
	}
	w("\tMOVLQSX 384(AX), R8") // flag, half 0
	w("\tMOVLQSX 388(AX), R9") // flag, half 1
	w("\tMOVLQSX 0(AX), R10")  // off[0]
	w("\tMOVLQSX 64(AX), R11") // off[16]
	w("\tVPBROADCASTD 0(BX), Z6")
	w("\tVPBROADCASTD 4(BX), Z7")
	w("\tTESTQ CX, CX")
	w("\tJEQ gatherConv32_done")
	w("gatherConv32_loop:")
	w("\tVPBROADCASTD 0(SI), Z8")
	w("\tVPBROADCASTD 4(SI), Z9")
	w("\tVPBROADCASTD 8(SI), Z10")
	w("\tMOVLQSX 0(SI), R12")
	for h := 0; h < 2; h++ {
		y, x, idx, d := 11+4*h, 12+4*h, 13+4*h, 14+4*h
		k1, k2 := 1+2*h, 2+2*h
		flag, off0 := []string{"R8", "R9"}[h], []string{"R10", "R11"}[h]
		w("\tVPADDD Z9, Z%d, Z%d", 2+h, y)
		w("\tVPCMPUD $1, Z6, Z%d, K%d", y, k1)
		w("\tVPADDD Z10, Z%d, Z%d", 4+h, x)
		w("\tVPCMPUD $1, Z7, Z%d, K%d, K%d", x, k1, k2)
		w("\tVPXORD Z%d, Z%d, Z%d", d, d, d)
		w("\tTESTQ %s, %s", flag, flag)
		w("\tJEQ gatherConv32_gather%d", h)
		w("\tLEAQ (R12)(%s*1), R13", off0)
		w("\tVMOVUPS (DX)(R13*4), K%d, Z%d", k2, d)
		w("\tJMP gatherConv32_store%d", h)
		w("gatherConv32_gather%d:", h)
		w("\tVPADDD Z8, Z%d, Z%d", h, idx)
		w("\tVGATHERDPS (DX)(Z%d*4), K%d, Z%d", idx, k2, d)
		w("gatherConv32_store%d:", h)
		w("\tVMOVUPS Z%d, %d(DI)", d, 64*h)
	}
	w("\tADDQ $12, SI")
	w("\tADDQ $128, DI")
	w("\tDECQ CX")
	w("\tJNE gatherConv32_loop")
	w("gatherConv32_done:")
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// transB16AVX512 writes transposeB16: 16 columns of a transposed B (each
// column a contiguous run of k, column stride ldb floats), 16 k steps at a
// time: 16 vectors loaded, transposed in registers as in transposeA14, and
// stored as the 16 k steps' rows of half a 32-column micro-panel (128
// bytes apart). The scalar Go loop it replaces wrote one float per step.
// transposeS16 is the same into a 16-row strip of a StripA (rows of 16
// floats, 64 bytes apart): 16 rows of a row-major A, k-major.
func transB16AVX512(w func(string, ...any)) {
	transposeRows16(w, "transposeB16", 128)
	transposeRows16(w, "transposeS16", 64)
}

func transposeRows16(w func(string, ...any), name string, stride int) {
	z := func(i int) string { return fmt.Sprintf("Z%d", i) }
	w("// func %s(dst, src *float32, ldb, n16 int)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-32", name)
	w("\tMOVQ dst+0(FP), DI")
	w("\tMOVQ src+8(FP), SI")
	w("\tMOVQ ldb+16(FP), DX")
	w("\tMOVQ n16+24(FP), CX")
	w("\tSHLQ $2, DX")
	w("\tLEAQ (DX)(DX*2), BX") // 3 columns
	w("\tLEAQ (SI)(DX*4), R8")
	w("\tADDQ DX, R8") // column 5
	w("\tLEAQ (R8)(DX*4), R9")
	w("\tADDQ DX, R9") // column 10
	w("\tLEAQ (R9)(DX*4), R10")
	w("\tADDQ DX, R10") // column 15
	w("\tTESTQ CX, CX")
	w("\tJEQ %s_done", name)
	w("%s_loop:", name)
	cols := []string{"(SI)", "(SI)(DX*1)", "(SI)(DX*2)", "(SI)(BX*1)", "(SI)(DX*4)", "(R8)", "(SI)(BX*2)",
		"(R8)(DX*2)", "(SI)(DX*8)", "(R8)(DX*4)", "(R9)", "(R8)(BX*2)", "(SI)(BX*4)", "(R8)(DX*8)", "(R9)(DX*4)", "(R10)"}
	for i, a := range cols {
		w("\tVMOVUPS %s, %s", a, z(i))
	}
	transpose16(w, z)
	for q := 0; q < 16; q++ {
		w("\tVMOVUPS %s, %d(DI)", z(q%4*4+q/4), stride*q)
	}
	w("\tADDQ $64, SI")
	w("\tADDQ $64, R8")
	w("\tADDQ $64, R9")
	w("\tADDQ $64, R10")
	w("\tADDQ $%d, DI", 16*stride)
	w("\tDECQ CX")
	w("\tJNE %s_loop", name)
	w("%s_done:", name)
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// copyA14TAVX512 writes copyA14T: one 14-row micro-panel of a transposed A
// (each k step a run of 14 floats, lda floats apart), one masked zmm load
// and store per step instead of a 56-byte memmove call.
func copyA14TAVX512(w func(string, ...any)) {
	w("// func copyA14T(p, src *float32, lda, kb int)")
	w("TEXT ·copyA14T(SB), NOSPLIT, $0-32")
	w("\tMOVQ p+0(FP), DI")
	w("\tMOVQ src+8(FP), SI")
	w("\tMOVQ lda+16(FP), DX")
	w("\tMOVQ kb+24(FP), CX")
	w("\tSHLQ $2, DX")
	w("\tMOVL $0x3fff, AX")
	w("\tKMOVW AX, K1")
	w("\tTESTQ CX, CX")
	w("\tJEQ copyA14T_done")
	w("copyA14T_loop:")
	w("\tVMOVUPS.Z (SI), K1, Z0") // masked: nothing past the 14 floats is read
	w("\tVMOVUPS Z0, K1, (DI)")
	w("\tADDQ DX, SI")
	w("\tADDQ $56, DI")
	w("\tDECQ CX")
	w("\tJNE copyA14T_loop")
	w("copyA14T_done:")
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// packBCopy writes copyB32 (AVX-512, nr = 32) or copyB16 (AVX2, nr = 16):
// kb rows of np nr-column B micro-panels from a row-major B (row stride
// ldb floats) into packed panels (each kb·nr floats, k-major). Row by
// row: one sequential read stream and np write streams, two vectors per
// panel row instead of a memmove call each.
func packBCopy(w func(string, ...any), nr int) {
	name, reg, vb, shift := "copyB32", "Z", 64, 7
	if nr == 16 {
		name, reg, vb, shift = "copyB16", "Y", 32, 6
	}
	w("// func %s(dst, src *float32, ldb, kb, np int)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-40", name)
	w("\tMOVQ dst+0(FP), DI")
	w("\tMOVQ src+8(FP), SI")
	w("\tMOVQ ldb+16(FP), DX")
	w("\tMOVQ kb+24(FP), CX")
	w("\tMOVQ np+32(FP), R9")
	w("\tSHLQ $2, DX")
	w("\tMOVQ CX, R10")
	w("\tSHLQ $%d, R10", shift) // bytes per packed panel
	w("\tTESTQ CX, CX")
	w("\tJEQ %s_done", name)
	w("\tTESTQ R9, R9")
	w("\tJEQ %s_done", name)
	w("%s_row:", name)
	w("\tMOVQ SI, R11")
	w("\tMOVQ DI, R12")
	w("\tMOVQ R9, R13")
	w("%s_col:", name)
	w("\tVMOVUPS (R11), %s0", reg)
	w("\tVMOVUPS %d(R11), %s1", vb, reg)
	w("\tVMOVUPS %s0, (R12)", reg)
	w("\tVMOVUPS %s1, %d(R12)", reg, vb)
	w("\tADDQ $%d, R11", 2*vb)
	w("\tADDQ R10, R12")
	w("\tDECQ R13")
	w("\tJNE %s_col", name)
	w("\tADDQ DX, SI")
	w("\tADDQ $%d, DI", 2*vb)
	w("\tDECQ CX")
	w("\tJNE %s_row", name)
	w("%s_done:", name)
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// packB32PartAVX512 writes copyB32Part: kb rows of one partial 32-column
// B micro-panel (its first nn < 32 columns; mask has their bits) from a
// row-major B into a packed panel, the columns past nn zero: two masked
// loads (a masked-off lane neither reads nor faults) and two stores per
// row, where the Go loop cleared the panel and moved one float at a time.
func packB32PartAVX512(w func(string, ...any)) {
	w("// func copyB32Part(dst, src *float32, ldb, kb int, mask uint32)")
	w("TEXT ·copyB32Part(SB), NOSPLIT, $0-36")
	w("\tMOVQ dst+0(FP), DI")
	w("\tMOVQ src+8(FP), SI")
	w("\tMOVQ ldb+16(FP), DX")
	w("\tMOVQ kb+24(FP), CX")
	w("\tMOVL mask+32(FP), AX")
	w("\tKMOVW AX, K1")
	w("\tSHRL $16, AX")
	w("\tKMOVW AX, K2")
	w("\tSHLQ $2, DX")
	w("\tTESTQ CX, CX")
	w("\tJEQ copyB32Part_done")
	w("copyB32Part_row:")
	w("\tVMOVUPS.Z (SI), K1, Z0")
	w("\tVMOVUPS.Z 64(SI), K2, Z1")
	w("\tVMOVUPS Z0, (DI)")
	w("\tVMOVUPS Z1, 64(DI)")
	w("\tADDQ DX, SI")
	w("\tADDQ $128, DI")
	w("\tDECQ CX")
	w("\tJNE copyB32Part_row")
	w("copyB32Part_done:")
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// packRows writes packA<mr>: mr rows of A read side by side (mr sequential
// streams), written k-major.
func packRows(w func(string, ...any), mr int) {
	w("// packA%d packs %d rows of A (row stride lda) kb deep: p[q*%d+i] = A[i][q].", mr, mr, mr)
	w("func packA%d(p, src []float32, lda, kb int) {", mr)
	w("\t_ = src[%d*lda+kb-1]", mr-1)
	for i := 0; i < mr; i++ {
		w("\tr%d := src[%d*lda : %d*lda+kb]", i, i, i)
	}
	w("\tp = p[:%d*kb]", mr)
	w("\tfor q := 0; q < kb; q++ {")
	w("\t\td := p[q*%d : q*%d+%d : q*%d+%d]", mr, mr, mr, mr, mr)
	for i := 0; i < mr; i++ {
		w("\t\td[%d] = r%d[q]", i, i)
	}
	w("\t}")
	w("}")
	w("")
}

// transpose16 emits the in-register transpose of Z0…Z15 (16 rows of 16
// floats; Z16…Z31 are scratch): afterwards column q of the input (row q
// of the transpose) is in Z(q%4·4 + q/4).
func transpose16(w func(string, ...any), z func(int) string) {
	// stage 1: pairs of rows interleaved by element
	for i := 0; i < 16; i += 2 {
		w("\tVUNPCKLPS %s, %s, %s", z(i+1), z(i), z(16+i))
		w("\tVUNPCKHPS %s, %s, %s", z(i+1), z(i), z(16+i+1))
	}
	// stage 2: u[4g+c] holds, per 128-bit lane L, rows 4g…4g+3 of column 4L+c
	for g := 0; g < 16; g += 4 {
		t := 16 + g
		w("\tVUNPCKLPD %s, %s, %s", z(t+2), z(t), z(g))
		w("\tVUNPCKHPD %s, %s, %s", z(t+2), z(t), z(g+1))
		w("\tVUNPCKLPD %s, %s, %s", z(t+3), z(t+1), z(g+2))
		w("\tVUNPCKHPD %s, %s, %s", z(t+3), z(t+1), z(g+3))
	}
	// stages 3 and 4: gather lane L of the four groups for each column c
	for c := 0; c < 4; c++ {
		x := func(g int) string { return z(4*g + c) }
		v := 16 + 4*c
		w("\tVSHUFF32X4 $0x44, %s, %s, %s", x(1), x(0), z(v))
		w("\tVSHUFF32X4 $0xee, %s, %s, %s", x(1), x(0), z(v+1))
		w("\tVSHUFF32X4 $0x44, %s, %s, %s", x(3), x(2), z(v+2))
		w("\tVSHUFF32X4 $0xee, %s, %s, %s", x(3), x(2), z(v+3))
	}
	for c := 0; c < 4; c++ {
		v := 16 + 4*c
		// column q = 4L + c, for row q of the panel, lands in Z(4c+L)
		for l, sel := range []struct {
			imm  string
			a, b int
		}{{"$0x88", v, v + 2}, {"$0xdd", v, v + 2}, {"$0x88", v + 1, v + 3}, {"$0xdd", v + 1, v + 3}} {
			w("\tVSHUFF32X4 %s, %s, %s, %s", sel.imm, z(sel.b), z(sel.a), z(c*4+l))
		}
	}
}
