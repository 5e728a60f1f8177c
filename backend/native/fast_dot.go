package native

// A fast path for float32 dot_general: the operands are read in place as
// strided matrices (no gathered copies, transposed operands included) and
// the packed GEMM writes straight into the result literal. It applies when
// every group of dims the product merges (batch, lhs free, rhs free,
// contracting) is laid out with one stride per group in each operand.
// Products from fastGemmMinFlops (per batch) run on the packed GEMM; smaller
// ones run the exact kernel's summation order in place (fast_dot_exact.go).
// Other layouts take the exact kernel of dot.go (which still uses the GEMM
// through dot_fast.go for large products that need a gather first).

import (
	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// gemvGrain is the multiply-adds per goroutine from which a
// matrix-vector product splits its rows.
const gemvGrain = 1 << 15

// fastDotEnabled switches the fast path (tests compare both).
var fastDotEnabled = true

func init() {
	wrapKernel("stablehlo.dot_general", func(slow Kernel) Kernel {
		return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
			if fastDotEnabled {
				if out, ok := fastDot(env, op, in); ok {
					fastHits.Add(1)
					return []Value{out}, nil
				}
			}
			return slow(env, op, in)
		}
	})
}

// groupStride returns the stride of dims (in order) of a row-major shape
// viewed as one merged dim, or false when they do not merge. Dims of size
// 1 are ignored; an empty or all-size-1 group has stride 1.
func groupStride(shape []int64, dims []int) (int, bool) {
	strides := literal.Strides(shape)
	stride, prev := 1, -1
	for _, d := range dims {
		if shape[d] == 1 {
			continue
		}
		if prev >= 0 && strides[prev] != strides[d]*shape[d] {
			return 0, false
		}
		prev, stride = d, int(strides[d])
	}
	return stride, true
}

// fastDotPlan is a dot_general as strided batched matrix products.
type fastDotPlan struct {
	*dotLayout
	lb, lm, lk, rb, rk, rn int // batch, row and column strides of each operand
	// binner, when not 0, splits the batch dims in two runs of one stride
	// each (attention heads read from [b, t, h, d] as [b, h] batches): batch
	// bi is (bi/binner, bi%binner), at lb and lb2 (rb and rb2) apart
	binner, lb2, rb2 int
}

// lOff and rOff return the offset of batch bi in the operands.
func (p *fastDotPlan) lOff(bi int) int {
	if p.binner == 0 {
		return bi * p.lb
	}
	return bi/p.binner*p.lb + bi%p.binner*p.lb2
}

func (p *fastDotPlan) rOff(bi int) int {
	if p.binner == 0 {
		return bi * p.rb
	}
	return bi/p.binner*p.rb + bi%p.binner*p.rb2
}

// fastDot runs the product when the fast path covers it; ok false means
// "use the exact kernel" (including every malformed op). The result comes
// from env's arena when it has one: both kernels overwrite every element.
func fastDot(env Env, op *stablehlo.Op, in []Value) (*literal.Literal, bool) {
	if len(in) != 2 {
		return nil, false
	}
	lhs, ok1 := in[0].(*literal.Literal)
	rhs, ok2 := in[1].(*literal.Literal)
	if !ok1 || !ok2 {
		return nil, false
	}
	p, ok := cachedDotShape(op, lhs, rhs)
	if !ok {
		return nil, false
	}
	out, err := takeResult(env, dtype.F32, p.shape)
	if err != nil {
		return nil, false
	}
	p.compute(env, op, lhs, rhs, out, nil)
	return out, true
}

// compute runs the product into out (p.shape, from takeResult). With epi
// set, it reports whether epi ran over every part of the result as the
// packed GEMM finished it (fast_dot_epi.go); where not (the exact
// kernel's products, matrix-vector products, batches) the caller applies
// it after. The product's bits do not depend on epi.
func (p *fastDotPlan) compute(env Env, op *stablehlo.Op, lhs, rhs, out *literal.Literal, epi gemm.Epilogue) bool {
	if p.small() {
		p.runExact(f32View(lhs.Data), f32View(rhs.Data), out)
		return false
	}
	if p.batch == 1 && p.matVec() {
		// a linear layer on one token whose weight is frozen: its copy
		// packed in blocks of 16 rows, each read as one stream (fast_gemv.go)
		if g := prepackedGemv(isWeightOperand(env, op, 1), op, 1, rhs, f32View(rhs.Data), p.rn, p.n, p.k); g != nil {
			c, store := f32Out(out.Data)
			g.run(f32View(lhs.Data), c)
			store()
			return false
		}
	}
	if p.batch == 1 && p.m > 1 && p.m < prepackMaxRows {
		// a weight packed once: the packed GEMM, with no packing of B left
		// to pay, beats the exact tiles on the few rows they were for
		b := gemm.Matrix{Data: f32View(rhs.Data), RowStride: p.rk, ColStride: p.rn}
		if pb := prepackedB(env, op, 1, rhs, p.k, p.n, b); pb != nil {
			c, store := f32Out(out.Data)
			gemm.SgemmPackedBEpi(p.m, gemm.Matrix{Data: f32View(lhs.Data), RowStride: p.lm, ColStride: p.lk}, pb, c, p.n, 0, epi)
			store()
			return epi != nil
		}
	}
	if p.tiled() {
		p.runExact(f32View(lhs.Data), f32View(rhs.Data), out)
		return false
	}
	return p.run(f32View(lhs.Data), f32View(rhs.Data), out, epi)
}

// small reports whether each batch's product is below fastGemmMinFlops,
// where the exact kernel's summation order is kept.
func (p *fastDotPlan) small() bool {
	return int64(p.m)*int64(p.n)*int64(p.k) < fastGemmMinFlops
}

// tiledMaxRows and tiledMaxPack bound the products above fastGemmMinFlops
// that still take the exact kernel when it runs on SIMD tiles: up to 32
// rows per batch (the [seq, features] activations of a small model), the
// packed GEMM spends more on packing B than on the product, while the
// tiles read B in place or transpose it once, at least as fast and with
// the exact kernel's bits. tiledMaxPack keeps the transposed copy of B
// (k·n floats) small.
const (
	tiledMaxRows = 32
	tiledMaxPack = 1 << 18
)

// tiled reports whether a product at or above fastGemmMinFlops runs on
// the exact SIMD tiles rather than the packed GEMM.
func (p *fastDotPlan) tiled() bool {
	return exactTilesOK && p.m <= tiledMaxRows && (p.rn == 1 || p.k*p.n <= tiledMaxPack)
}

// fastDotShape plans the packed GEMM path: a strided product that reaches
// fastGemmMinFlops.
func fastDotShape(op *stablehlo.Op, lhs, rhs *literal.Literal) (*fastDotPlan, bool) {
	p, ok := stridedDotShape(op, lhs, rhs)
	if !ok || p.small() || p.tiled() {
		return nil, false
	}
	return p, true
}

// stridedDotShape plans a float32 dot_general whose operands can be read in
// place as strided batched matrices, of any size.
func stridedDotShape(op *stablehlo.Op, lhs, rhs *literal.Literal) (*fastDotPlan, bool) {
	dims, ok := op.Attr("dot_dimension_numbers").(*stablehlo.DotDims)
	if !ok || lhs.DType != dtype.F32 || rhs.DType != dtype.F32 || computeResultDType(op, 0, lhs.DType) != dtype.F32 {
		return nil, false
	}
	if _, ok := readDotAlgorithm(op); ok {
		return nil, false // dotWithAlgorithm rounds the operands as the algorithm says
	}
	p, err := planDot(op, lhs.Shape, rhs.Shape, dims)
	if err != nil || checkComputedShape(op, 0, p.shape) != nil {
		return nil, false
	}
	nb := len(dims.LhsBatchingDims)
	nl := len(p.lhsPerm) - nb - len(dims.LhsContractingDims)
	nc := len(dims.RhsContractingDims)
	lm, okB := groupStride(lhs.Shape, p.lhsPerm[nb:nb+nl])
	lk, okC := groupStride(lhs.Shape, p.lhsPerm[nb+nl:])
	rk, okE := groupStride(rhs.Shape, p.rhsPerm[nb:nb+nc])
	rn, okF := groupStride(rhs.Shape, p.rhsPerm[nb+nc:])
	bs, okA := splitBatch(lhs.Shape, p.lhsPerm[:nb], rhs.Shape, p.rhsPerm[:nb])
	if !okA || !okB || !okC || !okE || !okF {
		return nil, false
	}
	return &fastDotPlan{dotLayout: p, lb: bs.lb, lm: lm, lk: lk, rb: bs.rb, rk: rk, rn: rn,
		binner: bs.inner, lb2: bs.lb2, rb2: bs.rb2}, true
}

// batchSplit is how both operands' batch dims are read (splitBatch).
type batchSplit struct{ lb, rb, inner, lb2, rb2 int }

// splitBatch lays out the batch dims of two row-major operands (paired
// in order, ldims with rdims) as one stride each, or as two runs of one
// stride each split at the same place in both: the inner run's element
// count, and each operand's outer and inner strides. False when a third
// run would be needed.
func splitBatch(lshape []int64, ldims []int, rshape []int64, rdims []int) (batchSplit, bool) {
	lb, okL := groupStride(lshape, ldims)
	rb, okR := groupStride(rshape, rdims)
	if okL && okR {
		return batchSplit{lb: lb, rb: rb}, true
	}
	for cut := 1; cut < len(ldims); cut++ {
		lo, ok1 := groupStride(lshape, ldims[:cut])
		li, ok2 := groupStride(lshape, ldims[cut:])
		ro, ok3 := groupStride(rshape, rdims[:cut])
		ri, ok4 := groupStride(rshape, rdims[cut:])
		if !ok1 || !ok2 || !ok3 || !ok4 {
			continue
		}
		inner := 1
		for _, d := range ldims[cut:] {
			inner *= int(lshape[d])
		}
		if inner <= 1 {
			continue
		}
		// the outer run's stride is that of its last (innermost) dim of
		// size > 1; an outer run of size-1 dims only has index 0
		return batchSplit{lb: lo, rb: ro, inner: inner, lb2: li, rb2: ri}, true
	}
	return batchSplit{}, false
}

// matVec reports whether each batch's product is a matrix-vector one
// against rows of b read in place: one row of a, both operands' k steps
// contiguous (x · Wᵀ with W [n, k] row-major).
func (p *fastDotPlan) matVec() bool { return p.m == 1 && p.lk == 1 && p.rk == 1 }

// run computes the product of a and b (the operands' elements) into out.
func (p *fastDotPlan) run(a, b []float32, out *literal.Literal, epi gemm.Epilogue) bool {
	c, store := f32Out(out.Data)
	m, n, k := p.m, p.n, p.k
	if p.matVec() {
		// a matrix-vector product against rows of b (a linear layer on one
		// token: x · Wᵀ with W [n, k] row-major): dot products of the rows
		// read in place, where the GEMM would pack all of b first
		for i := 0; i < p.batch; i++ {
			x := a[p.lOff(i) : p.lOff(i)+k]
			gemvParallel(x, b[p.rOff(i):], p.rn, c[i*n:(i+1)*n])
		}
		store()
		return false
	}
	if p.batch > 1 {
		epi = nil // the chain runs over all the batches after them
	}
	one := func(i, threads int) {
		gemm.SgemmEpi(m, n, k,
			gemm.Matrix{Data: a, Off: p.lOff(i), RowStride: p.lm, ColStride: p.lk},
			gemm.Matrix{Data: b, Off: p.rOff(i), RowStride: p.rk, ColStride: p.rn},
			c[i*m*n:(i+1)*m*n], n, threads, epi)
	}
	// small products of a large batch run side by side, one thread each
	workers := min(Threads(), p.batch)
	if workers > 1 && int64(m)*int64(n)*int64(k) < 1<<22 {
		runParts(p.batch, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				one(i, 1)
			}
		})
	} else {
		for i := 0; i < p.batch; i++ {
			one(i, 0)
		}
	}
	store()
	return epi != nil
}
