package native

import (
	"math"
	"unsafe"
	"weak"

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
	var p pool2d
	outShape, ok := p.plan(op, x.Shape, 2)
	if !ok || !isArgmaxBody(env, op) {
		return nil, false
	}
	xs := f32View(x.Data)
	is := elems[int64](idx.Data)
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
	di := elems[int64](iOut.Data)
	if di == nil {
		return nil, false
	}
	v0, i0 := f32View(iv.Data)[0], ii.Int64(0)
	hw, ohw := p.h*p.w, p.oh*p.ow
	// aten's indices are each plane's flat positions, a constant: then a
	// tap's index is its position, and with the init (-inf, -1) the first
	// tap of an inner window always wins over the init
	pos := v0 == float32(math.Inf(-1)) && i0 < 0 && planePositions(op, idx, is, hw)
	runParts(p.planes, min(Threads(), p.planes, max(1, p.planes*ohw*p.kh*p.kw/(1<<13))), func(lo, hi int) {
		for pl := lo; pl < hi; pl++ {
			if pos {
				p.argmaxPlanePos(xs[pl*hw:(pl+1)*hw], dv[pl*ohw:(pl+1)*ohw], di[pl*ohw:(pl+1)*ohw], v0, i0)
				continue
			}
			p.argmaxPlane(xs[pl*hw:(pl+1)*hw], is[pl*hw:(pl+1)*hw], dv[pl*ohw:(pl+1)*ohw], di[pl*ohw:(pl+1)*ohw], v0, i0)
		}
	})
	store()
	return []Value{vOut, iOut}, true
}

// argmaxPlane folds the windows of one plane (values src, indices sidx)
// into its outputs ov, oi, from the init values v0, i0.
func (p *pool2d) argmaxPlane(src []float32, sidx []int64, ov []float32, oi []int64, v0 float32, i0 int64) {
	// outputs whose windows lie inside the plane read their taps with no
	// bounds test
	oy0, oy1 := interiorRange(p.oh, p.h, p.kh, p.sh, p.dh, p.pt)
	ox0, ox1 := interiorRange(p.ow, p.w, p.kw, p.sw, p.dw, p.pl)
	for oy := 0; oy < p.oh; oy++ {
		for ox := 0; ox < p.ow; ox++ {
			if oy >= oy0 && oy < oy1 && ox >= ox0 && ox < ox1 {
				bv, bi := v0, i0
				base := (oy*p.sh-p.pt)*p.w + ox*p.sw - p.pl
				for ky := 0; ky < p.kh; ky++ {
					row := base + ky*p.dh*p.w
					for kx := 0; kx < p.kw; kx++ {
						// argmaxTake, reading the tap's index only where
						// the values leave the answer open
						j := row + kx*p.dw
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
				ov[oy*p.ow+ox], oi[oy*p.ow+ox] = bv, bi
				continue
			}
			ov[oy*p.ow+ox], oi[oy*p.ow+ox] = p.argmaxBorder(src, sidx, oy, ox, v0, i0)
		}
	}
}

// argmaxBorder folds window (oy, ox), which touches the padding, with
// argmaxTake: a padding tap folds the init values (v0, i0), a tap inside
// the plane its value and its index (sidx, or its position when sidx is
// nil).
func (p *pool2d) argmaxBorder(src []float32, sidx []int64, oy, ox int, v0 float32, i0 int64) (float32, int64) {
	bv, bi := v0, i0
	for ky := 0; ky < p.kh; ky++ {
		y := oy*p.sh - p.pt + ky*p.dh
		for kx := 0; kx < p.kw; kx++ {
			x := ox*p.sw - p.pl + kx*p.dw
			tv, ti := v0, i0
			if y >= 0 && y < p.h && x >= 0 && x < p.w {
				j := y*p.w + x
				tv, ti = src[j], int64(j)
				if sidx != nil {
					ti = sidx[j]
				}
			}
			if argmaxTake(bv, bi, tv, ti) {
				bv, bi = tv, ti
			}
		}
	}
	return bv, bi
}

// positionsSeen is what planePositions found for an op's index operand.
type positionsSeen struct {
	lit  weak.Pointer[literal.Literal]
	data unsafe.Pointer
	n    int
	hw   int
	ok   bool
}

var argmaxPositions opCache[positionsSeen]

// planePositions reports whether the index operand holds each plane's
// flat positions 0 … hw-1. Only a frozen literal (a constant of the plan:
// never written while it lives) is looked at, once per op and literal.
func planePositions(op *stablehlo.Op, idx *literal.Literal, is []int64, hw int) bool {
	if !idx.Frozen || hw == 0 {
		return false
	}
	data := unsafe.Pointer(unsafe.SliceData(idx.Data))
	if e, ok := argmaxPositions.get(op); ok && e.lit.Value() == idx && e.data == data && e.n == len(idx.Data) && e.hw == hw {
		return e.ok
	}
	ok := len(is)%hw == 0
	for p := 0; ok && p < len(is); p += hw {
		for j, v := range is[p : p+hw] {
			if v != int64(j) {
				ok = false
				break
			}
		}
	}
	argmaxPositions.put(op, positionsSeen{lit: weak.Make(idx), data: data, n: len(idx.Data), hw: hw, ok: ok})
	return ok
}

// argmaxPlanePos is argmaxPlane where a tap's index is its position in
// the plane and the init is (-inf, -1). In an inner window the first tap
// wins over the init, and then, taps coming in increasing position, a
// tap wins when it is larger or a NaN (argmaxTake: a NaN over a number,
// among NaNs the larger index, among equal values the smaller one).
// Windows touching the padding fold as argmaxPlane does.
func (p *pool2d) argmaxPlanePos(src []float32, ov []float32, oi []int64, v0 float32, i0 int64) {
	oy0, oy1 := interiorRange(p.oh, p.h, p.kh, p.sh, p.dh, p.pt)
	ox0, ox1 := interiorRange(p.ow, p.w, p.kw, p.sw, p.dw, p.pl)
	vec := argmaxSIMD && p.kh >= 1 && p.kw == 3 && p.sw == 2 && p.dw == 1 && len(src) < math.MaxInt32
	for oy := 0; oy < p.oh; oy++ {
		inRow := oy >= oy0 && oy < oy1
		skip := -1 // interior outputs before it were computed by vectors
		if inRow && vec {
			skip = ox0 + p.argmaxRowSIMD(src, ov, oi, oy, ox0, ox1)
		}
		for ox := 0; ox < p.ow; ox++ {
			if ox >= ox0 && ox < skip {
				continue
			}
			if inRow && ox >= ox0 && ox < ox1 {
				base := (oy*p.sh-p.pt)*p.w + ox*p.sw - p.pl
				bv, bj := src[base], base
				for ky := 0; ky < p.kh; ky++ {
					row := base + ky*p.dh*p.w
					for kx := 0; kx < p.kw; kx++ {
						j := row + kx*p.dw
						if tv := src[j]; tv > bv || tv != tv {
							bv, bj = tv, j
						}
					}
				}
				ov[oy*p.ow+ox], oi[oy*p.ow+ox] = bv, int64(bj)
				continue
			}
			ov[oy*p.ow+ox], oi[oy*p.ow+ox] = p.argmaxBorder(src, nil, oy, ox, v0, i0)
		}
	}
}

// argmaxSIMD switches argmaxRowSIMD (tests compare it with the Go loop).
var argmaxSIMD = simdPool

// argmaxRowSIMD computes interior outputs of row oy from ox0 on by
// argmax3s2x8, in whole groups of 8 before ox1 whose reads (one float
// past the last tap) stay inside src, and returns how many it computed.
// A last partial group is computed as the 8 outputs ending at ox1,
// overlapping the previous group (its outputs written twice, the same).
func (p *pool2d) argmaxRowSIMD(src []float32, ov []float32, oi []int64, oy, ox0, ox1 int) int {
	rowStep := p.dh * p.w
	first := func(ox int) int { return (oy*p.sh-p.pt)*p.w + ox*p.sw - p.pl }
	fits := func(ox, g int) bool { return first(ox)+(p.kh-1)*rowStep+16*g+1 < len(src) }
	run := func(ox, g int) {
		o := oy*p.ow + ox
		argmax3s2x8(&src[first(ox)], rowStep, p.kh, &ov[o], &oi[o], first(ox), g)
	}
	g := (ox1 - ox0) / 8
	for g > 0 && !fits(ox0, g) {
		g--
	}
	if g == 0 {
		return 0
	}
	run(ox0, g)
	if done := 8 * g; done < ox1-ox0 && fits(ox1-8, 1) {
		run(ox1-8, 1)
		return ox1 - ox0
	}
	return 8 * g
}
