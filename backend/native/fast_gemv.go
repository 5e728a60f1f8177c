package native

import (
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// gemv computes y[j] = Σ_p x[p]·w[j·ldw+p] for j < len(y): a linear layer
// on one token (x·Wᵀ, W [n, k] row-major), each row of w read once, in
// place. Four rows at a time in AVX-512 where the CPU has it, the rest
// with dot32.
func gemv(x, w []float32, ldw int, y []float32) {
	k, n := len(x), len(y)
	if n == 0 {
		return
	}
	if k == 0 {
		clear(y)
		return
	}
	_ = w[(n-1)*ldw+k-1]
	j := 0
	if gemvSIMDOK {
		if rows := n / 4 * 4; rows > 0 {
			gemvRows4(&x[0], &w[0], k, ldw, &y[0], rows, 1<<(k%16)-1)
			j = rows
		}
	}
	for ; j < n; j++ {
		y[j] = dot32(x, w[j*ldw:j*ldw+k])
	}
}

// gemvParallel is gemv with the rows of w shared among the threads (each
// row's dot product is computed whole by one thread, so the split does not
// change the result).
func gemvParallel(x, w []float32, ldw int, y []float32) {
	n, k := len(y), len(x)
	parallelRange(n, max(4, gemvGrain/max(k, 1)), func(lo, hi int) {
		// rows in fours: the parts' bounds on multiples of 4 but the last
		lo &^= 3
		if hi < n {
			hi &^= 3
		}
		gemv(x, w[lo*ldw:], ldw, y[lo:hi])
	})
}

// gemvPacked is a matrix-vector product's weights W [n, k] packed once (a
// frozen weight's copy: prepackedGemv) in blocks of 16 rows, k-major, the
// last block padded with zero rows: each block one contiguous stream,
// which the hardware prefetcher follows end to end, where gemvRows4 reads
// four rows at once and the prefetcher starts over on each. One core
// (BenchmarkGemvPacked): 240-step rows 21.6 → 28.2 GB/s from memory, 42.8
// → 50.5 from a 24 MB working set (the last-level cache), 960-step 39.6 →
// 45.3 from it; rows of 960 steps and more from memory level. In
// mobilenet_v3_large, per step alternated on one thread, its
// squeeze-and-excitation products 0.111 → 0.083 ms (240→960, two),
// 0.060 → 0.044 (168→672), the classifier 0.268 → 0.227.
type gemvPacked struct {
	n, k int
	w    []float32
}

// packGemv packs rows [0, n) × steps [0, k) of w (rows ldw floats apart).
func packGemv(w []float32, ldw, n, k int) *gemvPacked {
	blocks := (n + 15) / 16
	g := &gemvPacked{n: n, k: k, w: make([]float32, blocks*16*k)}
	for b := 0; b < blocks; b++ {
		dst := g.w[b*16*k : (b+1)*16*k]
		for i := 0; i < min(16, n-16*b); i++ {
			src := w[(16*b+i)*ldw : (16*b+i)*ldw+k]
			for q, v := range src {
				dst[q*16+i] = v
			}
		}
	}
	return g
}

// mul computes y[j] = Σ_p x[p]·W[j][p] for the rows of blocks [b0, b1).
func (g *gemvPacked) mul(x, y []float32, b0, b1 int) {
	full := min(b1, g.n/16) // blocks of 16 real rows
	if full > b0 {
		_ = y[16*full-1]
		gemvBlocks16(&x[0], &g.w[b0*16*g.k], g.k, &y[16*b0], full-b0)
	}
	if full < b1 { // the last block's rows
		var t [16]float32
		gemvBlocks16(&x[0], &g.w[full*16*g.k], g.k, &t[0], 1)
		copy(y[16*full:g.n], t[:])
	}
}

// run computes y = W·x (len(x) ≥ k, len(y) ≥ n), the blocks shared among
// the threads (each row's sum computed whole by one: the split does not
// change the result).
func (g *gemvPacked) run(x, y []float32) {
	y = y[:g.n]
	if g.k == 0 {
		clear(y)
		return
	}
	x = x[:g.k]
	blocks := (g.n + 15) / 16
	parallelRange(blocks, max(1, gemvGrain/(16*g.k)), func(lo, hi int) { g.mul(x, y, lo, hi) })
}

// prepackedGemv returns the packed copy of W (rows [0, n) × steps [0, k)
// of w, rows ldw floats apart), the data of literal l, operand i of op,
// kept per literal where it is a frozen weight (prepacked), else nil.
func prepackedGemv(weight bool, op *stablehlo.Op, i int, l *literal.Literal, w []float32, ldw, n, k int) *gemvPacked {
	if !gemvPackedOK || n <= 0 {
		return nil
	}
	v := prepacked(weight, op, i, l, [3]int{n, k, -1 << 30}, int64(4*roundUpInt(n, 16)*k), func() (any, int) {
		g := packGemv(w, ldw, n, k)
		return g, 4 * len(g.w)
	})
	g, _ := v.(*gemvPacked)
	return g
}
