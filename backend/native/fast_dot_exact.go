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
	"runtime"
	"sync"

	"github.com/torchtpu/torchtpu/literal"
)

// exactDotParallelMin is the work (multiply-adds) from which the rows of a
// small product are split across goroutines. Below it the handoff costs
// more than it saves: a 20×64×64 product took 26 µs on one goroutine and
// 42-46 µs split in two on this loaded 2-core machine.
const exactDotParallelMin = 1 << 18

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
	workers := min(runtime.GOMAXPROCS(0), rows)
	if workers > 1 && int64(rows)*int64(p.n)*int64(p.k) >= exactDotParallelMin {
		var wg sync.WaitGroup
		per := (rows + workers - 1) / workers
		for lo := 0; lo < rows; lo += per {
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				p.exactRows(a, b, c, lo, hi)
			}(lo, min(lo+per, rows))
		}
		wg.Wait()
	} else {
		p.exactRows(a, b, c, 0, rows)
	}
	store()
}

// exactRows computes result rows lo..hi-1, counted over batch × m.
func (p *fastDotPlan) exactRows(a, b, c []float32, lo, hi int) {
	m, n, k := p.m, p.n, p.k
	for r := lo; r < hi; r++ {
		bi, i := r/m, r%m
		ao := bi*p.lb + i*p.lm // row i of batch bi of a
		bo := bi * p.rb        // batch bi of b
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
