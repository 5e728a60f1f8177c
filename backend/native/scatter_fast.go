package native

import (
	"errors"
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Fast path of scatter for the usual single-input update computation
// `return f(%old, %upd)` (add, multiply, maximum, ...): the elements of one
// window go to distinct result elements, so a whole window is combined
// with one call of f's kernel on 1-d vectors, in the same order as the
// element-by-element schedule. When f is one of the folds of the reduce
// kernels (reduce_fast.go) on a real or integer type, the window is
// folded in place element by element instead, with no allocation.

// scatterBinary is a recognised update computation.
type scatterBinary struct {
	f       *stablehlo.Op
	k       Kernel
	swapped bool // f(%upd, %old)
	// For add, multiply, maximum, minimum, and, or on one real or integer
	// type: the element fold the reduce kernels use, applied in place.
	ff func(acc, x float64) float64
	fi func(acc, x int64) int64
	// add: ff is float addition (float32 operands then add as float32:
	// the float64 sum of two float32 rounded once is their float32 sum)
	add bool
}

// mvScatterBinary recognises `^bb0(%a, %b): %r = f(%a, %b); return %r`.
func mvScatterBinary(body *stablehlo.Region) *scatterBinary {
	blk := body.Entry()
	if blk == nil || len(blk.Args) != 2 || len(blk.Ops) != 2 {
		return nil
	}
	f, ret := blk.Ops[0], blk.Ops[1]
	if len(f.Operands) != 2 || len(f.Results) != 1 || len(f.Regions) != 0 || len(ret.Operands) != 1 || ret.Operands[0] != f.Results[0] {
		return nil
	}
	a, b := blk.Args[0], blk.Args[1]
	sb := &scatterBinary{f: f, k: kernels[f.Name]}
	switch {
	case f.Operands[0] == a && f.Operands[1] == b:
	case f.Operands[0] == b && f.Operands[1] == a:
		sb.swapped = true
	default:
		return nil
	}
	if sb.k == nil || isQuantType(a.Type) || isQuantType(b.Type) || isQuantType(f.Results[0].Type) {
		return nil
	}
	ta, tb, tr := stablehlo.AsTensor(a.Type), stablehlo.AsTensor(b.Type), stablehlo.AsTensor(f.Results[0].Type)
	if kind, ok := foldOf(f.Name); ok && !sb.swapped && ta != nil && tb != nil && tr != nil && ta.DType() == tb.DType() && ta.DType() == tr.DType() {
		switch d := ta.DType(); numClassOf(d) {
		case clsFloat:
			sb.ff, sb.add = floatFold(kind, d), kind == foldAdd
		case clsInt, clsBool:
			sb.fi = intFold(kind, d)
		}
	}
	return sb
}

// fold combines one clipped window element by element with the fold.
func (sb *scatterBinary) fold(out, upd *literal.Literal, box []int64, rOff int64, dstStr []int64, uOff int64, srcStr []int64) {
	w := make([]int64, len(box))
	for {
		r, u := int(rOff), int(uOff)
		if sb.ff != nil {
			out.SetFloat64(r, sb.ff(out.Float64(r), upd.Float64(u)))
		} else {
			out.SetInt64(r, sb.fi(out.Int64(r), upd.Int64(u)))
		}
		k := len(box) - 1
		for ; k >= 0; k-- {
			w[k]++
			rOff += dstStr[k]
			uOff += srcStr[k]
			if w[k] < box[k] {
				break
			}
			rOff -= dstStr[k] * box[k]
			uOff -= srcStr[k] * box[k]
			w[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// apply combines one clipped window: out[box at rOff] = f(out[...], upd[...]).
func (sb *scatterBinary) apply(env Env, op *stablehlo.Op, out, upd *literal.Literal, box []int64, rOff int64, dstStr []int64, uOff int64, srcStr []int64) error {
	if sb.ff != nil && out.DType == dtype.F32 && upd.DType == dtype.F32 && len(box) == 1 && dstStr[0] == 1 && srcStr[0] == 1 {
		// a row of float32 (an embedding's gradient), contiguous in both
		if d, s := elems[float32](out.Data), elems[float32](upd.Data); d != nil && s != nil {
			d, s := d[rOff:rOff+box[0]], s[uOff:uOff+box[0]]
			if sb.add {
				if !simdBinary("stablehlo.add", d, d, s, false, false) { // the same adds, in vectors
					for i, v := range s {
						d[i] += v
					}
				}
			} else {
				for i, v := range s {
					d[i] = float32(sb.ff(float64(d[i]), float64(v)))
				}
			}
			return nil
		}
	}
	if (sb.ff != nil || sb.fi != nil) && out.DType == upd.DType {
		sb.fold(out, upd, box, rOff, dstStr, uOff, srcStr)
		return nil
	}
	n := mvProd(box)
	esz := out.DType.Size()
	old := &literal.Literal{DType: out.DType, Shape: []int64{n}, Data: make([]byte, n*int64(esz))}
	up := &literal.Literal{DType: upd.DType, Shape: []int64{n}, Data: make([]byte, n*int64(upd.DType.Size()))}
	dense := literal.Strides(box)
	copyBox(esz, box, old.Data, 0, dense, out.Data, rOff, dstStr)
	copyBox(upd.DType.Size(), box, up.Data, 0, dense, upd.Data, uOff, srcStr)
	vt := stablehlo.Tensor(out.DType, n)
	ut := stablehlo.Tensor(upd.DType, n)
	ops := []*stablehlo.Value{{Type: vt}, {Type: ut, Index: 1}}
	args := []Value{old, up}
	if sb.swapped {
		ops[0], ops[1] = ops[1], ops[0]
		args[0], args[1] = args[1], args[0]
	}
	shadow := stablehlo.NewOp(sb.f.Name, ops, []stablehlo.Type{vt}, sb.f.Attrs)
	res, err := sb.k(env, shadow, args)
	if err != nil {
		return fmt.Errorf("%s: update_computation: %w", op.Name, err)
	}
	if len(res) != 1 {
		return fmt.Errorf("%s: update_computation returned %d values, want 1", op.Name, len(res))
	}
	l, ok := res[0].(*literal.Literal)
	if !ok || l.DType != out.DType || int64(l.Len()) != n {
		return fmt.Errorf("%s: update_computation returned %v, want %v[%d]", op.Name, res[0], out.DType, n)
	}
	copyBox(esz, box, out.Data, rOff, dstStr, l.Data, 0, dense)
	return nil
}

// pointScatterF32 is the scatter of single elements (no update window
// dims, no batching dims: index_put, max-pool and embedding-row
// gradients flattened to points) on float32 with a float fold: each
// update element is folded into the result element its index vector
// names, in the update order of the element-by-element schedule, or
// skipped when that is out of bounds. It reads the index vector and the
// two elements directly instead of building a window per update.
func pointScatterF32(env Env, geo *scatterGeom, sd *stablehlo.ScatterDims, idx *literal.Literal, ust []int64, out, upd *literal.Literal, sb *scatterBinary) error {
	dst, store := f32Out(out.Data)
	src := f32View(upd.Data)
	rs := literal.Strides(geo.shape)
	dims := sd.ScatterDimsToOperandDims
	ff := sb.ff
	var i64 []int64 // the indices themselves where they can be seen as int64
	if idx.DType == dtype.I64 {
		i64 = elems[int64](idx.Data)
	}
	if len(dims) == 1 && len(geo.batchShape) == 1 && i64 != nil {
		// one index per update along one batch dim (a flat index_put or
		// max-pool gradient): a plain loop, float32 adds as such (sb.add)
		is := literal.Strides(idx.Shape)[geo.idxDim[0]]
		us := ust[geo.updScatter[0]]
		lim, stride := geo.shape[dims[0]], rs[dims[0]]
		fold := func(lo, hi int64) error {
			for i := lo; i < hi; i++ {
				if i&(1<<16-1) == 1<<16-1 {
					if err := env.Context().Err(); err != nil {
						return err
					}
				}
				v := i64[i*is]
				if v < 0 || v >= lim {
					continue
				}
				o, u := v*stride, i*us
				if sb.add {
					dst[o] += src[u]
				} else {
					dst[o] = float32(ff(float64(dst[o]), float64(src[u])))
				}
			}
			return nil
		}
		n := geo.batchShape[0]
		cuts := disjointCuts(i64, is, n, lim, Threads())
		errs := make([]error, len(cuts)-1)
		parallel(len(cuts)-1, len(cuts)-1, func(p int) { errs[p] = fold(cuts[p], cuts[p+1]) })
		store()
		return errors.Join(errs...)
	}
	err := forEachScatter(env, geo, idx, ust, func(_ []int64, iOff, uOff int64) error {
		off := int64(0)
		for j, d := range dims {
			var v int64
			if at := iOff + int64(j)*geo.vecStride; i64 != nil {
				v = i64[at]
			} else {
				v = mvIndex(idx, int(at))
			}
			if v < 0 || v >= geo.shape[d] {
				return nil
			}
			off += v * rs[d]
		}
		dst[off] = float32(ff(float64(dst[off]), float64(src[uOff])))
		return nil
	})
	store()
	return err
}

// scatterCutBlock is the updates whose index range disjointCuts notes at
// once: a cut falls between two blocks.
const scatterCutBlock = 64

// disjointCuts splits updates [0, n) (their indices idx[i·is], those
// outside [0, lim) skipped by the fold) into at most parts runs whose
// destinations do not meet: every index before a cut below every index
// after it (a max-pool gradient's planes, and its output rows within a
// plane, whose windows' maxima move on). Each run then folds on a core of
// its own, in update order, and every destination gets the same updates
// in the same order as from one loop: the same result, bit for bit.
// Where no such cut lies near an even share, one run: [0, n).
func disjointCuts(idx []int64, is, n, lim int64, parts int) []int64 {
	if parts < 2 || n < 1<<15 {
		return []int64{0, n}
	}
	// each block's smallest and largest index in range, over the cores
	nb := (n + scatterCutBlock - 1) / scatterCutBlock
	lo, hi := make([]int64, nb), make([]int64, nb)
	parallelRange(int(nb), 64, func(b0, b1 int) {
		for b := int64(b0); b < int64(b1); b++ {
			mn, mx := int64(math.MaxInt64), int64(-1)
			for i := b * scatterCutBlock; i < min(n, (b+1)*scatterCutBlock); i++ {
				if v := idx[i*is]; v >= 0 && v < lim {
					mn, mx = min(mn, v), max(mx, v)
				}
			}
			lo[b], hi[b] = mn, mx
		}
	})
	// a cut before block b is good when the largest index before it is
	// below the smallest from it on
	after := make([]int64, nb+1)
	after[nb] = math.MaxInt64
	for b := nb - 1; b >= 0; b-- {
		after[b] = min(after[b+1], lo[b])
	}
	cuts := []int64{0}
	before := int64(-1)
	for b := int64(1); b < nb && int64(len(cuts)) < int64(parts); b++ {
		before = max(before, hi[b-1])
		want := n * int64(len(cuts)) / int64(parts)
		// the first good cut at or past an even share, within a quarter
		// of a share of it
		if at := b * scatterCutBlock; at >= want && before < after[b] {
			if at-want > n/int64(parts)/4 {
				break
			}
			cuts = append(cuts, at)
		}
	}
	return append(cuts, n)
}
