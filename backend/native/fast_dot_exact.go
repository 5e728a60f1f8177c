package native

// The exact float32 product on strided operands: below fastGemmMinFlops a
// dot_general whose operands fastDot can read in place is computed here
// with the summation order of gemmFloat32 (each element starts at +0 and
// adds float32(a·b) for ascending p, rounding after every multiply and add),
// so it gives the bits of the exact kernel of dot.go without gathering the
// operands into copies, decoding them, or encoding the result. Each element
// is computed on its own, so the rows may be split across goroutines and
// the loops reordered without changing any bit.

import (
	"sync"

	"github.com/torchtpu/torchtpu/literal"
)

// exactDotParallelMin is the work (multiply-adds) from which the rows of a
// small product are split across goroutines. Below it the handoff costs
// more than it saves: a 20×64×64 product took 26 µs on one goroutine and
// 42-46 µs split in two on this loaded 2-core machine.
const exactDotParallelMin = 1 << 18

// tiledParallelMin is exactDotParallelMin for the SIMD tiles, which run
// about ten times faster (and each goroutine packs B again when B needs
// packing): like the packed GEMM, they split from 256K multiply-adds.
const tiledParallelMin = 1 << 18

// runExact computes the product of a and b (the operands' elements) into
// out in the exact kernel's order.
func (p *fastDotPlan) runExact(a, b []float32, out *literal.Literal) {
	c, store := f32Out(out.Data)
	rows := p.batch * p.m
	if rows == 0 || p.n == 0 || p.k == 0 {
		clear(c) // an empty sum is +0
		store()
		return
	}
	workers := min(Threads(), rows)
	parMin := int64(exactDotParallelMin)
	if exactTilesOK {
		parMin = tiledParallelMin
	}
	if int64(rows)*int64(p.n)*int64(p.k) < parMin || workers < 2 {
		p.exactRows(a, b, c, 0, rows) // no closure to allocate
		store()
		return
	}
	runParts(rows, workers, func(lo, hi int) { p.exactRows(a, b, c, lo, hi) })
	store()
}

// exactRows computes result rows lo..hi-1, counted over batch × m.
func (p *fastDotPlan) exactRows(a, b, c []float32, lo, hi int) {
	if exactTilesOK && p.tileRows(a, b, c, lo, hi) {
		return
	}
	p.scalarRows(a, b, c, lo, hi)
}

// scalarRows is exactRows one element at a time.
func (p *fastDotPlan) scalarRows(a, b, c []float32, lo, hi int) {
	m, n, k := p.m, p.n, p.k
	for r := lo; r < hi; r++ {
		bi, i := r/m, r%m
		ao := p.lOff(bi) + i*p.lm // row i of batch bi of a
		bo := p.rOff(bi)          // batch bi of b
		crow := c[r*n : (r+1)*n]
		switch {
		case p.rn == 1:
			// rank-1 updates along contiguous rows of b
			clear(crow)
			for q := 0; q < k; q++ {
				av := a[ao+q*p.lk]
				brow := b[bo+q*p.rk:][:len(crow)]
				for j, bv := range brow {
					crow[j] += float32(av * bv)
				}
			}
		case p.lk == 1 && p.rk == 1:
			// contiguous rows of a against contiguous columns of b (A·Bᵀ)
			arow := a[ao : ao+k]
			j := 0
			for ; j+4 <= n; j += 4 {
				b0 := b[bo+j*p.rn:][:len(arow)]
				b1 := b[bo+(j+1)*p.rn:][:len(arow)]
				b2 := b[bo+(j+2)*p.rn:][:len(arow)]
				b3 := b[bo+(j+3)*p.rn:][:len(arow)]
				var s0, s1, s2, s3 float32
				for q, av := range arow {
					s0 += float32(av * b0[q])
					s1 += float32(av * b1[q])
					s2 += float32(av * b2[q])
					s3 += float32(av * b3[q])
				}
				crow[j], crow[j+1], crow[j+2], crow[j+3] = s0, s1, s2, s3
			}
			for ; j < n; j++ {
				bc := b[bo+j*p.rn:][:len(arow)]
				var s float32
				for q, av := range arow {
					s += float32(av * bc[q])
				}
				crow[j] = s
			}
		default:
			for j := range crow {
				bj := bo + j*p.rn
				var s float32
				for q := 0; q < k; q++ {
					s += float32(a[ao+q*p.lk] * b[bj+q*p.rk])
				}
				crow[j] = s
			}
		}
	}
}

// tileMasks[w] enables the first w of a tile's 16 columns.
var tileMasks = func() (t [17][16]int32) {
	for w := range t {
		for j := 0; j < w; j++ {
			t[w][j] = -1
		}
	}
	return t
}()

// packPool holds the k×n copies of B that tileRows makes when B's columns
// are not contiguous (the [out, in] weights of a linear layer).
var packPool = sync.Pool{New: func() any { return new([]float32) }}

// tileRows computes rows lo..hi-1 (over batch × m) with the SIMD tiles:
// vectors across 16 columns of C, each element still summed alone in
// ascending k, so the bits are those of scalarRows. It reports false,
// computing nothing, when an operand is shorter than the plan says.
func (p *fastDotPlan) tileRows(a, b, c []float32, lo, hi int) bool {
	m, n, k := p.m, p.n, p.k
	if hi*n > len(c) {
		return false
	}
	var packed *[]float32
	defer func() {
		if packed != nil {
			packPool.Put(packed)
		}
	}()
	for r := lo; r < hi; {
		bi, i0 := r/m, r%m
		i1 := min(m, i0+hi-r) // rows i0..i1-1 of batch bi
		ao := p.lOff(bi) + i0*p.lm
		if last := ao + (i1-1-i0)*p.lm + (k-1)*p.lk; ao < 0 || last >= len(a) {
			return false
		}
		bo := p.rOff(bi)
		if last := bo + (k-1)*p.rk + (n-1)*p.rn; bo < 0 || last >= len(b) {
			return false
		}
		pw := 16 // tile width: columns per panel
		if exactTilesZ {
			pw = 32
		}
		pack := p.rn != 1
		if pack {
			// Copy B into panels of pw columns, [k][pw] each, so that the
			// tiles read rows of contiguous columns. Reading each column of
			// B (contiguous when B is a transposed [out, in] weight) and
			// writing it down a panel keeps both sides in cache.
			panels := (n + pw - 1) / pw
			if packed == nil {
				packed = packPool.Get().(*[]float32)
			}
			if cap(*packed) < panels*pw*k {
				*packed = make([]float32, panels*pw*k)
			}
			buf := (*packed)[:panels*pw*k]
			j8 := 0 // columns below j8 are packed by 8×8 block transposes
			if p.rk == 1 {
				k8 := k / 8 * 8
				j8 = n / 8 * 8
				for j := 0; j < j8; j += 8 {
					panel := buf[(j/pw)*pw*k:][:pw*k]
					src := bo + j*p.rn
					for q := 0; q < k8; q += 8 {
						packBlock8(&b[src+q], p.rn, &panel[q*pw+j%pw], pw)
					}
					for jj := j; jj < j+8; jj++ {
						for q := k8; q < k; q++ {
							panel[q*pw+jj%pw] = b[bo+jj*p.rn+q]
						}
					}
				}
			}
			for j := j8; j < n; j++ {
				panel := buf[(j/pw)*pw*k:][:pw*k]
				jj := j % pw
				src := bo + j*p.rn
				if p.rk == 1 {
					col := b[src : src+k]
					for q, v := range col {
						panel[q*pw+jj] = v
					}
				} else {
					for q := 0; q < k; q++ {
						panel[q*pw+jj] = b[src+q*p.rk]
					}
				}
			}
		}
		for j0 := 0; j0 < n; j0 += pw {
			w := min(pw, n-j0)
			bp, ldb := &b[bo+j0], p.rk
			if pack {
				bp, ldb = &(*packed)[j0*k], pw
			}
			tile := func(rows, i int) {
				ap, cp := &a[ao+(i-i0)*p.lm], &c[(r+i-i0)*n+j0]
				if exactTilesZ {
					exactTileZ(rows, w, ap, p.lm, p.lk, bp, ldb, cp, n, k)
				} else {
					exactTile(rows, ap, p.lm, p.lk, bp, ldb, cp, n, k, &tileMasks[w])
				}
			}
			i := i0
			for ; i+4 <= i1; i += 4 {
				tile(4, i)
			}
			for ; i < i1; i++ {
				tile(1, i)
			}
		}
		r += i1 - i0
	}
	return true
}
