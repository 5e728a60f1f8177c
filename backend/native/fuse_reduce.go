package native

import (
	"fmt"
	"math"
	"sync"

	"github.com/torchtpu/torchtpu/backend/native/rowsum"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Input fusion: a reduce over the trailing dims of a value that a fusion
// group computes and nothing else reads folds the group's values as they
// are computed, chunk by chunk, instead of materializing them. The fold is
// the reduce kernel's: per output element, in input order, starting from
// the init value, rounded to the element type after each step.

// reduceFuse describes the reduce a group feeds.
type reduceFuse struct {
	op    *stablehlo.Op
	kind  foldKind
	init  int // slot of the init value
	out   int // slot of the result
	shape []int64
	size  int // elements folded per output element

	// A sum whose kept dims lie between reduced ones (a bias gradient
	// summing the leading dims, batch-norm statistics over dims 0, 2 and
	// 3): the group's values are [rows, cols, inner], the result [cols].
	// rows is 1 when only trailing dims are reduced.
	rows, cols, inner int
}

// planReduceFusion attaches eligible reduces to the groups computing
// their input; it returns the op index of each such reduce by group.
func planReduceFusion(bp *blockPlan, u *blockUses, fu *fusion) map[int]int {
	at := map[int]int{}
	for k := range bp.ops {
		pl := &bp.ops[k]
		op := pl.op
		if op.Name != "stablehlo.reduce" || pl.quant || len(pl.in) != 2 || len(pl.out) != 1 || len(op.Regions) != 1 {
			continue
		}
		it, rt, ct := staticType(op.Operands[0]), staticType(op.Results[0]), staticType(op.Operands[1])
		if it == nil || rt == nil || ct == nil || len(ct.Shape) != 0 {
			continue
		}
		d := it.DType()
		if (d != dtype.F32 && d != dtype.F64) || rt.DType() != d || ct.DType() != d {
			continue
		}
		kind, ok := foldOf(binaryBody(op.Regions[0]))
		if !ok || floatFold(kind, d) == nil {
			continue
		}
		dims, ok := op.Ints("dimensions")
		if !ok {
			continue
		}
		rows, cols, inner, ok := keptRange(dims, it.Shape)
		if !ok || rows > 1 && kind != foldAdd {
			continue
		}
		def, ok := u.def[pl.in[0]]
		if !ok || fu.grp[def] < 0 {
			continue
		}
		g := fu.groups[fu.grp[def]]
		if g.out != pl.in[0] || len(u.users[g.out]) != 1 || g.red != nil || g.dt != d {
			continue
		}
		size := 1
		for _, x := range dims {
			size *= int(it.Shape[x])
		}
		g.red = &reduceFuse{op: op, kind: kind, init: pl.in[1], out: pl.out[0], shape: rt.Shape, size: size,
			rows: rows, cols: cols, inner: inner}
		g.inplace = nil
		at[fu.grp[def]] = k
	}
	return at
}

// keptRange splits a static shape reduced over dims (increasing) into
// [rows, cols, inner]: the reduced dims before the kept ones, the kept
// dims, the reduced dims after them. It fails when the kept dims are not
// one contiguous range. Only trailing dims reduced: rows is 1.
func keptRange(dims []int64, shape []int64) (rows, cols, inner int, ok bool) {
	reduced := make([]bool, len(shape))
	for i, d := range dims {
		if d < 0 || int(d) >= len(shape) || i > 0 && d <= dims[i-1] {
			return 0, 0, 0, false
		}
		reduced[d] = true
	}
	a := 0
	for a < len(shape) && reduced[a] {
		a++
	}
	if a == len(shape) {
		a = 0 // every dim reduced: one run, the trailing case
	}
	b := a
	for b < len(shape) && !reduced[b] {
		b++
	}
	for _, r := range reduced[b:] {
		if !r {
			return 0, 0, 0, false
		}
	}
	prod := func(s []int64) int {
		n := 1
		for _, x := range s {
			n *= int(x)
		}
		return n
	}
	rows, cols, inner = prod(shape[:a]), prod(shape[a:b]), prod(shape[b:])
	if rows > 1 && (cols == 0 || inner == 0) {
		return 0, 0, 0, false
	}
	return rows, cols, inner, true
}

// runReduceGroup computes a group and folds it into its reduce's result.
func (fr *frame) runReduceGroup(g *fusedGroup, leaves []*literal.Literal) error {
	rf := g.red
	init, ok := fr.slots[rf.init].(*literal.Literal)
	if !ok || init.DType != g.dt || init.Len() != 1 {
		return fmt.Errorf("init value is %T %v, want a %v scalar", fr.slots[rf.init], fr.slots[rf.init], g.dt)
	}
	outN := elemCount(rf.shape)
	nbytes := outN * g.dt.Size()
	var data []byte
	planned := fr.plannedOut(rf.out, g.dt, rf.shape)
	switch ar := fr.proc.arena; {
	case planned != nil:
		data = planned.Data
	case ar != nil:
		data = ar.take(nbytes)
	default:
		data = make([]byte, nbytes)
	}
	if outN > 0 && outN*rf.size != g.n {
		return fmt.Errorf("reduce of %d elements into %d groups of %d", g.n, outN, rf.size)
	}
	start := init.Float64(0)
	if rf.rows > 1 {
		fr.foldColumnsGroup(g, leaves, start, data)
		return fr.defineReduced(rf, g.dt, planned, data)
	}
	f := floatFold(rf.kind, g.dt)
	res := make([]float64, outN)
	body := func(lo, hi int) {
		if g.f32 && g.dt == dtype.F32 && rf.size > 0 && (rf.kind == foldAdd || rf.kind == foldMax) {
			foldGroups32(g, leaves, res, float32(start), rf.kind == foldMax, lo, hi)
		} else if !g.f32 && g.dt == dtype.F64 && rf.kind == foldAdd {
			foldSum64(g, leaves, res, start, lo, hi)
		} else if g.f32 {
			foldGroups[float32](g, leaves, res, start, f, lo, hi, &scratch32)
		} else {
			foldGroups[float64](g, leaves, res, start, f, lo, hi, &scratch64)
		}
	}
	if outN > 1 {
		parallelRange(outN, max(1, fuseGrain/max(rf.size, 1)), body)
	} else {
		body(0, outN)
	}
	storeRow(data, g.dt, 0, res)
	return fr.defineReduced(rf, g.dt, planned, data)
}

// defineReduced defines the reduce's result: its planned place, or data.
func (fr *frame) defineReduced(rf *reduceFuse, dt dtype.DType, planned *literal.Literal, data []byte) error {
	if planned != nil {
		fr.define(rf.out, planned)
		return nil
	}
	fr.define(rf.out, &literal.Literal{DType: dt, Shape: append([]int64(nil), rf.shape...), Data: data})
	return nil
}

// foldGroups32 is foldGroups for a float32 sum or maximum, in float32
// with the fold inlined: the same bits (a float32 add is the float64 add
// rounded, as the generic fold rounds it; max32 is its maximum), without
// a call per element.
func foldGroups32(g *fusedGroup, leaves []*literal.Literal, res []float64, start float32, isMax bool, lo, hi int) {
	s := getScratch[float32](&scratch32, g)
	defer scratch32.Put(s)
	size := g.red.size
	views := leafViews[float32](g, leaves)
	if size > 0 && 2*size <= fuseChunk {
		foldShortRows32(g, leaves, views, s, res, start, isMax, lo, hi)
		return
	}
	k := newChunker(g, lo*size)
	for o := lo; o < hi; o++ {
		acc := start
		var sum rowsum.Slots
		redo := false // a NaN or -0 result: summed again in one chain
		for c, end := o*size, (o+1)*size; c < end; {
			m, seg := k.len(c, end)
			row := evalChunk(g, leaves, views, s, nil, c, m, seg)
			if isMax {
				acc = maxRow32(acc, row)
			} else {
				sum.Add(row, c-o*size)
			}
			c += m
		}
		if !isMax {
			t := start + sum.Total()
			redo = t != t || t == 0 && math.Signbit(float64(start))
			acc = t
		}
		if redo {
			acc = start
			kk := newChunker(g, o*size)
			for c, end := o*size, (o+1)*size; c < end; {
				m, seg := kk.len(c, end)
				for _, x := range evalChunk(g, leaves, views, s, nil, c, m, seg) {
					acc += x
				}
				c += m
			}
			k = newChunker(g, (o+1)*size)
		}
		res[o] = float64(acc)
	}
}

// foldShortRows32 is foldGroups32 for rows of at most half a chunk (a
// softmax over a short sequence): the group's values of as many whole
// rows as a chunk holds are computed at once, then each row is folded as
// foldGroups32 folds it. Computed row by row, each short row paid every
// node's dispatch (GPT-2-tiny's softmax over rows of 12: 23 µs for 96
// rows).
func foldShortRows32(g *fusedGroup, leaves []*literal.Literal, views [][]float32, s *fuseScratch[float32], res []float64, start float32, isMax bool, lo, hi int) {
	size := g.red.size
	block := fuseChunk / size
	bp := chunkBufs.Get().(*[fuseChunk]float32)
	defer chunkBufs.Put(bp)
	buf := bp[:]
	k := newChunker(g, lo*size)
	for o0 := lo; o0 < hi; o0 += block {
		o1 := min(hi, o0+block)
		base, end := o0*size, o1*size
		for c := base; c < end; {
			m, seg := k.len(c, end)
			dst := buf[c-base : c-base+m]
			if row := evalChunk(g, leaves, views, s, dst, c, m, seg); &row[0] != &dst[0] {
				copy(dst, row)
			}
			c += m
		}
		for o := o0; o < o1; o++ {
			x := buf[(o-o0)*size : (o-o0+1)*size]
			if isMax {
				res[o] = float64(maxRow32(start, x))
			} else {
				res[o] = float64(rowsum.Sum(start, x)) // a whole row: the slots' order, redone in one chain where needed
			}
		}
	}
}

// chunkBufs holds foldShortRows32's chunks of computed rows.
var chunkBufs = sync.Pool{New: func() any { return new([fuseChunk]float32) }}

// foldSum64 is foldGroups for a float64 sum (a float32 mean accumulated
// in float64, as aten lowers it): each output's elements in the four
// chains of reduce_slots.go, as the unfused kernel adds them, summed
// again in one chain for a NaN total or a zero one from a -0 init.
func foldSum64(g *fusedGroup, leaves []*literal.Literal, res []float64, start float64, lo, hi int) {
	size := g.red.size
	if src := convertedF32(g, leaves); src != nil && len(src) >= hi*size {
		// float32 values summed in float64 (a mean's sum), read as they
		// are: the chains below, without a chunk evaluated per row
		// (MobileNetV2's pooling step, 1280 rows of 49: 0.080 → 0.037 ms)
		for o := lo; o < hi; o++ {
			x := src[o*size : (o+1)*size]
			var ch slots4
			ch.add32(x, 0)
			t, ok := ch.total(start)
			if !ok {
				t = start
				for _, v := range x {
					if t != t {
						break
					}
					t += float64(v)
				}
			}
			res[o] = t
		}
		return
	}
	s := getScratch[float64](&scratch64, g)
	defer scratch64.Put(s)
	views := leafViews[float64](g, leaves)
	k := newChunker(g, lo*size)
	for o := lo; o < hi; o++ {
		var ch slots4
		for c, end := o*size, (o+1)*size; c < end; {
			m, seg := k.len(c, end)
			ch.add(evalChunk(g, leaves, views, s, nil, c, m, seg), c-o*size)
			c += m
		}
		t, ok := ch.total(start)
		if !ok {
			t = start
			kk := newChunker(g, o*size)
			for c, end := o*size, (o+1)*size; c < end; {
				m, seg := kk.len(c, end)
				t = sumChain(t, evalChunk(g, leaves, views, s, nil, c, m, seg))
				c += m
			}
			k = newChunker(g, (o+1)*size)
		}
		res[o] = t
	}
}

// foldGroups computes output elements [lo, hi) of a reduce-fused group.
func foldGroups[T fnum](g *fusedGroup, leaves []*literal.Literal, res []float64, start float64, f func(a, x float64) float64, lo, hi int, pool *sync.Pool) {
	s := getScratch[T](pool, g)
	defer pool.Put(s)
	size := g.red.size
	views := leafViews[T](g, leaves)
	k := newChunker(g, lo*size)
	for o := lo; o < hi; o++ {
		acc := start
		for c, end := o*size, (o+1)*size; c < end; {
			m, seg := k.len(c, end)
			for _, x := range evalChunk(g, leaves, views, s, nil, c, m, seg) {
				acc = f(acc, float64(x))
			}
			c += m
		}
		res[o] = acc
	}
}

// trailingDims reports whether dims are the last len(dims) dims of a
// rank-r array, in increasing order.
func trailingDims(dims []int64, r int) bool {
	for i, d := range dims {
		if d != int64(r-len(dims)+i) {
			return false
		}
	}
	return true
}
