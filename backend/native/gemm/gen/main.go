// Command gen writes the micro-kernels of package gemm (kernel_amd64.s) and
// the unrolled packing routines (gen_pack.go). Run it with `go generate` in
// the package folder.
//
// A micro-kernel computes an mr×nr tile of C from a packed A micro-panel
// (mr floats per k step, kept in L1) and a packed B micro-panel (nr floats
// per k step, streamed from L2): each step loads nr/lanes vectors of B,
// multiplies them by mr broadcast elements of A and accumulates in mr·nr/lanes
// registers. The packed AVX-512 kernels broadcast A inside each FMA
// (embedded broadcast from memory): 28 micro-fused load+FMA per step ran
// about 6% faster than 14 VBROADCASTSS into two registers feeding 28 FMAs,
// even with twice the loads. Every kernel exists twice: "acc" adds the tile to C, "set"
// overwrites C (the first k block of C = A·B, so C needs no clearing). The C
// tile is prefetched on entry, and B is prefetched pfB bytes ahead.
//
// The direct kernels (kRxNRd, for r ≤ mr rows) read A in place from a
// row-major matrix instead of a packed micro-panel: one broadcast per row
// per k step from rows lda floats apart, so a caller whose A is stored
// row-major (a convolution's weights) never packs or copies it.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

type kernel struct {
	name   string
	avx512 bool // zmm with embedded broadcast; else ymm with VBROADCASTSS
	mr, nv int  // rows; vectors per row (nr = nv·lanes)
	pfB    int  // B prefetch distance in bytes
	full   int  // for a partial kernel (mr < the panel height), the panel height
	// direct: A read in place from a row-major matrix (row stride lda)
	// instead of a packed micro-panel
	direct bool
	// panel: vectors per k step of the B panel, when more than nv (a
	// half kernel: the first nv·lanes columns of a wider panel)
	panel int
	// bcst: each multiply-add broadcasts its A element from memory
	// (embedded broadcast, one micro-fused load+FMA) instead of sharing
	// a VBROADCASTSS into a register (packed AVX-512 kernels only)
	bcst bool
}

// astride is the floats of A per k step: the full height mr for a
// partial kernel (the last rows of a panel) too.
func (k kernel) astride() int {
	if k.full > 0 {
		return k.full
	}
	return k.mr
}

func (k kernel) lanes() int {
	if k.avx512 {
		return 16
	}
	return 8
}

func (k kernel) emit(w func(string, ...any), set bool) {
	vb := 4 * k.lanes() // bytes per vector
	reg := func(i int) string {
		if k.avx512 {
			return fmt.Sprintf("Z%d", i)
		}
		return fmt.Sprintf("Y%d", i)
	}
	name := k.name + "acc"
	if set {
		name = k.name + "set"
	}
	nacc := k.mr * k.nv
	if k.direct {
		w("// func %s(kc int, a *float32, lda int, b, c *float32, ldc int)", name)
		w("TEXT ·%s(SB), NOSPLIT, $0-48", name)
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		w("\tMOVQ lda+16(FP), R10")
		w("\tMOVQ b+24(FP), BX")
		w("\tMOVQ c+32(FP), DI")
		w("\tMOVQ ldc+40(FP), DX")
		w("\tSHLQ $2, R10")
		w("\tLEAQ (R10)(R10*2), R11") // 3 rows
		if k.mr > 5 {
			w("\tLEAQ (AX)(R10*4), R12")
			w("\tADDQ R10, R12") // row 5
		}
		if k.mr > 10 {
			w("\tLEAQ (R12)(R10*4), R13")
			w("\tADDQ R10, R13") // row 10
		}
	} else {
		w("// func %s(kc int, a, b, c *float32, ldc int)", name)
		w("TEXT ·%s(SB), NOSPLIT, $0-40", name)
		w("\tMOVQ kc+0(FP), CX")
		w("\tMOVQ a+8(FP), AX")
		w("\tMOVQ b+16(FP), BX")
		w("\tMOVQ c+24(FP), DI")
		w("\tMOVQ ldc+32(FP), DX")
	}
	w("\tSHLQ $2, DX")
	// prefetch the C tile: every line a row of the tile touches
	w("\tMOVQ DI, R8")
	for r := 0; r < k.mr; r++ {
		for off := 0; off < vb*k.nv; off += 64 {
			w("\tPREFETCHT0 %d(R8)", off)
		}
		w("\tPREFETCHT0 %d(R8)", vb*k.nv-4)
		if r < k.mr-1 {
			w("\tADDQ DX, R8")
		}
	}
	for r := 0; r < nacc; r++ {
		if k.avx512 {
			w("\tVPXORD %s, %s, %s", reg(r), reg(r), reg(r))
		} else {
			w("\tVXORPS %s, %s, %s", reg(r), reg(r), reg(r))
		}
	}
	w("\tTESTQ CX, CX")
	w("\tJEQ %s_store", name)
	// one k step at A + aoff, B + boff
	step := func(aoff, boff int) {
		for v := 0; v < k.nv; v++ {
			w("\tVMOVUPS %d(BX), %s", boff+vb*v, reg(nacc+v))
		}
		for off := 0; off < vb*k.nv; off += 64 {
			w("\tPREFETCHT0 %d(BX)", k.pfB+boff+off)
		}
		// one broadcast per A element, alternating between the free
		// registers so consecutive rows do not wait on each other
		nbc := 1
		if k.avx512 {
			nbc = 32 - nacc - k.nv
		}
		for r := 0; r < k.mr; r++ {
			if k.bcst && !k.direct {
				for v := 0; v < k.nv; v++ {
					w("\tVFMADD231PS.BCST %d(AX), %s, %s", aoff+4*r, reg(nacc+v), reg(r*k.nv+v))
				}
				continue
			}
			bc := reg(nacc + k.nv + r%nbc)
			if k.direct {
				w("\tVBROADCASTSS %s, %s", directRow(r, aoff), bc)
			} else {
				w("\tVBROADCASTSS %d(AX), %s", aoff+4*r, bc)
			}
			for v := 0; v < k.nv; v++ {
				w("\tVFMADD231PS %s, %s, %s", bc, reg(nacc+v), reg(r*k.nv+v))
			}
		}
	}
	as, bs := 4*k.astride(), vb*max(k.nv, k.panel)
	advanceA := func(n int) {
		w("\tADDQ $%d, AX", n)
		if k.direct && k.mr > 5 {
			w("\tADDQ $%d, R12", n)
		}
		if k.direct && k.mr > 10 {
			w("\tADDQ $%d, R13", n)
		}
	}
	if k.direct {
		as = 4 // one float of each row per k step
	}
	// an odd step first, then the loop two steps at a time (half the
	// pointer and counter updates)
	w("\tTESTQ $1, CX")
	w("\tJEQ %s_even", name)
	step(0, 0)
	advanceA(as)
	w("\tADDQ $%d, BX", bs)
	w("%s_even:", name)
	w("\tSHRQ $1, CX")
	w("\tJEQ %s_store", name)
	w("%s_loop:", name)
	step(0, 0)
	step(as, bs)
	advanceA(2 * as)
	w("\tADDQ $%d, BX", 2*bs)
	w("\tDECQ CX")
	w("\tJNE %s_loop", name)
	w("%s_store:", name)
	for r := 0; r < k.mr; r++ {
		for v := 0; v < k.nv; v++ {
			if !set {
				w("\tVADDPS %d(DI), %s, %s", vb*v, reg(r*k.nv+v), reg(r*k.nv+v))
			}
			w("\tVMOVUPS %s, %d(DI)", reg(r*k.nv+v), vb*v)
		}
		if r < k.mr-1 {
			w("\tADDQ DX, DI")
		}
	}
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

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

// peakFMA writes peakFMA512: n iterations of 24 independent register-only
// fused multiply-adds (no memory operand), enough chains to cover the FMA
// latency on two ports. It measures the core's fp32 peak.
func peakFMA(w func(string, ...any)) {
	w("// func peakFMA512(n int)")
	w("TEXT ·peakFMA512(SB), NOSPLIT, $0-8")
	w("\tMOVQ n+0(FP), CX")
	for i := 0; i < 26; i++ {
		w("\tVPXORD Z%d, Z%d, Z%d", i, i, i)
	}
	w("\tTESTQ CX, CX")
	w("\tJEQ peakFMA512_done")
	w("peakFMA512_loop:")
	for i := 0; i < 24; i++ {
		w("\tVFMADD231PS Z24, Z25, Z%d", i)
	}
	w("\tDECQ CX")
	w("\tJNE peakFMA512_loop")
	w("peakFMA512_done:")
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
func transB16AVX512(w func(string, ...any)) {
	z := func(i int) string { return fmt.Sprintf("Z%d", i) }
	w("// func transposeB16(dst, src *float32, ldb, n16 int)")
	w("TEXT ·transposeB16(SB), NOSPLIT, $0-32")
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
	w("\tJEQ transposeB16_done")
	w("transposeB16_loop:")
	cols := []string{"(SI)", "(SI)(DX*1)", "(SI)(DX*2)", "(SI)(BX*1)", "(SI)(DX*4)", "(R8)", "(SI)(BX*2)",
		"(R8)(DX*2)", "(SI)(DX*8)", "(R8)(DX*4)", "(R9)", "(R8)(BX*2)", "(SI)(BX*4)", "(R8)(DX*8)", "(R9)(DX*4)", "(R10)"}
	for i, a := range cols {
		w("\tVMOVUPS %s, %s", a, z(i))
	}
	transpose16(w, z)
	for q := 0; q < 16; q++ {
		w("\tVMOVUPS %s, %d(DI)", z(q%4*4+q/4), 128*q)
	}
	w("\tADDQ $64, SI")
	w("\tADDQ $64, R8")
	w("\tADDQ $64, R9")
	w("\tADDQ $64, R10")
	w("\tADDQ $%d, DI", 16*128)
	w("\tDECQ CX")
	w("\tJNE transposeB16_loop")
	w("transposeB16_done:")
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

// packB32AVX512 writes copyB32: kb rows of np 32-column B micro-panels
// from a row-major B (row stride ldb floats) into packed panels (each kb·32
// floats, k-major). Row by row: one sequential read stream and np write
// streams, two zmm per panel row instead of a 128-byte memmove call each.
func packB32AVX512(w func(string, ...any)) {
	w("// func copyB32(dst, src *float32, ldb, kb, np int)")
	w("TEXT ·copyB32(SB), NOSPLIT, $0-40")
	w("\tMOVQ dst+0(FP), DI")
	w("\tMOVQ src+8(FP), SI")
	w("\tMOVQ ldb+16(FP), DX")
	w("\tMOVQ kb+24(FP), CX")
	w("\tMOVQ np+32(FP), R9")
	w("\tSHLQ $2, DX")
	w("\tMOVQ CX, R10")
	w("\tSHLQ $7, R10") // bytes per packed panel
	w("\tTESTQ CX, CX")
	w("\tJEQ copyB32_done")
	w("\tTESTQ R9, R9")
	w("\tJEQ copyB32_done")
	w("copyB32_row:")
	w("\tMOVQ SI, R11")
	w("\tMOVQ DI, R12")
	w("\tMOVQ R9, R13")
	w("copyB32_col:")
	w("\tVMOVUPS (R11), Z0")
	w("\tVMOVUPS 64(R11), Z1")
	w("\tVMOVUPS Z0, (R12)")
	w("\tVMOVUPS Z1, 64(R12)")
	w("\tADDQ $128, R11")
	w("\tADDQ R10, R12")
	w("\tDECQ R13")
	w("\tJNE copyB32_col")
	w("\tADDQ DX, SI")
	w("\tADDQ $128, DI")
	w("\tDECQ CX")
	w("\tJNE copyB32_row")
	w("copyB32_done:")
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// directRow is the address of row r (< 14) of a direct kernel's A, disp
// bytes on: AX is row 0, R12 row 5, R13 row 10, R10 the row stride in
// bytes and R11 three times it (the addressing of transposeA14).
func directRow(r, disp int) string {
	return fmt.Sprintf("%d%s", disp, []string{"(AX)", "(AX)(R10*1)", "(AX)(R10*2)", "(AX)(R11*1)", "(AX)(R10*4)", "(R12)",
		"(AX)(R11*2)", "(R12)(R10*2)", "(AX)(R10*8)", "(R12)(R10*4)", "(R13)", "(R12)(R11*2)", "(AX)(R11*4)", "(R12)(R10*8)"}[r])
}

var kernels = []kernel{
	{name: "k14x32", avx512: true, mr: 14, nv: 2, pfB: 1024, bcst: true},
	{name: "k6x16", avx512: false, mr: 6, nv: 2, pfB: 512},
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

func main() {
	var s bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&s, format+"\n", args...) }
	w("// Code generated by gen/main.go. DO NOT EDIT.")
	w("")
	w("//go:build amd64 && !purego")
	w("")
	w("#include \"textflag.h\"")
	w("")
	for _, k := range kernels {
		k.emit(w, false)
		k.emit(w, true)
		// the last, partial micro-panel of A: r < mr rows straight into C,
		// instead of a full tile into scratch memory and a copy
		for r := 1; r < k.mr; r++ {
			p := k
			p.name, p.mr, p.full = fmt.Sprintf("k%dof%dx%d", r, k.mr, k.nv*k.lanes()), r, k.mr
			p.emit(w, false)
			p.emit(w, true)
		}
		// A read in place (no packing), r ≤ mr rows, and (AVX-512) the
		// same for the first half of the B panel: a last panel of the
		// product with at most nr/2 columns costs half
		for r := 1; r <= k.mr; r++ {
			d := k
			d.name, d.mr, d.direct = directName(r, k.nv*k.lanes()), r, true
			d.emit(w, false)
			d.emit(w, true)
			if k.avx512 {
				d.name, d.nv, d.panel = halfName(r, k.nv*k.lanes()), k.nv/2, k.nv
				d.emit(w, false)
				d.emit(w, true)
			}
		}
	}
	packA14AVX512(w)
	packB32AVX512(w)
	transB16AVX512(w)
	copyA14TAVX512(w)
	peakFMA(w)
	gatherConv(w)
	write("kernel_amd64.s", s.Bytes())

	var d bytes.Buffer
	w = func(format string, args ...any) { fmt.Fprintf(&d, format+"\n", args...) }
	w("// Code generated by gen/main.go. DO NOT EDIT.")
	w("")
	w("//go:build amd64 && !purego")
	w("")
	w("package gemm")
	w("")
	for _, k := range kernels {
		nr := k.nv * k.lanes()
		for r := 1; r < k.mr; r++ {
			for _, v := range []string{"acc", "set"} {
				w("//go:noescape")
				w("func k%dof%dx%d%s(kc int, a, b, c *float32, ldc int)", r, k.mr, nr, v)
				w("")
			}
		}
		w("// partial%dx%d lists the kernels for the last r < %d rows of a panel: [r] = {acc, set}.", k.mr, nr, k.mr)
		w("var partial%dx%d = [%d][2]func(kc int, a, b, c *float32, ldc int){", k.mr, nr, k.mr)
		w("\t{nil, nil},")
		for r := 1; r < k.mr; r++ {
			w("\t{k%dof%dx%dacc, k%dof%dx%dset},", r, k.mr, nr, r, k.mr, nr)
		}
		w("}")
		w("")
		for r := 1; r <= k.mr; r++ {
			for _, v := range []string{"acc", "set"} {
				w("//go:noescape")
				w("func %s%s(kc int, a *float32, lda int, b, c *float32, ldc int)", directName(r, nr), v)
				w("")
			}
		}
		if k.avx512 {
			for r := 1; r <= k.mr; r++ {
				for _, v := range []string{"acc", "set"} {
					w("//go:noescape")
					w("func %s%s(kc int, a *float32, lda int, b, c *float32, ldc int)", halfName(r, nr), v)
					w("")
				}
			}
			w("// half%dx%d lists the direct kernels for the first %d columns of a B panel: [r] = {acc, set}.", k.mr, nr, nr/2)
			w("var half%dx%d = [%d][2]func(kc int, a *float32, lda int, b, c *float32, ldc int){", k.mr, nr, k.mr+1)
			w("\t{nil, nil},")
			for r := 1; r <= k.mr; r++ {
				w("\t{%sacc, %sset},", halfName(r, nr), halfName(r, nr))
			}
			w("}")
			w("")
		}
		w("// direct%dx%d lists the kernels that read r ≤ %d rows of A in place: [r] = {acc, set}.", k.mr, nr, k.mr)
		w("var direct%dx%d = [%d][2]func(kc int, a *float32, lda int, b, c *float32, ldc int){", k.mr, nr, k.mr+1)
		w("\t{nil, nil},")
		for r := 1; r <= k.mr; r++ {
			w("\t{%sacc, %sset},", directName(r, nr), directName(r, nr))
		}
		w("}")
		w("")
	}
	write("gen_kernel_amd64.go", []byte(strings.TrimRight(d.String(), "\n")+"\n"))

	var g bytes.Buffer
	w = func(format string, args ...any) { fmt.Fprintf(&g, format+"\n", args...) }
	w("// Code generated by gen/main.go. DO NOT EDIT.")
	w("")
	w("package gemm")
	w("")
	for _, k := range kernels {
		packRows(w, k.mr)
	}
	write("gen_pack.go", []byte(strings.TrimRight(g.String(), "\n")+"\n"))
}

// directName names the kernel that reads r rows of A in place.
func directName(r, nr int) string { return fmt.Sprintf("k%dx%dd", r, nr) }

// halfName names the direct kernel for the first nr/2 columns of a panel.
func halfName(r, nr int) string { return fmt.Sprintf("k%dx%dof%dd", r, nr/2, nr) }

func write(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
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
