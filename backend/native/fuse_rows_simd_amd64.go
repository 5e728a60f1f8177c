//go:build amd64 && !purego

package native

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The AVX2 loops of fuse_rows_simd_amd64.s.

//go:noescape
func addRR32(d, x, y *float32, n int)

//go:noescape
func subRR32(d, x, y *float32, n int)

//go:noescape
func mulRR32(d, x, y *float32, n int)

//go:noescape
func divRR32(d, x, y *float32, n int)

//go:noescape
func addRS32(d, x *float32, c float32, n int)

//go:noescape
func subRS32(d, x *float32, c float32, n int)

//go:noescape
func mulRS32(d, x *float32, c float32, n int)

//go:noescape
func divRS32(d, x *float32, c float32, n int)

//go:noescape
func addSR32(d *float32, c float32, y *float32, n int)

//go:noescape
func subSR32(d *float32, c float32, y *float32, n int)

//go:noescape
func mulSR32(d *float32, c float32, y *float32, n int)

//go:noescape
func divSR32(d *float32, c float32, y *float32, n int)

//go:noescape
func maxRR32(d, x, y *float32, n int)

//go:noescape
func minRR32(d, x, y *float32, n int)

//go:noescape
func maxRS32(d, x *float32, c float32, n int)

//go:noescape
func minRS32(d, x *float32, c float32, n int)

//go:noescape
func nanSelRR32(d, a, y *float32, n int)

//go:noescape
func selSREQ(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRNE(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRLT(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRLE(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRGT(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRGE(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRNLT(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRNLE(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRNGT(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selSRNGE(d, a *float32, b, xs float32, y *float32, n int)

//go:noescape
func selRREQ(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRNE(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRLT(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRLE(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRGT(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRGE(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRNLT(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRNLE(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRNGT(d, a *float32, b float32, x, y *float32, n int)

//go:noescape
func selRRNGE(d, a *float32, b float32, x, y *float32, n int)

// selRRR* are d = (a pred b) ? x : y over n lanes, every operand a row.
//
//go:noescape
func selRRREQ(d, a, b, x, y *float32, n int)

//go:noescape
func selRRRNE(d, a, b, x, y *float32, n int)

//go:noescape
func selRRRLT(d, a, b, x, y *float32, n int)

//go:noescape
func selRRRLE(d, a, b, x, y *float32, n int)

//go:noescape
func selRRRGT(d, a, b, x, y *float32, n int)

//go:noescape
func selRRRGE(d, a, b, x, y *float32, n int)

// selRRR takes a predicate index (predEQ ... predGE).
func selRRR(p int, d, a, b, x, y *float32, n int) {
	switch p {
	case predEQ:
		selRRREQ(d, a, b, x, y, n)
	case predNE:
		selRRRNE(d, a, b, x, y, n)
	case predLT:
		selRRRLT(d, a, b, x, y, n)
	case predLE:
		selRRRLE(d, a, b, x, y, n)
	case predGT:
		selRRRGT(d, a, b, x, y, n)
	case predGE:
		selRRRGE(d, a, b, x, y, n)
	}
}

// boolsF32 writes 1 where b[k] != 0 and 0 elsewhere into d[k], for
// k < n&^7.
//
//go:noescape
func boolsF32(d *float32, b *byte, n int)

// selPRR32 is d = p != 0 ? x : y over n lanes.
//
//go:noescape
func selPRR32(d, p, x, y *float32, n int)

// simdRows reports whether the AVX2 loops run here.
var simdRows = cpu.X86.HasAVX2

// rowsWide makes the add, subtract, multiply and divide loops (binRR,
// binRS, binSR and the chains' steps) take their AVX-512 paths: 32 lanes
// a step and a k-masked tail. The assembly reads it.
var rowsWide = cpu.X86.HasAVX512F && cpu.X86.HasBMI2

// The dispatchers call the assembly directly: through func values, the
// //go:noescape promise would not be seen and the rows' arrays would
// escape to the heap.

func binRR(op int, d, x, y *float32, n int) {
	switch op {
	case opAdd:
		addRR32(d, x, y, n)
	case opSub:
		subRR32(d, x, y, n)
	case opMul:
		mulRR32(d, x, y, n)
	case opDiv:
		divRR32(d, x, y, n)
	case opMax:
		maxRR32(d, x, y, n)
	case opMin:
		minRR32(d, x, y, n)
	}
}

func binRS(op int, d, x *float32, c float32, n int) {
	switch op {
	case opAdd:
		addRS32(d, x, c, n)
	case opSub:
		subRS32(d, x, c, n)
	case opMul:
		mulRS32(d, x, c, n)
	case opDiv:
		divRS32(d, x, c, n)
	case opMax:
		maxRS32(d, x, c, n)
	case opMin:
		minRS32(d, x, c, n)
	}
}

func binSR(op int, d *float32, c float32, y *float32, n int) {
	switch op {
	case opAdd:
		addSR32(d, c, y, n)
	case opSub:
		subSR32(d, c, y, n)
	case opMul:
		mulSR32(d, c, y, n)
	case opDiv:
		divSR32(d, c, y, n)
	case opMax, opMin:
		minMaxSR(op, d, c, y, n)
	}
}

// selSR and selRR take a predicate index (predEQ ...).
func selSR(p int, d, a *float32, b, xs float32, y *float32, n int) {
	switch p {
	case predEQ:
		selSREQ(d, a, b, xs, y, n)
	case predNE:
		selSRNE(d, a, b, xs, y, n)
	case predLT:
		selSRLT(d, a, b, xs, y, n)
	case predLE:
		selSRLE(d, a, b, xs, y, n)
	case predGT:
		selSRGT(d, a, b, xs, y, n)
	case predGE:
		selSRGE(d, a, b, xs, y, n)
	case predNLT:
		selSRNLT(d, a, b, xs, y, n)
	case predNLE:
		selSRNLE(d, a, b, xs, y, n)
	case predNGT:
		selSRNGT(d, a, b, xs, y, n)
	case predNGE:
		selSRNGE(d, a, b, xs, y, n)
	}
}

func selRR(p int, d, a *float32, b float32, x, y *float32, n int) {
	switch p {
	case predEQ:
		selRREQ(d, a, b, x, y, n)
	case predNE:
		selRRNE(d, a, b, x, y, n)
	case predLT:
		selRRLT(d, a, b, x, y, n)
	case predLE:
		selRRLE(d, a, b, x, y, n)
	case predGT:
		selRRGT(d, a, b, x, y, n)
	case predGE:
		selRRGE(d, a, b, x, y, n)
	case predNLT:
		selRRNLT(d, a, b, x, y, n)
	case predNLE:
		selRRNLE(d, a, b, x, y, n)
	case predNGT:
		selRRNGT(d, a, b, x, y, n)
	case predNGE:
		selRRNGE(d, a, b, x, y, n)
	}
}

// minMaxSR is maximum or minimum of c and a row: a NaN c, quieted, in
// every lane; otherwise the row first, which gives the same lanes (a NaN
// y is y either way, and zeros and other values do not depend on the
// order).
func minMaxSR(op int, d *float32, c float32, y *float32, n int) {
	if c != c {
		q := math.Float32frombits(math.Float32bits(c) | 0x00400000)
		r := unsafe.Slice(d, n)
		for k := range r {
			r[k] = q
		}
		return
	}
	if op == opMax {
		maxRS32(d, y, c, n)
	} else {
		minRS32(d, y, c, n)
	}
}

// nanSel computes d = isnan(a) ? a : y over len(d) elements.
func nanSel(d, a, y []float32) {
	n := len(d)
	a, y = a[:n], y[:n]
	nanSelRR32(&d[0], &a[0], &y[0], n)
}

// cvtF32F64 writes float64(x[k]) into d[k], for k < n&^7.
//
//go:noescape
func cvtF32F64(d *float64, x *float32, n int)

// addF32F64 adds float64(x[k]) to acc[k] where acc[k] is not NaN, for
// k < n&^7.
//
//go:noescape
func addF32F64(acc *float64, x *float32, n int)
