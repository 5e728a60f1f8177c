package native

import (
	"math"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Max pooling with indices: aten lowers max_pool2d_with_indices on float32
// to a variadic reduce_window over (values, flat indices) whose body keeps
// the larger value, a NaN over a number, among NaNs the larger index and
// among equal values the smaller valid one (argmaxTake). The generic
// kernel calls that body once per window tap; here one loop per plane
// folds the taps in the generic kernel's order (window rows, then
// columns; padding taps fold the init values) with argmaxTake, so the
// results are the generic kernel's. The body is not recognised by its
// text: it is run once per op on every combination of probe values and
// indices, and the fast path is taken only where it answers as
// argmaxTake does on all of them.

// argmaxTake reports whether the body replaces the running (av, ai) by the
// tap (bv, bi).
func argmaxTake(av float32, ai int64, bv float32, bi int64) bool {
	if bv > av { // neither is NaN
		return true
	}
	if bv == av { // neither is NaN: the smaller valid index
		return ai < 0 || bi < ai && bi >= 0
	}
	an, bn := av != av, bv != bv
	// a smaller number, or a NaN: a NaN over a number, among NaNs the
	// larger index
	return bn && (!an || bi > ai)
}

// argmaxBodies caches, per op, whether its body is argmaxTake's.
var argmaxBodies opCache[bool]

// isArgmaxBody runs op's body on the probes.
func isArgmaxBody(env Env, op *stablehlo.Op) bool {
	if ok, seen := argmaxBodies.get(op); seen {
		return ok
	}
	ok := probeArgmaxBody(env, op.Regions[0])
	argmaxBodies.put(op, ok)
	return ok
}

func probeArgmaxBody(env Env, body *stablehlo.Region) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	vals := []float32{float32(math.Inf(-1)), -1, 0, float32(math.Copysign(0, -1)), 2, float32(math.Inf(1)), float32(math.NaN())}
	idxs := []int64{-1, 0, 3, 7}
	f := func(v float32) *literal.Literal {
		l, _ := literal.New(dtype.F32, []int64{})
		l.SetFloat64(0, float64(v))
		return l
	}
	i := func(v int64) *literal.Literal {
		l, _ := literal.New(dtype.I64, []int64{})
		l.SetInt64(0, v)
		return l
	}
	for _, av := range vals {
		for _, ai := range idxs {
			for _, bv := range vals {
				for _, bi := range idxs {
					res, err := env.CallRegion(body, []Value{f(av), i(ai), f(bv), i(bi)})
					if err != nil || len(res) != 2 {
						return false
					}
					rv, ok1 := res[0].(*literal.Literal)
					ri, ok2 := res[1].(*literal.Literal)
					if !ok1 || !ok2 || rv.DType != dtype.F32 || ri.DType != dtype.I64 || rv.Len() != 1 || ri.Len() != 1 {
						return false
					}
					wv, wi := av, ai
					if argmaxTake(av, ai, bv, bi) {
						wv, wi = bv, bi
					}
					if math.Float32bits(float32(rv.Float64(0))) != math.Float32bits(wv) || ri.Int64(0) != wi {
						return false
					}
				}
			}
		}
	}
	return true
}

// fastArgmaxWindow runs the variadic (float32 values, int64 indices)
// reduce_window over the last two dims of rank-4 operands whose body is
// argmaxTake's; ok false hands the op to the generic kernel.
func fastArgmaxWindow(env Env, op *stablehlo.Op, in []Value) ([]Value, bool) {
	if len(in) != 4 || len(op.Regions) != 1 || len(op.Results) != 2 {
		return nil, false
	}
	var ls [4]*literal.Literal
	for k := range ls {
		l, ok := in[k].(*literal.Literal)
		if !ok || l == nil {
			return nil, false
		}
		ls[k] = l
	}
	x, idx, iv, ii := ls[0], ls[1], ls[2], ls[3]
	if x.DType != dtype.F32 || idx.DType != dtype.I64 || iv.DType != dtype.F32 || ii.DType != dtype.I64 ||
		x.Rank() != 4 || !shapeEq(x.Shape, idx.Shape) || iv.Rank() != 0 || ii.Rank() != 0 ||
		computeResultDType(op, 0, dtype.F32) != dtype.F32 || computeResultDType(op, 1, dtype.I64) != dtype.I64 {
		return nil, false
	}
	w, err := readWindowSpec(op, 4)
	if err != nil {
		return nil, false
	}
	for d := 0; d < 4; d++ {
		lead := d < 2 && (w.size[d] != 1 || w.stride[d] != 1 || w.winDil[d] != 1 || w.padLo[d] != 0 || w.padHi[d] != 0)
		if lead || w.baseDil[d] != 1 || w.padLo[d] < 0 || w.padHi[d] < 0 {
			return nil, false
		}
	}
	outShape := w.outShape(x.Shape)
	if checkComputedShape(op, 0, outShape) != nil || checkComputedShape(op, 1, outShape) != nil || !isArgmaxBody(env, op) {
		return nil, false
	}
	xs := f32View(x.Data)
	is := int64View(idx.Data)
	if xs == nil || is == nil {
		return nil, false
	}
	vOut, err := takeResult(env, dtype.F32, outShape)
	if err != nil {
		return nil, false
	}
	iOut, err := takeResult(env, dtype.I64, outShape)
	if err != nil {
		return nil, false
	}
	dv, store := f32Out(vOut.Data)
	di := int64View(iOut.Data)
	if di == nil {
		return nil, false
	}
	planes := int(x.Shape[0] * x.Shape[1])
	h, wd, oh, ow := int(x.Shape[2]), int(x.Shape[3]), int(outShape[2]), int(outShape[3])
	kh, kw, sh, sw := int(w.size[2]), int(w.size[3]), int(w.stride[2]), int(w.stride[3])
	dh, dw, pt, pl := int(w.winDil[2]), int(w.winDil[3]), int(w.padLo[2]), int(w.padLo[3])
	v0, i0 := f32View(iv.Data)[0], ii.Int64(0)
	// outputs whose windows lie inside the plane read their taps with no
	// bounds test
	oy0, oy1 := interiorRange(oh, h, kh, sh, dh, pt)
	ox0, ox1 := interiorRange(ow, wd, kw, sw, dw, pl)
	runParts(planes, min(Threads(), planes, max(1, planes*oh*ow*kh*kw/(1<<13))), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			src, sidx := xs[p*h*wd:(p+1)*h*wd], is[p*h*wd:(p+1)*h*wd]
			ov, oi := dv[p*oh*ow:(p+1)*oh*ow], di[p*oh*ow:(p+1)*oh*ow]
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					bv, bi := v0, i0
					if oy >= oy0 && oy < oy1 && ox >= ox0 && ox < ox1 {
						base := (oy*sh-pt)*wd + ox*sw - pl
						for ky := 0; ky < kh; ky++ {
							row := base + ky*dh*wd
							for kx := 0; kx < kw; kx++ {
								// argmaxTake, reading the tap's index only
								// where the values leave the answer open
								j := row + kx*dw
								switch tv := src[j]; {
								case tv > bv:
									bv, bi = tv, sidx[j]
								case tv < bv:
								default:
									if ti := sidx[j]; argmaxTake(bv, bi, tv, ti) {
										bv, bi = tv, ti
									}
								}
							}
						}
						ov[oy*ow+ox], oi[oy*ow+ox] = bv, bi
						continue
					}
					for ky := 0; ky < kh; ky++ {
						y := oy*sh - pt + ky*dh
						for kx := 0; kx < kw; kx++ {
							x := ox*sw - pl + kx*dw
							tv, ti := v0, i0 // a padding tap folds the init values
							if y >= 0 && y < h && x >= 0 && x < wd {
								tv, ti = src[y*wd+x], sidx[y*wd+x]
							}
							if argmaxTake(bv, bi, tv, ti) {
								bv, bi = tv, ti
							}
						}
					}
					ov[oy*ow+ox], oi[oy*ow+ox] = bv, bi
				}
			}
		}
	})
	store()
	return []Value{vOut, iOut}, true
}

// int64View is b's elements as int64 where the host is little-endian and
// b is aligned, else nil.
func int64View(b []byte) []int64 {
	if !hostLittleEndian || len(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 != 0 {
		return nil
	}
	return typedView[int64](b)
}
