package native

import (
	"bytes"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// mvBinaryRegion is ^bb0(%a, %b): return name(%a, %b), or return %b when
// name is "".
func mvBinaryRegion(dt dtype.DType, name string, attrs map[string]stablehlo.Attr) *stablehlo.Region {
	t := stablehlo.Tensor(dt)
	a, b := &stablehlo.Value{Type: t}, &stablehlo.Value{Type: t, Index: 1}
	if name == "" {
		ret := stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{b}, nil, nil)
		return &stablehlo.Region{Blocks: []*stablehlo.Block{{Args: []*stablehlo.Value{a, b}, Ops: []*stablehlo.Op{ret}}}}
	}
	rt := stablehlo.Type(t)
	if name == "stablehlo.compare" {
		rt = stablehlo.Tensor(dtype.Bool)
	}
	var na []stablehlo.NamedAttr
	for k, v := range attrs {
		na = append(na, stablehlo.NamedAttr{Name: k, Value: v})
	}
	f := stablehlo.NewOp(name, []*stablehlo.Value{a, b}, []stablehlo.Type{rt}, na)
	ret := stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{f.Result()}, nil, nil)
	return &stablehlo.Region{Blocks: []*stablehlo.Block{{Args: []*stablehlo.Value{a, b}, Ops: []*stablehlo.Op{f, ret}}}}
}

// naiveScatter applies the spec's schedule (row-major update order).
func naiveScatter(x, idx, u *literal.Literal, sd *stablehlo.ScatterDims, combine func(old, upd int64) int64) *literal.Literal {
	out := x.Clone()
	mvEach(u.Shape, func(ui []int64) {
		var batch, win []int64
		for d, v := range ui {
			if mvContains(sd.UpdateWindowDims, int64(d)) {
				win = append(win, v)
			} else {
				batch = append(batch, v)
			}
		}
		start := mvStartIndex(idx, sd.IndexVectorDim, batch)
		ri := make([]int64, x.Rank())
		for d := range ri {
			for ds, m := range sd.ScatterDimsToOperandDims {
				if m == int64(d) {
					ri[d] += start[ds]
				}
			}
			for i, bd := range sd.InputBatchingDims {
				if bd == int64(d) {
					s := sd.ScatterIndicesBatchingDims[i]
					if s >= sd.IndexVectorDim {
						s--
					}
					ri[d] += batch[s]
				}
			}
			if !mvContains(sd.InsertedWindowDims, int64(d)) && !mvContains(sd.InputBatchingDims, int64(d)) {
				ri[d] += win[0]
				win = win[1:]
			}
			if ri[d] < 0 || ri[d] >= x.Shape[d] {
				return
			}
		}
		o, k := int(mvFlat(x.Shape, ri)), int(mvFlat(u.Shape, ui))
		out.SetInt64(o, combine(out.Int64(o), u.Int64(k)))
	})
	return out
}

func TestScatterMatchesSpecFormula(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	cases := []struct {
		x, idx, u []int64
		sd        *stablehlo.ScatterDims
	}{
		{ // the spec's example geometry, with batching dims
			x: []int64{2, 3, 4, 2}, idx: []int64{2, 2, 3, 2}, u: []int64{2, 2, 3, 2, 2},
			sd: &stablehlo.ScatterDims{UpdateWindowDims: []int64{3, 4}, InsertedWindowDims: []int64{1}, InputBatchingDims: []int64{0},
				ScatterIndicesBatchingDims: []int64{1}, ScatterDimsToOperandDims: []int64{2, 1}, IndexVectorDim: 3},
		},
		{ // index_put of rows, implicit index vector, windows partly out of bounds
			x: []int64{6, 5}, idx: []int64{7}, u: []int64{7, 3},
			sd: &stablehlo.ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1},
		},
		{ // 2-d windows with both dims indexed
			x: []int64{5, 6}, idx: []int64{4, 2}, u: []int64{4, 2, 3},
			sd: &stablehlo.ScatterDims{UpdateWindowDims: []int64{1, 2}, ScatterDimsToOperandDims: []int64{1, 0}, IndexVectorDim: 1},
		},
	}
	for ci, c := range cases {
		x := mvRandIdx(rng, dtype.I32, -100, 100, c.x...)
		idx := mvRandIdx(rng, dtype.I64, -2, 7, c.idx...)
		u := mvRandIdx(rng, dtype.I32, -100, 100, c.u...)
		for _, mode := range []string{"stablehlo.add", "stablehlo.subtract", ""} {
			op := mvOp("stablehlo.scatter", []stablehlo.Type{mvT(dtype.I32, c.x...)},
				map[string]stablehlo.Attr{"scatter_dimension_numbers": c.sd}, mvBinaryRegion(dtype.I32, mode, nil))
			got := mvRun(t, mvEnv{}, op, x, idx, u)[0].(*literal.Literal)
			want := naiveScatter(x, idx, u, c.sd, func(old, upd int64) int64 {
				switch mode {
				case "":
					return upd
				case "stablehlo.subtract": // no fold: one kernel call per window
					return int64(int32(old - upd))
				}
				return int64(int32(old + upd))
			})
			if !bytes.Equal(got.Data, want.Data) {
				t.Errorf("scatter case %d (%q): got %v, want %v", ci, mode, got.Data, want.Data)
			}
		}
	}
}

// Two inputs with a region the fast paths do not recognise: the first
// accumulates, the second is overwritten.
func TestScatterTwoInputsGenericRegion(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	sd := &stablehlo.ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	x1, x2 := mvRandIdx(rng, dtype.I32, -50, 50, 5, 4), mvRandIdx(rng, dtype.I64, -50, 50, 5, 4)
	idx := mvRandIdx(rng, dtype.U8, 0, 7, 6)
	u1, u2 := mvRandIdx(rng, dtype.I32, -50, 50, 6, 4), mvRandIdx(rng, dtype.I64, -50, 50, 6, 4)
	t32, t64 := stablehlo.Tensor(dtype.I32), stablehlo.Tensor(dtype.I64)
	a1, a2 := &stablehlo.Value{Type: t32}, &stablehlo.Value{Type: t64, Index: 1}
	b1, b2 := &stablehlo.Value{Type: t32, Index: 2}, &stablehlo.Value{Type: t64, Index: 3}
	add := stablehlo.NewOp("stablehlo.add", []*stablehlo.Value{a1, b1}, []stablehlo.Type{t32}, nil)
	ret := stablehlo.NewOp("stablehlo.return", []*stablehlo.Value{add.Result(), b2}, nil, nil)
	body := &stablehlo.Region{Blocks: []*stablehlo.Block{{Args: []*stablehlo.Value{a1, a2, b1, b2}, Ops: []*stablehlo.Op{add, ret}}}}
	op := mvOp("stablehlo.scatter", []stablehlo.Type{mvT(dtype.I32, 5, 4), mvT(dtype.I64, 5, 4)},
		map[string]stablehlo.Attr{"scatter_dimension_numbers": sd}, body)
	out := mvRun(t, mvEnv{}, op, x1, x2, idx, u1, u2)
	want1 := naiveScatter(x1, idx, u1, sd, func(old, upd int64) int64 { return int64(int32(old + upd)) })
	want2 := naiveScatter(x2, idx, u2, sd, func(_, upd int64) int64 { return upd })
	if got := out[0].(*literal.Literal); !bytes.Equal(got.Data, want1.Data) {
		t.Errorf("scatter result #0: got %v, want %v", got.Data, want1.Data)
	}
	if got := out[1].(*literal.Literal); !bytes.Equal(got.Data, want2.Data) {
		t.Errorf("scatter result #1: got %v, want %v", got.Data, want2.Data)
	}
}

// swappedRegion is ^bb0(%a, %b): return name(%b, %a): the same combiner
// as mvBinaryRegion's for a commutative op, which the fast paths do not
// recognise as a fold, so the window-by-window kernel call runs.
func swappedRegion(dt dtype.DType, name string) *stablehlo.Region {
	r := mvBinaryRegion(dt, name, nil)
	f := r.Blocks[0].Ops[0]
	f.Operands[0], f.Operands[1] = f.Operands[1], f.Operands[0]
	return r
}

// Single-element float32 updates (the point path) and contiguous rows
// against the generic path: duplicate and out-of-bounds indices, NaN and
// Inf, one and two scattered dims, an explicit and an implicit index
// vector.
func TestPointScatterF32(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	cases := []struct {
		x, idx, u []int64
		sd        *stablehlo.ScatterDims
	}{
		{x: []int64{37}, idx: []int64{101, 1}, u: []int64{101},
			sd: &stablehlo.ScatterDims{InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}},
		{x: []int64{37}, idx: []int64{9, 12}, u: []int64{9, 12},
			sd: &stablehlo.ScatterDims{InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 2}},
		{x: []int64{5, 7}, idx: []int64{33, 2}, u: []int64{33},
			sd: &stablehlo.ScatterDims{InsertedWindowDims: []int64{0, 1}, ScatterDimsToOperandDims: []int64{1, 0}, IndexVectorDim: 1}},
		// rows (an embedding's gradient): contiguous windows, some out of bounds
		{x: []int64{6, 5}, idx: []int64{40}, u: []int64{40, 5},
			sd: &stablehlo.ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}},
	}
	for ci, c := range cases {
		x := mvRand(rng, dtype.F32, c.x...)
		u := mvRand(rng, dtype.F32, c.u...)
		u.SetFloat64(0, math.NaN())
		u.SetFloat64(1, math.Inf(1))
		u.SetFloat64(2, math.Inf(-1))
		idx := mvRandIdx(rng, dtype.I64, -2, 9, c.idx...)
		for _, name := range []string{"stablehlo.add", "stablehlo.multiply"} {
			op := func(r *stablehlo.Region) *stablehlo.Op {
				return mvOp("stablehlo.scatter", []stablehlo.Type{mvT(dtype.F32, c.x...)},
					map[string]stablehlo.Attr{"scatter_dimension_numbers": c.sd}, r)
			}
			got := mvRun(t, mvEnv{}, op(mvBinaryRegion(dtype.F32, name, nil)), x, idx, u)[0].(*literal.Literal)
			want := mvRun(t, mvEnv{}, op(swappedRegion(dtype.F32, name)), x, idx, u)[0].(*literal.Literal)
			if !bytes.Equal(got.Data, want.Data) {
				t.Errorf("case %d %s: point path %v, generic path %v", ci, name, got, want)
			}
		}
	}
}

// Point scatters large enough to split over the cores (disjointCuts):
// max-pool-like indices (planes in order, within a plane rising with
// repeats and overlaps: a window's maximum shared with the next row's),
// the same with some indices out of bounds, and random indices (no cut
// possible), each against the generic path bit for bit, on two and four
// threads; the cuts found keep every index before below every one after.
func TestPointScatterF32Parallel(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const planes, outs, plane = 48, 784, 3136
	n := int64(planes * outs)
	mk := func(kind string) *literal.Literal {
		idx, _ := literal.New(dtype.I64, []int64{n, 1})
		for p := int64(0); p < planes; p++ {
			prev := int64(0)
			for k := int64(0); k < outs; k++ {
				v := min(plane-1, max(prev, 4*k+rng.Int63n(5)-2))
				if rng.Intn(9) == 0 {
					v = prev // a maximum two windows share
				}
				prev = v
				switch {
				case kind == "random":
					v = rng.Int63n(planes * plane)
				case kind == "outside" && rng.Intn(50) == 0:
					v = -1 - rng.Int63n(3)
				default:
					v += p * plane
				}
				idx.SetInt64(int(p*outs+k), v)
			}
		}
		return idx
	}
	sd := &stablehlo.ScatterDims{InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	for _, kind := range []string{"maxpool", "outside", "random"} {
		idx := mk(kind)
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			cuts := disjointCuts(elems[int64](idx.Data), 1, n, planes*plane, procs)
			if (len(cuts) > 2) != (kind != "random" && procs > 1) {
				t.Fatalf("%s, %d threads: cuts %v", kind, procs, cuts)
			}
			for c := 1; c+1 < len(cuts); c++ {
				var before, after = int64(-1), int64(math.MaxInt64)
				for i := int64(0); i < n; i++ {
					if v := idx.Int64(int(i)); v >= 0 && i < cuts[c] {
						before = max(before, v)
					} else if v >= 0 {
						after = min(after, v)
					}
				}
				if before >= after {
					t.Fatalf("%s: cut %d at %d: index %d before it, %d after", kind, c, cuts[c], before, after)
				}
			}
			// finite values: two NaNs' sum keeps the first operand's
			// payload, and the generic path's region adds them swapped
			x, _ := literal.New(dtype.F32, []int64{planes * plane})
			u, _ := literal.New(dtype.F32, []int64{n})
			for i := 0; i < x.Len(); i++ {
				x.SetFloat64(i, rng.NormFloat64())
			}
			for i := 0; i < u.Len(); i++ {
				u.SetFloat64(i, rng.NormFloat64()*1e3)
			}
			op := func(r *stablehlo.Region) *stablehlo.Op {
				return mvOp("stablehlo.scatter", []stablehlo.Type{mvT(dtype.F32, planes*plane)},
					map[string]stablehlo.Attr{"scatter_dimension_numbers": sd}, r)
			}
			got := mvRun(t, mvEnv{}, op(mvBinaryRegion(dtype.F32, "stablehlo.add", nil)), x, idx, u)[0].(*literal.Literal)
			want := mvRun(t, mvEnv{}, op(swappedRegion(dtype.F32, "stablehlo.add")), x, idx, u)[0].(*literal.Literal)
			if !bytes.Equal(got.Data, want.Data) {
				t.Fatalf("%s, %d threads: the split point path differs from the generic path", kind, procs)
			}
		}
	}
}
