package native

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The data-movement kernels are checked against direct, element-by-element
// transcriptions of the spec's formulas on random data (the conformance
// files are the truth for values; these tests pin the index arithmetic of
// the fast copy paths, for every element size).

var mvSizes = []dtype.DType{dtype.I8, dtype.BF16, dtype.F32, dtype.I64, dtype.C128}

func mvRand(rng *rand.Rand, dt dtype.DType, shape ...int64) *literal.Literal {
	l, err := literal.New(dt, shape)
	if err != nil {
		panic(err)
	}
	rng.Read(l.Data)
	return l
}

// mvElem returns the bytes of x at a multi-index.
func mvElem(x *literal.Literal, idx []int64) []byte {
	st := literal.Strides(x.Shape)
	off := int64(0)
	for d, i := range idx {
		off += i * st[d]
	}
	esz := int64(x.DType.Size())
	return x.Data[off*esz : (off+1)*esz]
}

// mvEach calls fn with every multi-index of shape, row-major.
func mvEach(shape []int64, fn func(idx []int64)) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	idx := make([]int64, len(shape))
	for {
		fn(idx)
		k := len(shape) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// mvOp builds an op with the given result types and attributes.
func mvOp(name string, results []stablehlo.Type, attrs map[string]stablehlo.Attr, regions ...*stablehlo.Region) *stablehlo.Op {
	var na []stablehlo.NamedAttr
	for k, v := range attrs {
		na = append(na, stablehlo.NamedAttr{Name: k, Value: v})
	}
	return stablehlo.NewOp(name, nil, results, na, regions...)
}

func mvI64s(v ...int64) stablehlo.Attr { return &stablehlo.DenseArrayAttr{Elem: "i64", Ints: v} }

func mvT(dt dtype.DType, shape ...int64) stablehlo.Type { return stablehlo.Tensor(dt, shape...) }

// runK runs the registered kernel of op on inputs.
func mvRun(t *testing.T, env Env, op *stablehlo.Op, in ...Value) []Value {
	t.Helper()
	k := kernels[op.Name]
	if k == nil {
		t.Fatalf("no kernel for %s", op.Name)
	}
	out, err := k(env, op, in)
	if err != nil {
		t.Fatalf("%s: %v", op.Name, err)
	}
	return out
}

// checkAll compares got against want(idx) at every result index.
func mvCheckAll(t *testing.T, what string, got *literal.Literal, shape []int64, want func(idx []int64) []byte) {
	t.Helper()
	if !mvSameShape(got.Shape, shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, shape)
	}
	bad := 0
	mvEach(shape, func(idx []int64) {
		if g, w := mvElem(got, idx), want(idx); !bytes.Equal(g, w) && bad < 5 {
			bad++
			t.Errorf("%s at %v: got %x, want %x", what, idx, g, w)
		}
	})
}

func mvIdxList(v ...int64) *literal.Literal {
	l, _ := literal.New(dtype.I64, []int64{int64(len(v))})
	for i, x := range v {
		l.SetInt64(i, x)
	}
	return l
}

func mvScalarOf(dt dtype.DType, v int64) *literal.Literal {
	l, _ := literal.New(dt, nil)
	l.SetInt64(0, v)
	return l
}

func TestBroadcastTransposeReverse(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, dt := range mvSizes {
		x := mvRand(rng, dt, 3, 1, 4)
		shape := []int64{2, 4, 5, 3}
		op := mvOp("stablehlo.broadcast_in_dim", []stablehlo.Type{mvT(dt, shape...)}, map[string]stablehlo.Attr{"broadcast_dimensions": mvI64s(3, 2, 1)})
		got := mvRun(t, nil, op, x)[0].(*literal.Literal)
		mvCheckAll(t, "broadcast_in_dim "+dt.String(), got, shape, func(i []int64) []byte {
			return mvElem(x, []int64{i[3], 0, i[1]})
		})

		y := mvRand(rng, dt, 2, 3, 4, 5)
		perm := []int64{2, 0, 3, 1}
		op = mvOp("stablehlo.transpose", []stablehlo.Type{mvT(dt, 4, 2, 5, 3)}, map[string]stablehlo.Attr{"permutation": mvI64s(perm...)})
		got = mvRun(t, nil, op, y)[0].(*literal.Literal)
		mvCheckAll(t, "transpose "+dt.String(), got, []int64{4, 2, 5, 3}, func(i []int64) []byte {
			src := make([]int64, 4)
			for r, p := range perm {
				src[p] = i[r]
			}
			return mvElem(y, src)
		})

		op = mvOp("stablehlo.reverse", []stablehlo.Type{mvT(dt, 2, 3, 4, 5)}, map[string]stablehlo.Attr{"dimensions": mvI64s(1, 3)})
		got = mvRun(t, nil, op, y)[0].(*literal.Literal)
		mvCheckAll(t, "reverse "+dt.String(), got, y.Shape, func(i []int64) []byte {
			return mvElem(y, []int64{i[0], 2 - i[1], i[2], 4 - i[3]})
		})
	}
}

func TestSliceConcatPad(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, dt := range mvSizes {
		x := mvRand(rng, dt, 5, 7, 3)
		op := mvOp("stablehlo.slice", []stablehlo.Type{mvT(dt, 2, 3, 3)}, map[string]stablehlo.Attr{
			"start_indices": mvI64s(1, 0, 0), "limit_indices": mvI64s(4, 7, 3), "strides": mvI64s(2, 3, 1)})
		got := mvRun(t, nil, op, x)[0].(*literal.Literal)
		mvCheckAll(t, "slice "+dt.String(), got, []int64{2, 3, 3}, func(i []int64) []byte {
			return mvElem(x, []int64{1 + 2*i[0], 3 * i[1], i[2]})
		})

		a, b := mvRand(rng, dt, 5, 2, 3), mvRand(rng, dt, 5, 4, 3)
		op = mvOp("stablehlo.concatenate", []stablehlo.Type{mvT(dt, 5, 6, 3)}, map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: 1}})
		got = mvRun(t, nil, op, a, b)[0].(*literal.Literal)
		mvCheckAll(t, "concatenate "+dt.String(), got, []int64{5, 6, 3}, func(i []int64) []byte {
			if i[1] < 2 {
				return mvElem(a, i)
			}
			return mvElem(b, []int64{i[0], i[1] - 2, i[2]})
		})

		// along the last dim: each output row its operands' rows (concatRows)
		op = mvOp("stablehlo.concatenate", []stablehlo.Type{mvT(dt, 5, 2, 9)}, map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: 2}})
		c := mvRand(rng, dt, 5, 2, 4)
		d := mvRand(rng, dt, 5, 2, 5)
		got = mvRun(t, nil, op, c, d)[0].(*literal.Literal)
		mvCheckAll(t, "concatenate last dim "+dt.String(), got, []int64{5, 2, 9}, func(i []int64) []byte {
			if i[2] < 4 {
				return mvElem(c, i)
			}
			return mvElem(d, []int64{i[0], i[1], i[2] - 4})
		})

		pv := mvRand(rng, dt)
		low, high, interior := []int64{-3, 2, 0}, []int64{1, -4, 2}, []int64{1, 2, 1}
		shape := make([]int64, 3)
		for d := range shape {
			shape[d] = low[d] + high[d] + x.Shape[d] + (x.Shape[d]-1)*interior[d]
		}
		op = mvOp("stablehlo.pad", []stablehlo.Type{mvT(dt, shape...)}, map[string]stablehlo.Attr{
			"edge_padding_low": mvI64s(low...), "edge_padding_high": mvI64s(high...), "interior_padding": mvI64s(interior...)})
		got = mvRun(t, nil, op, x, pv)[0].(*literal.Literal)
		mvCheckAll(t, "pad "+dt.String(), got, shape, func(i []int64) []byte {
			src := make([]int64, 3)
			for d := range i {
				j := i[d] - low[d]
				if j < 0 || j%(interior[d]+1) != 0 || j/(interior[d]+1) >= x.Shape[d] {
					return pv.Data
				}
				src[d] = j / (interior[d] + 1)
			}
			return mvElem(x, src)
		})
	}
}

// TestConcatSplit: results of copyParMin bytes or more are split over
// the cores along their outermost dim before the concatenated one
// (concatInto); three operands, each smaller than copyParMin, along the
// last, a middle and (no dim before it: one part) the first dim, and with
// unit dims before the split.
func TestConcatSplit(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, c := range []struct {
		shape []int64 // of operand i, with sizes[i] along dim
		dim   int
	}{
		{[]int64{1, 4, 64, 0}, 3}, {[]int64{3, 0, 2, 1000}, 1}, {[]int64{0, 8, 700}, 0}, {[]int64{1, 1, 130, 0, 33}, 3},
	} {
		sizes := []int64{32, 7, 25}
		var xs []*literal.Literal
		out := append([]int64(nil), c.shape...)
		out[c.dim] = 0
		for _, n := range sizes {
			sh := append([]int64(nil), c.shape...)
			sh[c.dim] = n
			xs = append(xs, mvRand(rng, dtype.F32, sh...))
			out[c.dim] += n
		}
		if n, _ := literal.NumElements(out); 4*n < copyParMin {
			t.Fatalf("%v: %d bytes, below the split", out, n)
		}
		op := mvOp("stablehlo.concatenate", []stablehlo.Type{mvT(dtype.F32, out...)}, map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: int64(c.dim)}})
		in := make([]Value, len(xs))
		for i, x := range xs {
			in[i] = x
		}
		got := mvRun(t, nil, op, in...)[0].(*literal.Literal)
		mvCheckAll(t, fmt.Sprintf("concatenate %v along %d", out, c.dim), got, out, func(i []int64) []byte {
			j := append([]int64(nil), i...)
			for k, n := range sizes {
				if j[c.dim] < n {
					return mvElem(xs[k], j)
				}
				j[c.dim] -= n
			}
			return nil
		})
	}
}

func TestDynamicSliceClamps(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	x := mvRand(rng, dtype.F32, 6, 5)
	for _, st := range [][2]int64{{-2, 1}, {4, 9}, {1, 2}} {
		op := mvOp("stablehlo.dynamic_slice", []stablehlo.Type{mvT(dtype.F32, 3, 2)}, map[string]stablehlo.Attr{"slice_sizes": mvI64s(3, 2)})
		got := mvRun(t, nil, op, x, mvScalarOf(dtype.I32, st[0]), mvScalarOf(dtype.U64, st[1]))[0].(*literal.Literal)
		s0, s1 := mvClamp(st[0], 0, 3), mvClamp(st[1], 0, 3)
		mvCheckAll(t, fmt.Sprint("dynamic_slice at ", st), got, []int64{3, 2}, func(i []int64) []byte {
			return mvElem(x, []int64{s0 + i[0], s1 + i[1]})
		})

		u := mvRand(rng, dtype.F32, 3, 2)
		op = mvOp("stablehlo.dynamic_update_slice", []stablehlo.Type{mvT(dtype.F32, 6, 5)}, nil)
		got = mvRun(t, nil, op, x, u, mvScalarOf(dtype.I64, st[0]), mvScalarOf(dtype.I8, st[1]))[0].(*literal.Literal)
		mvCheckAll(t, fmt.Sprint("dynamic_update_slice at ", st), got, x.Shape, func(i []int64) []byte {
			if i[0] >= s0 && i[0] < s0+3 && i[1] >= s1 && i[1] < s1+2 {
				return mvElem(u, []int64{i[0] - s0, i[1] - s1})
			}
			return mvElem(x, i)
		})
	}
}

func TestIotaAndDynamicShapes(t *testing.T) {
	op := mvOp("stablehlo.dynamic_iota", []stablehlo.Type{mvT(dtype.BF16, stablehlo.Dynamic, 3)}, map[string]stablehlo.Attr{"iota_dimension": &stablehlo.IntAttr{Value: 0}})
	got := mvRun(t, nil, op, mvIdxList(4, 3))[0].(*literal.Literal)
	if !mvSameShape(got.Shape, []int64{4, 3}) {
		t.Fatalf("dynamic_iota shape %v", got.Shape)
	}
	for i := 0; i < got.Len(); i++ {
		if got.Float64(i) != float64(i/3) {
			t.Errorf("dynamic_iota[%d] = %v, want %d", i, got.Float64(i), i/3)
		}
	}

	rng := rand.New(rand.NewSource(4))
	x := mvRand(rng, dtype.I16, 1, 3)
	op = mvOp("stablehlo.dynamic_broadcast_in_dim", []stablehlo.Type{mvT(dtype.I16, stablehlo.Dynamic, stablehlo.Dynamic, 3)}, map[string]stablehlo.Attr{"broadcast_dimensions": mvI64s(1, 2)})
	got = mvRun(t, nil, op, x, mvIdxList(2, 4, 3))[0].(*literal.Literal)
	mvCheckAll(t, "dynamic_broadcast_in_dim", got, []int64{2, 4, 3}, func(i []int64) []byte { return mvElem(x, []int64{0, i[2]}) })

	op = mvOp("stablehlo.get_dimension_size", []stablehlo.Type{mvT(dtype.I32)}, map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: 1}})
	if n := mvRun(t, nil, op, got)[0].(*literal.Literal); n.DType != dtype.I32 || n.Int64(0) != 4 {
		t.Errorf("get_dimension_size = %v %d, want i32 4", n.DType, n.Int64(0))
	}
}

func TestMovementErrorsDoNotPanic(t *testing.T) {
	x, _ := literal.New(dtype.F32, []int64{2, 3})
	cases := []*stablehlo.Op{
		mvOp("stablehlo.transpose", []stablehlo.Type{mvT(dtype.F32, 3, 2)}, map[string]stablehlo.Attr{"permutation": mvI64s(0, 0)}),
		mvOp("stablehlo.broadcast_in_dim", []stablehlo.Type{mvT(dtype.F32, 4, 3)}, map[string]stablehlo.Attr{"broadcast_dimensions": mvI64s(0, 1)}),
		mvOp("stablehlo.slice", []stablehlo.Type{mvT(dtype.F32, 1, 3)}, map[string]stablehlo.Attr{"start_indices": mvI64s(0, 0), "limit_indices": mvI64s(3, 3)}),
		mvOp("stablehlo.reshape", []stablehlo.Type{mvT(dtype.F32, 7)}, nil),
		mvOp("stablehlo.reverse", []stablehlo.Type{mvT(dtype.F32, 2, 3)}, map[string]stablehlo.Attr{"dimensions": mvI64s(2)}),
		mvOp("stablehlo.concatenate", []stablehlo.Type{mvT(dtype.F32, 4, 3)}, map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: 5}}),
	}
	for _, op := range cases {
		if _, err := kernels[op.Name](nil, op, []Value{x}); err == nil {
			t.Errorf("%s: bad input accepted", op.Name)
		}
	}
	if _, err := kernels["stablehlo.get_tuple_element"](nil, mvOp("stablehlo.get_tuple_element", nil, map[string]stablehlo.Attr{"index": &stablehlo.IntAttr{Value: 2}}), []Value{Tuple{x}}); err == nil {
		t.Errorf("get_tuple_element: out-of-range index accepted")
	}
}

// mvEnv evaluates regions with the registered kernels: enough for the
// update and comparator regions of these tests.
type mvEnv struct{}

func (mvEnv) Context() context.Context { return context.Background() }
func (mvEnv) CallRegion(r *stablehlo.Region, args []Value) ([]Value, error) {
	blk := r.Entry()
	vals := map[*stablehlo.Value]Value{}
	for i, a := range blk.Args {
		vals[a] = args[i]
	}
	for _, op := range blk.Ops {
		in := make([]Value, len(op.Operands))
		for i, v := range op.Operands {
			in[i] = vals[v]
		}
		if op.Name == "stablehlo.return" {
			return in, nil
		}
		k := kernels[op.Name]
		if k == nil {
			return nil, fmt.Errorf("no kernel for %s", op.Name)
		}
		out, err := k(mvEnv{}, op, in)
		if err != nil {
			return nil, err
		}
		for i, v := range op.Results {
			vals[v] = out[i]
		}
	}
	return nil, fmt.Errorf("region without return")
}
func (mvEnv) CallFunc(string, []Value) ([]Value, error) { return nil, fmt.Errorf("no funcs") }
func (mvEnv) Replica() int                              { return 0 }
func (mvEnv) Partition() int                            { return 0 }
func (mvEnv) NumReplicas() int                          { return 1 }
func (mvEnv) NumPartitions() int                        { return 1 }
func (mvEnv) Collective(*stablehlo.Op, string, []int, Value) ([]Value, error) {
	return nil, fmt.Errorf("no collectives")
}

// Transposes large enough for the tiled copy, with ragged tile edges.
func TestTransposeTiled(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	for _, dt := range mvSizes {
		x := mvRand(rng, dt, 3, 37, 50)
		for _, perm := range [][]int64{{0, 2, 1}, {2, 1, 0}, {1, 2, 0}} {
			shape := []int64{x.Shape[perm[0]], x.Shape[perm[1]], x.Shape[perm[2]]}
			op := mvOp("stablehlo.transpose", []stablehlo.Type{mvT(dt, shape...)}, map[string]stablehlo.Attr{"permutation": mvI64s(perm...)})
			got := mvRun(t, nil, op, x)[0].(*literal.Literal)
			mvCheckAll(t, fmt.Sprint("transpose ", perm, " ", dt), got, shape, func(i []int64) []byte {
				src := make([]int64, 3)
				for r, p := range perm {
					src[p] = i[r]
				}
				return mvElem(x, src)
			})
		}
	}
}

func BenchmarkTranspose1024(b *testing.B) {
	x := mvRand(rand.New(rand.NewSource(1)), dtype.F32, 1024, 1024)
	op := mvOp("stablehlo.transpose", []stablehlo.Type{mvT(dtype.F32, 1024, 1024)}, map[string]stablehlo.Attr{"permutation": mvI64s(1, 0)})
	b.SetBytes(int64(len(x.Data)))
	for i := 0; i < b.N; i++ {
		if _, err := kTranspose(nil, op, []Value{x}); err != nil {
			b.Fatal(err)
		}
	}
}

// The dynamic and deprecated forms agree with the static ops they mirror.
func TestDynamicFormsMatchStaticOps(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	x := mvRand(rng, dtype.F64, 5, 7, 3)
	slice := mvOp("stablehlo.slice", []stablehlo.Type{mvT(dtype.F64, 2, 3, 1)}, map[string]stablehlo.Attr{
		"start_indices": mvI64s(1, 0, 2), "limit_indices": mvI64s(4, 7, 3), "strides": mvI64s(2, 3, 1)})
	want := mvRun(t, nil, slice, x)[0].(*literal.Literal)
	rds := mvOp("stablehlo.real_dynamic_slice", []stablehlo.Type{mvT(dtype.F64, stablehlo.Dynamic, 3, stablehlo.Dynamic)}, nil)
	got := mvRun(t, nil, rds, x, mvIdxList(1, 0, 2), mvIdxList(4, 7, 3), mvIdxList(2, 3, 1))[0].(*literal.Literal)
	if !mvSameShape(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
		t.Errorf("real_dynamic_slice gives %v, slice gives %v", got, want)
	}

	y := mvRand(rng, dtype.U8, 3, 2)
	bid := mvOp("stablehlo.broadcast_in_dim", []stablehlo.Type{mvT(dtype.U8, 4, 3, 2)}, map[string]stablehlo.Attr{"broadcast_dimensions": mvI64s(1, 2)})
	want = mvRun(t, nil, bid, y)[0].(*literal.Literal)
	b := mvOp("stablehlo.broadcast", []stablehlo.Type{mvT(dtype.U8, 4, 3, 2)}, map[string]stablehlo.Attr{"broadcast_sizes": mvI64s(4)})
	got = mvRun(t, nil, b, y)[0].(*literal.Literal)
	if !bytes.Equal(got.Data, want.Data) {
		t.Errorf("broadcast differs from broadcast_in_dim")
	}

	pv := mvRand(rng, dtype.F64)
	pad := mvOp("stablehlo.pad", []stablehlo.Type{mvT(dtype.F64, 5, 8, 3)}, map[string]stablehlo.Attr{
		"edge_padding_low": mvI64s(0, -1, 1), "edge_padding_high": mvI64s(0, 2, -3), "interior_padding": mvI64s(0, 0, 1)})
	want = mvRun(t, nil, pad, x, pv)[0].(*literal.Literal)
	dp := mvOp("stablehlo.dynamic_pad", []stablehlo.Type{mvT(dtype.F64, 5, stablehlo.Dynamic, 3)}, nil)
	got = mvRun(t, nil, dp, x, pv, mvIdxList(0, -1, 1), mvIdxList(0, 2, -3), mvIdxList(0, 0, 1))[0].(*literal.Literal)
	if !mvSameShape(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
		t.Errorf("dynamic_pad gives %v, pad gives %v", got, want)
	}

	sds := mvOp("stablehlo.set_dimension_size", []stablehlo.Type{mvT(dtype.F64, 5, stablehlo.Dynamic, 3)}, map[string]stablehlo.Attr{"dimension": &stablehlo.IntAttr{Value: 1}})
	got = mvRun(t, nil, sds, x, mvScalarOf(dtype.I32, 4))[0].(*literal.Literal)
	mvCheckAll(t, "set_dimension_size", got, []int64{5, 4, 3}, func(i []int64) []byte { return mvElem(x, i) })
}

// Copies past copyParMin are split over goroutines: along the outer dim,
// or along the tile dim of a 2-d transpose.
func TestLargeCopiesSplit(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	x := mvRand(rng, dtype.F32, 700, 500)
	op := mvOp("stablehlo.transpose", []stablehlo.Type{mvT(dtype.F32, 500, 700)}, map[string]stablehlo.Attr{"permutation": mvI64s(1, 0)})
	got := mvRun(t, nil, op, x)[0].(*literal.Literal)
	mvCheckAll(t, "large transpose", got, []int64{500, 700}, func(i []int64) []byte { return mvElem(x, []int64{i[1], i[0]}) })

	row := mvRand(rng, dtype.F32, 1000)
	op = mvOp("stablehlo.broadcast_in_dim", []stablehlo.Type{mvT(dtype.F32, 3, 400, 1000)}, map[string]stablehlo.Attr{"broadcast_dimensions": mvI64s(2)})
	got = mvRun(t, nil, op, row)[0].(*literal.Literal)
	mvCheckAll(t, "large broadcast", got, []int64{3, 400, 1000}, func(i []int64) []byte { return mvElem(row, i[2:]) })
	if copyWorkers(int64(len(got.Data))) < 2 && runtime.GOMAXPROCS(0) > 1 {
		t.Errorf("a %d-byte copy is not split", len(got.Data))
	}
}
