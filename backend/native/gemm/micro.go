package gemm

import (
	"sync"
)

// kernelSet is a micro-kernel pair for an mr×nr tile: acc adds the tile
// A·B (kc steps of packed panels) to C, set overwrites C with it. packA,
// when not nil, packs mr full rows of a row-major A.
type kernelSet struct {
	name     string
	mr, nr   int
	bcst     bool // the packed kernels broadcast A inside each FMA (EmbeddedBroadcasts)
	acc, set func(kc int, a, b, c []float32, ldc int)
	packA    func(p, src []float32, lda, kb int)
	// part[r], when not nil, is the acc/set pair for the first r < mr rows
	// of a panel (the last, partial panel of A), written straight into C
	part [][2]func(kc int, a, b, c []float32, ldc int)
	// direct[r], r in [1, mr], is the acc/set pair for r rows of an A read
	// in place (row-major, row stride lda) instead of from a packed
	// micro-panel, written straight into C
	direct [][2]directKernel
	// half[r], when not nil, is direct[r] for the first nr/2 columns of
	// the B panel alone (a last panel with no more columns costs half)
	half [][2]directKernel
	// phalf[r], when not nil, is the packed kernel pair for r ≤ mr rows
	// of a panel and the first nr/2 columns of the B panel alone
	phalf [][2]func(kc int, a, b, c []float32, ldc int)
	// directN[r], when not nil, is direct[r] over a row of full B panels
	// (consecutive in b, their C tiles side by side) in one call
	directN [][2]directKernelN
	// directT[r] and directTN[r], when not nil, are direct[r] and
	// directN[r] for a column-major A (its rows side by side, k steps lda
	// apart: a transposed operand), read in place
	directT  [][2]directKernel
	directTN [][2]directKernelN
}

// directFor returns the direct kernels for an A read in place with
// stride lda: rows lda apart (lda > 0), or k steps -lda apart (lda < 0,
// A column-major); and the stride the kernels take.
func (ks *kernelSet) directFor(lda int) (one [][2]directKernel, row [][2]directKernelN, stride int) {
	if lda < 0 {
		return ks.directT, ks.directTN, -lda
	}
	return ks.direct, ks.directN, lda
}

// directKernelN is a directKernel over panels consecutive B micro-panels.
type directKernelN func(kc int, a []float32, lda int, b, c []float32, ldc, panels int)

// directKernel is a micro-kernel reading A in place: rows a[i*lda:], kc
// deep, against a packed B micro-panel.
type directKernel func(kc int, a []float32, lda int, b, c []float32, ldc int)

// generic is the portable kernel set (any CPU): a 4×4 tile whose sixteen
// sums live in registers.
var generic = &kernelSet{name: "go-4x4", mr: 4, nr: 4, acc: microGenericAcc, set: microGenericSet,
	direct: genericDirect()}

// genericDirect is the portable direct kernel pair for each r ≤ 4 rows.
func genericDirect() [][2]directKernel {
	d := make([][2]directKernel, 5)
	for r := 1; r <= 4; r++ {
		for v := range d[r] {
			d[r][v] = func(kb int, a []float32, lda int, b, c []float32, ldc int) {
				microGenericDirect(kb, r, a, lda, b, c, ldc, v == 1)
			}
		}
	}
	return d
}

// microGenericDirect computes rows rows (≤ 4) of the 4×4 tile C (+)= A·B
// with A read in place.
func microGenericDirect(kb, rows int, a []float32, lda int, b, c []float32, ldc int, set bool) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	var c20, c21, c22, c23, c30, c31, c32, c33 float32
	// rows past the last read the last again, and are not stored
	r0 := a[:kb]
	r1 := a[min(1, rows-1)*lda:][:kb]
	r2 := a[min(2, rows-1)*lda:][:kb]
	r3 := a[min(3, rows-1)*lda:][:kb]
	b = b[:4*kb]
	for q := 0; q < kb; q++ {
		bq := (*[4]float32)(b[4*q:])
		a0, a1, a2, a3 := r0[q], r1[q], r2[q], r3[q]
		b0, b1, b2, b3 := bq[0], bq[1], bq[2], bq[3]
		c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
		c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
		c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
		c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
	}
	tile := [4][4]float32{{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}}
	for i := 0; i < rows; i++ {
		row := (*[4]float32)(c[i*ldc:])
		if set {
			*row = tile[i]
			continue
		}
		for j := range row {
			row[j] += tile[i][j]
		}
	}
}

func microGenericAcc(kb int, a, b, c []float32, ldc int) { microGeneric(kb, a, b, c, ldc, false) }
func microGenericSet(kb int, a, b, c []float32, ldc int) { microGeneric(kb, a, b, c, ldc, true) }

// microGeneric computes the 4×4 tile: C (+)= Apanel·Bpanel.
func microGeneric(kb int, a, b, c []float32, ldc int, set bool) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	var c20, c21, c22, c23, c30, c31, c32, c33 float32
	a, b = a[:4*kb], b[:4*kb]
	for q := 0; q < kb; q++ {
		aq := (*[4]float32)(a[4*q:])
		bq := (*[4]float32)(b[4*q:])
		a0, a1, a2, a3 := aq[0], aq[1], aq[2], aq[3]
		b0, b1, b2, b3 := bq[0], bq[1], bq[2], bq[3]
		c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
		c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
		c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
		c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
	}
	tile := [4][4]float32{{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}}
	for i := range tile {
		row := (*[4]float32)(c[i*ldc:])
		if set {
			*row = tile[i]
			continue
		}
		for j := range row {
			row[j] += tile[i][j]
		}
	}
}

// naive is the product for tiny problems.
func naive(m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if !accumulate {
			clear(row)
		}
		for p := 0; p < k; p++ {
			av := a.Data[a.Off+i*a.RowStride+p*a.ColStride]
			bb := b.Off + p*b.RowStride
			for j := range row {
				row[j] += av * b.Data[bb+j*b.ColStride]
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

type buf struct{ s []float32 }

// Packing buffers are kept in a small free list rather than a sync.Pool:
// a pool is emptied by every garbage collection, and a fresh buffer costs
// a page fault per 4 KiB on first touch.
var bufs struct {
	sync.Mutex
	free  []*buf
	elems int // floats held in free
}

const bufCacheElems = 32 << 20 // 128 MiB of float32 at most

func getBuf(n int) *buf {
	bufs.Lock()
	best := -1
	for i, b := range bufs.free {
		if cap(b.s) >= n && (best < 0 || cap(b.s) < cap(bufs.free[best].s)) {
			best = i
		}
	}
	if best >= 0 {
		b := bufs.free[best]
		bufs.free = append(bufs.free[:best], bufs.free[best+1:]...)
		bufs.elems -= cap(b.s)
		bufs.Unlock()
		b.s = b.s[:n]
		return b
	}
	bufs.Unlock()
	return &buf{s: make([]float32, n)}
}

func putBuf(b *buf) {
	bufs.Lock()
	defer bufs.Unlock()
	for bufs.elems+cap(b.s) > bufCacheElems && len(bufs.free) > 0 { // drop the oldest
		bufs.elems -= cap(bufs.free[0].s)
		bufs.free = bufs.free[1:]
	}
	if cap(b.s) <= bufCacheElems {
		bufs.free = append(bufs.free, b)
		bufs.elems += cap(b.s)
	}
}

// GetBuffer returns a float32 scratch slice of length n from the packing
// buffer cache (contents undefined); PutBuffer gives it back.
func GetBuffer(n int) []float32 { return getBuf(n).s }

// PutBuffer returns a slice from GetBuffer to the cache (nil is ignored).
func PutBuffer(s []float32) {
	if cap(s) > 0 {
		putBuf(&buf{s: s})
	}
}
