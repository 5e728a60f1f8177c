// Command gen writes the micro-kernels of package gemm (kernel_amd64.s) and
// the unrolled packing routines (gen_pack.go). Run it with `go generate` in
// the package folder.
//
// A micro-kernel computes an mr×nr tile of C from a packed A micro-panel
// (mr floats per k step, kept in L1) and a packed B micro-panel (nr floats
// per k step, streamed from L2): each step loads nr/lanes vectors of B,
// multiplies them by mr broadcast elements of A and accumulates in mr·nr/lanes
// registers. The packed AVX-512 kernels exist in two forms: one
// VBROADCASTSS per A element into one of two free registers feeding the
// FMAs, and (names with an "e" before "acc"/"set") the broadcast inside
// each FMA (embedded broadcast from memory). On Zen 4, 28 micro-fused
// load+FMA per step ran about 6% faster than 14 VBROADCASTSS feeding 28
// FMAs, even with twice the loads; on Ice Lake the embedded form ran at
// half the speed (57 against 113 GFLOP/s, BenchmarkMicroKernel), so the
// kernel set picks the form per CPU vendor. Every kernel exists twice: "acc" adds the tile to C, "set"
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

// peakFMA writes peakFMA512: n iterations of 24 independent register-only
// fused multiply-adds (no memory operand), enough chains to cover the FMA
// latency on two ports, and peakFMA256, its AVX2 form (12 chains of ymm;
// Zen 2: FMA latency 5 on two ports). They measure the core's fp32 peak.
func peakFMA(w func(string, ...any)) {
	writePeakLoop(w, "peakFMA512", "VPXORD", "Z", 24)
	writePeakLoop(w, "peakFMA256", "VXORPS", "Y", 12)
}

// writePeakLoop writes one peak loop: chains accumulators (registers 0 to
// chains-1) fed by two operand registers after them, all cleared by zero.
func writePeakLoop(w func(string, ...any), name, zero, reg string, chains int) {
	w("// func %s(n int)", name)
	w("TEXT ·%s(SB), NOSPLIT, $0-8", name)
	w("\tMOVQ n+0(FP), CX")
	for i := 0; i < chains+2; i++ {
		w("\t%s %s%d, %s%d, %s%d", zero, reg, i, reg, i, reg, i)
	}
	w("\tTESTQ CX, CX")
	w("\tJEQ %s_done", name)
	w("%s_loop:", name)
	for i := 0; i < chains; i++ {
		w("\tVFMADD231PS %s%d, %s%d, %s%d", reg, chains, reg, chains+1, reg, i)
	}
	w("\tDECQ CX")
	w("\tJNE %s_loop", name)
	w("%s_done:", name)
	w("\tVZEROUPPER")
	w("\tRET")
	w("")
}

// packedFamily writes the kernels on a packed A micro-panel: the full
// tile, the last partial panels (r < mr rows) and (AVX-512) the half
// panels, their names ending in tag before "acc" or "set".
func packedFamily(w func(string, ...any), k kernel, tag string) {
	nr := k.nv * k.lanes()
	full := k
	full.name += tag
	full.emit(w, false)
	full.emit(w, true)
	// the last, partial micro-panel of A: r < mr rows straight into C,
	// instead of a full tile into scratch memory and a copy
	for r := 1; r < k.mr; r++ {
		p := k
		p.name, p.mr, p.full = fmt.Sprintf("k%dof%dx%d", r, k.mr, nr)+tag, r, k.mr
		p.emit(w, false)
		p.emit(w, true)
	}
	// (AVX-512) packed A, r ≤ mr rows, against the first half of the B
	// panel: a last panel with at most nr/2 columns (the 4×4 images of a
	// CNN's late layers) costs half
	if k.avx512 {
		for r := 1; r <= k.mr; r++ {
			p := k
			p.name, p.mr, p.full, p.nv, p.panel = packedHalfName(r, k.mr, nr)+tag, r, k.mr, k.nv/2, k.nv
			p.emit(w, false)
			p.emit(w, true)
		}
	}
}

// packedDecls writes the Go declarations and tables of packedFamily's
// partial and half kernels for tag.
func packedDecls(w func(string, ...any), k kernel, tag string) {
	nr := k.nv * k.lanes()
	for r := 1; r < k.mr; r++ {
		for _, v := range []string{"acc", "set"} {
			w("//go:noescape")
			w("func k%dof%dx%d%s%s(kc int, a, b, c *float32, ldc int)", r, k.mr, nr, tag, v)
			w("")
		}
	}
	kernelTable(w, fmt.Sprintf("// partial%dx%d%s lists the kernels for the last r < %d rows of a panel: [r] = {acc, set}.", k.mr, nr, tag, k.mr),
		fmt.Sprintf("partial%dx%d%s", k.mr, nr, tag), packedSig, k.mr, func(r int) string { return fmt.Sprintf("k%dof%dx%d%s", r, k.mr, nr, tag) }, "")
	if !k.avx512 {
		return
	}
	for r := 1; r <= k.mr; r++ {
		for _, v := range []string{"acc", "set"} {
			w("//go:noescape")
			w("func %s%s%s(kc int, a, b, c *float32, ldc int)", packedHalfName(r, k.mr, nr), tag, v)
			w("")
		}
	}
	kernelTable(w, fmt.Sprintf("// packedHalf%dx%d%s lists the packed kernels for r ≤ %d rows and the first %d columns of a B panel: [r] = {acc, set}.", k.mr, nr, tag, k.mr, nr/2),
		fmt.Sprintf("packedHalf%dx%d%s", k.mr, nr, tag), packedSig, k.mr+1, func(r int) string { return packedHalfName(r, k.mr, nr) + tag }, "")
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
		packedFamily(w, k, "")
		if k.avx512 {
			// the same with embedded broadcasts: the faster form on Zen 4
			e := k
			e.bcst = true
			packedFamily(w, e, "e")
		}
		// A read in place (no packing), r ≤ mr rows, and (AVX-512) the
		// same for the first half of the B panel: a last panel of the
		// product with at most nr/2 columns costs half
		for r := 1; r <= k.mr; r++ {
			d := k
			d.name, d.mr, d.direct = directName(r, k.nv*k.lanes()), r, true
			d.emit(w, false)
			d.emit(w, true)
			d.panels = true
			d.emit(w, false)
			d.emit(w, true)
			d.panels = false
			if k.avx512 {
				d.name, d.nv, d.panel = halfName(r, k.nv*k.lanes()), k.nv/2, k.nv
				d.emit(w, false)
				d.emit(w, true)
			}
		}
		// (AVX2) A read in place against B read in place through an
		// offset per k step (an implicit convolution): r ≤ mr rows, tiles
		// of nr and of nr/2 columns
		if !k.avx512 {
			for r := 1; r <= k.mr; r++ {
				for _, nv := range []int{k.nv, k.nv / 2} {
					d := k
					d.name, d.mr, d.nv, d.direct, d.taps = tapsName(r, nv*k.lanes()), r, nv, true, true
					d.emit(w, false)
					d.emit(w, true)
				}
			}
		}
		// (AVX-512) A column-major, read in place: r ≤ mr rows, one B
		// panel or a row of them
		if k.avx512 {
			for r := 1; r <= k.mr; r++ {
				d := k
				d.name, d.mr, d.direct, d.colMajor = directTName(r, k.nv*k.lanes()), r, true, true
				d.emit(w, false)
				d.emit(w, true)
				d.panels = true
				d.emit(w, false)
				d.emit(w, true)
			}
		}
	}
	packA14AVX512(w)
	packBCopy(w, 32)
	packBCopy(w, 16)
	packB32PartAVX512(w)
	transB16AVX512(w)
	copyA14TAVX512(w)
	peakFMA(w)
	gatherConv(w)
	stripKernel(w, 16)
	stripKernel(w, 8)
	tapsKernel(w, 16)
	tapsKernel(w, 8)
	tapsOneKernel(w, 16)
	tapsOneKernel(w, 8)
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
		packedDecls(w, k, "")
		if k.avx512 {
			packedDecls(w, k, "e")
		}
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
			for r := 1; r <= k.mr; r++ {
				for _, v := range []string{"acc", "set", "accn", "setn"} {
					w("//go:noescape")
					if len(v) == 4 {
						w("func %s%s(kc int, a *float32, lda int, b, c *float32, ldc int, panels int)", directTName(r, nr), v)
					} else {
						w("func %s%s(kc int, a *float32, lda int, b, c *float32, ldc int)", directTName(r, nr), v)
					}
					w("")
				}
			}
			kernelTable(w, fmt.Sprintf("// directT%dx%d lists the kernels that read r ≤ %d rows of a column-major A in place: [r] = {acc, set}.", k.mr, nr, k.mr),
				fmt.Sprintf("directT%dx%d", k.mr, nr), directSig, k.mr+1, func(r int) string { return directTName(r, nr) }, "")
			kernelTable(w, fmt.Sprintf("// directT%dx%dN lists the same over a row of B panels (one at least): [r] = {acc, set}.", k.mr, nr),
				fmt.Sprintf("directT%dx%dN", k.mr, nr), directNSig, k.mr+1, func(r int) string { return directTName(r, nr) }, "n")
			kernelTable(w, fmt.Sprintf("// half%dx%d lists the direct kernels for the first %d columns of a B panel: [r] = {acc, set}.", k.mr, nr, nr/2),
				fmt.Sprintf("half%dx%d", k.mr, nr), directSig, k.mr+1, func(r int) string { return halfName(r, nr) }, "")
		}
		for r := 1; r <= k.mr; r++ {
			for _, v := range []string{"acc", "set"} {
				w("//go:noescape")
				w("func %s%sn(kc int, a *float32, lda int, b, c *float32, ldc int, panels int)", directName(r, nr), v)
				w("")
			}
		}
		if !k.avx512 {
			for _, tn := range []int{nr, nr / 2} {
				for r := 1; r <= k.mr; r++ {
					for _, v := range []string{"acc", "set"} {
						w("//go:noescape")
						w("func %s%sn(kc int, a *float32, lda int, b *float32, offs *int, c *float32, ldc int, panels int)", tapsName(r, tn), v)
						w("")
					}
				}
				kernelTable(w, fmt.Sprintf("// taps%dx%d lists the direct kernels over a row of tiles %d columns wide whose B is read in place at an offset per k step: [r] = {acc, set}.", k.mr, tn, tn),
					fmt.Sprintf("taps%dx%d", k.mr, tn), tapsSig, k.mr+1, func(r int) string { return tapsName(r, tn) }, "n")
			}
		}
		kernelTable(w, fmt.Sprintf("// direct%dx%dN lists the direct kernels over a row of B panels (one at least): [r] = {acc, set}.", k.mr, nr),
			fmt.Sprintf("direct%dx%dN", k.mr, nr), directNSig, k.mr+1, func(r int) string { return directName(r, nr) }, "n")
		kernelTable(w, fmt.Sprintf("// direct%dx%d lists the kernels that read r ≤ %d rows of A in place: [r] = {acc, set}.", k.mr, nr, k.mr),
			fmt.Sprintf("direct%dx%d", k.mr, nr), directSig, k.mr+1, func(r int) string { return directName(r, nr) }, "")
	}
	w("//go:noescape")
	w("func transposeS16(dst, src *float32, ldb, n16 int)")
	w("")
	for _, r := range []int{16, 8} {
		w("//go:noescape")
		w("func strip%dx16(k int, a, b *float32, ldb int, c *float32, ldc int, strips, vecs int, mask uint16)", r)
		w("")
		w("//go:noescape")
		w("func taps%dx16(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int)", r)
		w("")
		w("//go:noescape")
		w("func tapsOne%dx16(c int, a, x *float32, hw int, offs *int64, masks *uint16, taps int, out *float32, ldc int, vecs int, mstride int)", r)
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

func write(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// The signatures of the kernel tables' functions.
const (
	packedSig  = "(kc int, a, b, c *float32, ldc int)"
	directSig  = "(kc int, a *float32, lda int, b, c *float32, ldc int)"
	directNSig = "(kc int, a *float32, lda int, b, c *float32, ldc int, panels int)"
	tapsSig    = "(kc int, a *float32, lda int, b *float32, offs *int, c *float32, ldc int, panels int)"
)

// kernelTable writes a Go table of kernel pairs with its comment: var
// name = [rows][2]func sig{{nil, nil}, {name(1)+"acc"+suffix,
// name(1)+"set"+suffix}, …}.
func kernelTable(w func(string, ...any), comment, name, sig string, rows int, base func(r int) string, suffix string) {
	w("%s", comment)
	w("var %s = [%d][2]func%s{", name, rows, sig)
	w("\t{nil, nil},")
	for r := 1; r < rows; r++ {
		w("\t{%sacc%s, %sset%s},", base(r), suffix, base(r), suffix)
	}
	w("}")
	w("")
}
