package native

import (
	"slices"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Product epilogues. A linear layer is a product and then, in the next
// fusion group, its bias added (a training forward's addmm, whose output
// it saves; an inference graph's bias and GELU): a second pass over the
// product's output, which the GEMM wrote all of first. When that group is
// the only reader of a float32 [m, n] product and a row chain from it
// (exec_rowchain.go: each op reads the value before it and a bias along
// the columns, a tensor of the output's shape, a value per row or a
// constant), the product runs as the group's step: the packed GEMM hands
// each part of its output to the chain as soon as the part is final
// (gemm.Epilogue), while it is in cache, and the chain overwrites it in
// place; the product's own value never exists apart. The chain runs the
// fused loop's ops and kernels in the same order, so the bits are those
// of the two steps (TestDotEpilogueMatchesUnfused). Where the GEMM does
// not take an epilogue (the exact kernel's small products, matrix-vector
// products) the chain runs over the whole output after it, in one pass.

// dotEpiEnabled switches product epilogues at run time (tests compare
// both); dotEpiHits counts the fused runs.
var (
	dotEpiEnabled = true
	dotEpiHits    atomic.Int64
)

// dotEpiRun is a product epilogue's state in one run, kept between runs
// (convEpiPlan.dotRuns) with its two callbacks made once: a small
// transformer's products allocated 4 KB a run in them.
type dotEpiRun struct {
	d     chainData
	ch    *rowChain
	dst   []float32
	n     int
	tail  gemm.Epilogue    // r.seg: the chain over parts of the output
	rowsF func(lo, hi int) // r.rows: the chain over whole rows
}

// seg runs the chain over rows [r0, r1), columns [j0, j1) of the output.
func (r *dotEpiRun) seg(r0, r1, j0, j1 int) {
	for i := r0; i < r1; i++ {
		r.ch.seg(&r.d, i, j0, j1, r.dst[i*r.n+j0:i*r.n+j1])
	}
}

// rows runs the chain over rows [lo, hi) of the output.
func (r *dotEpiRun) rows(lo, hi int) { r.ch.rows(&r.d, lo, hi, r.dst[lo*r.n:hi*r.n]) }

// getDotRun returns a dotEpiRun a finished run left, or a new one.
func (pl *convEpiPlan) getDotRun() *dotEpiRun {
	if r, _ := pl.dotRuns.Get().(*dotEpiRun); r != nil {
		return r
	}
	r := &dotEpiRun{}
	r.tail, r.rowsF = r.seg, r.rows
	return r
}

// putDotRun keeps r for the next run, holding none of this run's buffers.
func (pl *convEpiPlan) putDotRun(r *dotEpiRun) {
	r.d.unbind()
	r.ch, r.dst = nil, nil
	pl.dotRuns.Put(r)
}

// dotEpiSource returns the step (before step at) of the product whose
// epilogue group g (of index gi) can be, and the plan, or -1: g is a
// float32 loop over the result of a product with no batch dims (rows:
// the lhs's free dims, the last dim the rhs's one free dim), which it
// alone reads, as one identity leaf the chain starts from.
func dotEpiSource(g *fusedGroup, gi, at int, steps []execStep, dotStep map[int]int, bp *blockPlan, u *blockUses, fu *fusion) (int, *convEpiPlan) {
	if g.red != nil || !g.f32 || g.dt != dtype.F32 || len(g.shape) < 2 || g.n == 0 {
		return -1, nil
	}
	for k := range g.nodes {
		nd := &g.nodes[k]
		if nd.kind != fkLeaf || nd.strides != nil {
			continue
		}
		j, ok := dotStep[nd.slot]
		if !ok || j >= at || !convOnlyFeeds(nd.slot, steps[j].op.op.Results[0], g, gi, bp, u, fu, true) {
			continue
		}
		op := steps[j].op.op
		d, ok := op.Attr("dot_dimension_numbers").(*stablehlo.DotDims)
		if !ok || len(op.Operands) != 2 || len(d.LhsBatchingDims) > 0 {
			return -1, nil
		}
		if rt := staticType(op.Operands[1]); rt == nil || len(rt.Shape) != len(d.RhsContractingDims)+1 {
			return -1, nil
		}
		r := len(g.shape) - 1
		ch := chainOf(g, g.shape[:r], int(g.shape[r]))
		if ch == nil || ch.inner < chainMinInner || !ch.perRowOperand() || ch.first.kind != caRow || ch.first.node != k || slices.Contains(ch.rowLeaves, k) {
			return -1, nil
		}
		return j, &convEpiPlan{g: g, self: k, dot: ch}
	}
	return -1, nil
}

// dotEpiFast runs a product step carrying an epilogue chain when the fast
// product covers it: the result buffer receives the product and the
// chain over it. false (and no error) hands the step to the unfused path.
func (fr *frame) dotEpiFast(st *execStep, in []Value) (bool, error) {
	pl, epi := st.op, st.epi
	g, ch := epi.g, epi.dot
	if !fastDotEnabled || !dotEpiEnabled || !hostLittleEndian || len(in) != 2 || len(pl.out) != 1 {
		return false, nil
	}
	lhs, ok1 := in[0].(*literal.Literal)
	rhs, ok2 := in[1].(*literal.Literal)
	if !ok1 || !ok2 {
		return false, nil
	}
	p, ok := cachedDotShape(pl.op, lhs, rhs)
	if !ok || p.batch != 1 || p.m*p.n != g.n || p.n != ch.inner {
		return false, nil
	}
	leaves, err := fr.epiLeaves(g, epi.self)
	defer clear(leaves) // bind keeps their elements, not the slice
	if err != nil {
		return false, err
	}
	out, err := takeResult(fr, dtype.F32, g.shape)
	if err != nil {
		return false, nil // the unfused path reports it
	}
	dst := viewAs[float32](out.Data, dtype.F32) // arena and fresh buffers are aligned
	leaves[epi.self] = out
	r := epi.getDotRun()
	defer epi.putDotRun(r)
	ch.bind(leaves, out.Data, p.m, &r.d)
	if len(dst) != g.n || !r.d.ok {
		if ar := fr.proc.arena; ar != nil {
			ar.put(out.Data)
		}
		return false, nil
	}
	r.ch, r.dst, r.n = ch, dst, p.n
	if !p.compute(fr, pl.op, lhs, rhs, out, r.tail) {
		// after the product, in one pass: on all cores where the group
		// would have run on them
		parts := 1
		if g.n >= fuseGrain {
			parts = min(Threads(), p.m)
		}
		runParts(p.m, parts, r.rowsF)
	}
	fastHits.Add(1)
	dotEpiHits.Add(1)
	fr.define(g.out, literal.Wrap(g.dt, g.shape, out.Data))
	return true, nil
}
