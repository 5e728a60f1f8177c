// Package gemm multiplies float32 matrices with a packed, cache-blocked,
// register-blocked algorithm: B is packed into panels of nr columns, A into
// panels of mr rows, and a micro-kernel (AVX-512 assembly on amd64, Go
// elsewhere) accumulates mr×nr tiles of C. Operands are addressed through
// row and column strides, so transposed operands need no copy beyond the
// packing every operand gets anyway.
package gemm

//go:generate go run ./gen

import (
	"runtime"
	"sync"
	"sync/atomic"
)

const (
	mr = 14  // rows of a micro tile (kernel14x32)
	nr = 32  // columns of a micro tile
	kc = 256 // depth of a packed block
	mc = mr * 12
	nc = nr * 64
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

// Sgemm computes C = A·B (or C += A·B when accumulate is set) for an m×k
// matrix A and a k×n matrix B into the row-major m×n matrix c with row
// stride ldc, using up to threads goroutines (0 means GOMAXPROCS).
func Sgemm(m, n, k int, a, b Matrix, c []float32, ldc int, accumulate bool, threads int) {
	if m == 0 || n == 0 {
		return
	}
	if !accumulate {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
	}
	if k == 0 {
		return
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if int64(m)*int64(n)*int64(k) < 32*32*32 {
		naive(m, n, k, a, b, c, ldc)
		return
	}
	bp := getBuf(kc * roundUp(min(n, nc), nr))
	defer putBuf(bp)
	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			packB(bp.s, b, pc, jc, kb, nb, threads)
			blocks := (m + mc - 1) / mc
			workers := min(threads, blocks)
			var next atomic.Int64
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ap := getBuf(kc * mc)
					defer putBuf(ap)
					var tile [mr * nr]float32
					for {
						blk := int(next.Add(1)) - 1
						if blk >= blocks {
							return
						}
						ic := blk * mc
						mb := min(mc, m-ic)
						packA(ap.s, a, ic, pc, mb, kb)
						macro(ap.s, bp.s, mb, nb, kb, c[ic*ldc+jc:], ldc, &tile)
					}
				}()
			}
			wg.Wait()
		}
	}
}

// macro multiplies a packed mb×kb block of A by a packed kb×nb block of B
// into C (accumulating).
func macro(ap, bp []float32, mb, nb, kb int, c []float32, ldc int, tile *[mr * nr]float32) {
	for jr := 0; jr < nb; jr += nr {
		nn := min(nr, nb-jr)
		bpanel := bp[jr*kb : jr*kb+nr*kb]
		for ir := 0; ir < mb; ir += mr {
			mm := min(mr, mb-ir)
			apanel := ap[ir*kb : ir*kb+mr*kb]
			if mm == mr && nn == nr {
				microKernel(kb, apanel, bpanel, c[ir*ldc+jr:], ldc)
				continue
			}
			clear(tile[:])
			microKernel(kb, apanel, bpanel, tile[:], nr)
			for i := 0; i < mm; i++ {
				row := c[(ir+i)*ldc+jr : (ir+i)*ldc+jr+nn]
				t := tile[i*nr : i*nr+nn]
				for j := range row {
					row[j] += t[j]
				}
			}
		}
	}
}

// packA copies rows [ic, ic+mb) × cols [pc, pc+kb) of A into panels of mr
// rows, each stored k-major (mr values per step), zero-padding the last.
func packA(dst []float32, a Matrix, ic, pc, mb, kb int) {
	for ir := 0; ir < mb; ir += mr {
		p := dst[ir*kb : ir*kb+mr*kb]
		mm := min(mr, mb-ir)
		for i := 0; i < mr; i++ {
			if i >= mm {
				for q := 0; q < kb; q++ {
					p[q*mr+i] = 0
				}
				continue
			}
			base := a.Off + (ic+ir+i)*a.RowStride + pc*a.ColStride
			if a.ColStride == 1 {
				src := a.Data[base : base+kb]
				for q, v := range src {
					p[q*mr+i] = v
				}
				continue
			}
			for q := 0; q < kb; q++ {
				p[q*mr+i] = a.Data[base+q*a.ColStride]
			}
		}
	}
}

// packB copies rows [pc, pc+kb) × cols [jc, jc+nb) of B into panels of nr
// columns, each stored k-major (nr values per step), zero-padding the last.
func packB(dst []float32, b Matrix, pc, jc, kb, nb, threads int) {
	panels := (nb + nr - 1) / nr
	work := func(lo, hi int) {
		for pj := lo; pj < hi; pj++ {
			jr := pj * nr
			p := dst[jr*kb : jr*kb+nr*kb]
			nn := min(nr, nb-jr)
			for q := 0; q < kb; q++ {
				row := p[q*nr : q*nr+nr]
				base := b.Off + (pc+q)*b.RowStride + (jc+jr)*b.ColStride
				if b.ColStride == 1 {
					copy(row, b.Data[base:base+nn])
				} else {
					for j := 0; j < nn; j++ {
						row[j] = b.Data[base+j*b.ColStride]
					}
				}
				clear(row[nn:])
			}
		}
	}
	if threads <= 1 || panels < 4 {
		work(0, panels)
		return
	}
	var wg sync.WaitGroup
	per := (panels + threads - 1) / threads
	for lo := 0; lo < panels; lo += per {
		wg.Add(1)
		go func(lo, hi int) { defer wg.Done(); work(lo, hi) }(lo, min(lo+per, panels))
	}
	wg.Wait()
}

func naive(m, n, k int, a, b Matrix, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		for p := 0; p < k; p++ {
			av := a.Data[a.Off+i*a.RowStride+p*a.ColStride]
			if av == 0 {
				continue
			}
			row := c[i*ldc : i*ldc+n]
			bb := b.Off + p*b.RowStride
			for j := range row {
				row[j] += av * b.Data[bb+j*b.ColStride]
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

type buf struct{ s []float32 }

var pool sync.Pool

func getBuf(n int) *buf {
	if b, ok := pool.Get().(*buf); ok && cap(b.s) >= n {
		b.s = b.s[:n]
		return b
	}
	return &buf{s: make([]float32, n)}
}

func putBuf(b *buf) { pool.Put(b) }
