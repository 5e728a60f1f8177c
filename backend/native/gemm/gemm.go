// Package gemm multiplies float32 matrices with a packed, cache-blocked,
// register-blocked algorithm (the BLIS loop structure, with our row-major C):
//
//	for each block of A rows (up to mcMax) and k block (kcMax deep):
//	    pack the A block into micro-panels of mr rows      (shared, L3)
//	    for each chunk of C columns (a work item):
//	        pack the B chunk into micro-panels of nr columns (per thread, L2)
//	        for each A micro-panel (L1):
//	            for each B micro-panel (streamed from L2):
//	                micro-kernel: C[mr×nr] (+)= Apanel·Bpanel
//
// The micro-kernel is AVX-512 (14×32) or AVX2+FMA (6×16) assembly on amd64,
// chosen at run time, and Go elsewhere. Operands are addressed through row
// and column strides, so transposed operands need no copy beyond the
// packing every operand gets anyway.
package gemm

//go:generate go run ./gen

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// kcMax is the depth of a packed k block: the A micro-panel (mr·kcMax floats)
// must stay in L1 while the B micro-panels stream past it.
var kcMax = 384

const (
	mcMax    = 4096 // rows of A packed at once
	chunkMax = 256  // columns of C per work item (the B chunk stays in L2)
	sharedN  = 512  // up to this many columns, B is packed once and shared
	rowItem  = 4    // A micro-panels per work item when B is shared
	maxTile  = 14 * 32
	// work below this many multiply-adds per extra thread stays on one
	minWorkPerThread = 1 << 21
)

// Matrix is a strided view of float32 data: element (i, j) is
// Data[Off + i*RowStride + j*ColStride].
type Matrix struct {
	Data                 []float32
	Off                  int
	RowStride, ColStride int
}

// RowMajor views data as a rows×cols row-major matrix.
func RowMajor(data []float32, cols int) Matrix {
	return Matrix{Data: data, RowStride: cols, ColStride: 1}
}

// Transposed returns the view of the transpose.
func (m Matrix) Transposed() Matrix {
	m.RowStride, m.ColStride = m.ColStride, m.RowStride
	return m
}

// Kernel names the micro-kernel Sgemm uses on this CPU.
func Kernel() string { return active.name }

// Sgemm computes C = A·B (or C += A·B when accumulate is set) for an m×k
// matrix A and a k×n matrix B into the row-major m×n matrix c with row
// stride ldc, using up to threads goroutines (0 means GOMAXPROCS).
func Sgemm(m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool, threads int) {
	sgemm(active, m, n, k, a, b, c, ldc, accumulate, threads)
}

type step struct{ ic, mb, pc, kb int }

func sgemm(ks *kernelSet, m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool, threads int) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 || int64(m)*int64(n)*int64(k) < 16*16*16 {
		naive(m, n, k, a, b, c, ldc, accumulate)
		return
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = int(min(int64(threads), max(1, int64(m)*int64(n)*int64(k)/minWorkPerThread)))
	mr, nr := ks.mr, ks.nr
	kcb := kcMax
	if k < kcb*5/4 { // one block rather than a thin tail
		kcb = k
	}
	mchunk := min(roundUp(m, mr), mcMax/mr*mr)
	var steps []step
	for ic := 0; ic < m; ic += mchunk {
		for pc := 0; pc < k; pc += kcb {
			steps = append(steps, step{ic, min(mchunk, m-ic), pc, min(kcb, k-pc)})
		}
	}
	shared := n <= sharedN
	chunkW := chunkMax
	if shared {
		chunkW = roundUp(n, nr)
	} else if (n+chunkW-1)/chunkW < 2*threads { // enough items to balance
		chunkW = max(nr, roundUp((n+2*threads-1)/(2*threads), nr))
	}
	d := &driver{ks: ks, m: m, n: n, a: a, b: b, c: c, ldc: ldc, acc: accumulate,
		steps: steps, chunkW: chunkW, shared: shared, threads: threads}
	d.ap[0] = getBuf(mchunk * kcb)
	d.ap[1] = getBuf(mchunk * kcb)
	if shared {
		d.bp[0] = getBuf(kcb * chunkW)
		d.bp[1] = getBuf(kcb * chunkW)
	}
	d.items = make([]atomic.Int64, 2*len(steps))
	d.bar.n = threads
	if threads == 1 {
		d.work()
	} else {
		var wg sync.WaitGroup
		for w := 1; w < threads; w++ {
			wg.Add(1)
			go func() { defer wg.Done(); d.work() }()
		}
		d.work()
		wg.Wait()
	}
	putBuf(d.ap[0])
	putBuf(d.ap[1])
	if shared {
		putBuf(d.bp[0])
		putBuf(d.bp[1])
	}
}

// driver is one Sgemm call shared by its worker goroutines.
type driver struct {
	ks              *kernelSet
	m, n, ldc       int
	a, b            Matrix
	c               []float32
	acc, shared     bool
	steps           []step
	chunkW, threads int
	ap              [2]*buf // packed A blocks, double-buffered by step
	bp              [2]*buf // the packed B blocks when shared, likewise
	items           []atomic.Int64
	bar             barrier
}

// work runs on every worker: for each step, help pack, wait, then take
// work items until none is left. Packing step s+1 into the other A (and shared B) buffer
// happens only after the barrier of step s, when every worker has finished
// packing s, hence computing s-1, so one barrier per step suffices.
func (d *driver) work() {
	mr, nr := d.ks.mr, d.ks.nr
	var bp *buf
	if !d.shared {
		bp = getBuf(min(d.steps[0].kb, kcMax) * d.chunkW)
		defer putBuf(bp)
	}
	var tile [maxTile]float32
	for si, s := range d.steps {
		ap := d.ap[si&1].s
		var sbp []float32
		if d.shared {
			sbp = d.bp[si&1].s
		}
		panels := (s.mb + mr - 1) / mr
		bpanels := 0
		if d.shared {
			bpanels = (d.n + nr - 1) / nr
		}
		for { // pack A panels (and B panels when shared), 4 per grab
			p0 := int(d.items[2*si].Add(4)) - 4
			if p0 >= panels+bpanels {
				break
			}
			for p := p0; p < min(p0+4, panels+bpanels); p++ {
				if p < panels {
					packAPanel(d.ks, ap[p*mr*s.kb:(p+1)*mr*s.kb], d.a, s.ic+p*mr, s.pc, min(mr, s.mb-p*mr), s.kb)
				} else {
					j := (p - panels) * nr
					packBBlock(nr, sbp[j*s.kb:], d.b, s.pc, j, s.kb, min(nr, d.n-j))
				}
			}
		}
		if d.threads > 1 {
			d.bar.wait()
		}
		first := s.pc == 0 && !d.acc
		for {
			it := int(d.items[2*si+1].Add(1)) - 1
			if d.shared {
				r0 := it * rowItem * mr
				if r0 >= s.mb {
					break
				}
				rows := min(rowItem*mr, s.mb-r0)
				macro(d.ks, ap[r0*s.kb:], sbp, rows, d.n, s.kb, d.c[(s.ic+r0)*d.ldc:], d.ldc, first, &tile)
				continue
			}
			jc := it * d.chunkW
			if jc >= d.n {
				break
			}
			nb := min(d.chunkW, d.n-jc)
			packBBlock(nr, bp.s, d.b, s.pc, jc, s.kb, nb)
			macro(d.ks, ap, bp.s, s.mb, nb, s.kb, d.c[s.ic*d.ldc+jc:], d.ldc, first, &tile)
		}
	}
}

// macro multiplies a packed mb×kb block of A by a packed kb×nb block of B
// into C: for each A micro-panel (kept in L1) it streams the B micro-panels.
// With first set it overwrites C, else it accumulates.
func macro(ks *kernelSet, ap, bp []float32, mb, nb, kb int, c []float32, ldc int, first bool, tile *[maxTile]float32) {
	mr, nr := ks.mr, ks.nr
	kern := ks.acc
	if first {
		kern = ks.set
	}
	for ir := 0; ir < mb; ir += mr {
		mm := min(mr, mb-ir)
		apanel := ap[ir*kb : ir*kb+mr*kb]
		for jr := 0; jr < nb; jr += nr {
			nn := min(nr, nb-jr)
			bpanel := bp[jr*kb : jr*kb+nr*kb]
			if mm == mr && nn == nr {
				kern(kb, apanel, bpanel, c[ir*ldc+jr:], ldc)
				continue
			}
			ks.set(kb, apanel, bpanel, tile[:], nr)
			for i := 0; i < mm; i++ {
				row := c[(ir+i)*ldc+jr : (ir+i)*ldc+jr+nn]
				t := tile[i*nr : i*nr+nn]
				if first {
					copy(row, t)
					continue
				}
				for j := range row {
					row[j] += t[j]
				}
			}
		}
	}
}
