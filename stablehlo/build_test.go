package stablehlo

import (
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

func f32(shape ...int64) *TensorType { return Tensor(dtype.F32, shape...) }

func TestBuildElementwiseGolden(t *testing.T) {
	b := NewBuilder("jit_f")
	fb := b.NewFunc("main", f32(2, 3), f32(3))
	x, y := fb.Arg(0), fb.Arg(1)
	yb := fb.BroadcastInDim(y, []int64{2, 3}, []int64{1})
	s := fb.Add(x, fb.Exp(yb))
	c := fb.Compare(GT, s, fb.Full(dtype.F32, []int64{2, 3}, 0), CompareFloat)
	r := fb.Select(c, s, fb.Neg(s))
	fb.Return(r)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := `module @jit_f {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.exponential"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "stablehlo.add"(%arg0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "stablehlo.constant"() {value = dense<0.0e+00> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
    %4 = "stablehlo.compare"(%2, %3) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %5 = "stablehlo.negate"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.select"(%4, %2, %5) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%6) : (tensor<2x3xf32>) -> ()
  }
}
`
	if got := m.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestBuildErrorIsRecordedOnce(t *testing.T) {
	b := NewBuilder("")
	fb := b.NewFunc("main", f32(2), f32(3))
	bad := fb.Add(fb.Arg(0), fb.Arg(1)) // shapes differ: no implicit broadcast
	if bad != nil {
		t.Fatalf("Add of mismatched shapes returned a value")
	}
	// Later ops on the nil value neither panic nor replace the first error.
	z := fb.Mul(bad, fb.Arg(0))
	rs := fb.Reduce([]*Value{z}, []*Value{fb.Scalar(dtype.F32, 0)}, []int64{0}, Combiner("add"))
	if len(rs) != 1 || rs[0] != nil {
		t.Fatalf("Reduce after an error returned %v", rs)
	}
	fb.Return(rs[0])
	_, err := b.Build()
	if err == nil {
		t.Fatal("Build succeeded after a bad op")
	}
	for _, want := range []string{"stablehlo.add", "tensor<2xf32>", "tensor<3xf32>"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestBuildLocInErrors(t *testing.T) {
	b := NewBuilder("")
	fb := b.NewFunc("main", f32(2, 3))
	fb.SetLoc(Loc{File: "model.py", Line: 7, Col: 5})
	y := fb.Exp(fb.Arg(0))
	if y.Def.Loc.Line != 7 {
		t.Errorf("op location %v, want model.py:7:5", y.Def.Loc)
	}
	fb.DotGeneral(y, y, DotDims{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}})
	err := b.Err()
	if err == nil || !strings.Contains(err.Error(), "model.py:7:5: stablehlo.dot_general") || !strings.Contains(err.Error(), "size 3") {
		t.Errorf("error %v does not name the location, op and sizes", err)
	}
}

func TestBuildStaticOnlyOps(t *testing.T) {
	b := NewBuilder("")
	fb := b.NewFunc("main", f32(3))
	if v := fb.BroadcastInDim(fb.Arg(0), []int64{Dynamic, 3}, []int64{1}); v != nil || b.Err() == nil ||
		!strings.Contains(b.Err().Error(), "dynamic_broadcast_in_dim") {
		t.Errorf("broadcast_in_dim to a dynamic shape: %v, %v", v, b.Err())
	}
}

func TestBuildShapeInference(t *testing.T) {
	b := NewBuilder("")
	fb := b.NewFunc("main", f32(4, 3, 8, 8), f32(16, 3, 3, 3), Tensor(dtype.I64, 5, 1), f32(2, Dynamic))
	x, w, idx, dyn := fb.Arg(0), fb.Arg(1), fb.Arg(2), fb.Arg(3)
	cases := []struct {
		name string
		v    *Value
		want string
	}{
		{"transpose", fb.Transpose(x, 0, 2, 3, 1), "tensor<4x8x8x3xf32>"},
		{"slice", fb.Slice(x, []int64{0, 0, 1, 0}, []int64{4, 3, 8, 8}, []int64{1, 1, 2, 3}), "tensor<4x3x4x3xf32>"},
		{"pad", fb.Pad(x, fb.Scalar(dtype.F32, 0), []int64{0, 0, 1, -1}, []int64{0, 0, 1, 0}, []int64{0, 0, 1, 0}), "tensor<4x3x17x7xf32>"},
		{"concat", fb.Concatenate(1, x, x), "tensor<4x6x8x8xf32>"},
		{"dot", fb.DotGeneral(x, w, DotDims{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{1}}, PrecisionHighest, PrecisionHighest), "tensor<4x8x8x16x3x3xf32>"},
		{"conv", fb.Convolution(x, w, ConvConfig{
			Dims: ConvDims{InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: []int64{2, 3},
				KernelOutputFeatureDim: 0, KernelInputFeatureDim: 1, KernelSpatialDims: []int64{2, 3},
				OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: []int64{2, 3}},
			Strides: []int64{2, 2}, Padding: [][2]int64{{1, 1}, {1, 1}}}), "tensor<4x16x4x4xf32>"},
		{"reduce", fb.ReduceWith(x, fb.Scalar(dtype.F32, 0), []int64{1, 3}, "add"), "tensor<4x8xf32>"},
		{"pool", fb.ReduceWindow([]*Value{x}, []*Value{fb.Scalar(dtype.F32, 0)}, Window{Dimensions: []int64{1, 1, 2, 2}, Strides: []int64{1, 1, 2, 2}}, Combiner("maximum"))[0], "tensor<4x3x4x4xf32>"},
		{"gather", fb.Gather(w, idx, GatherDims{OffsetDims: []int64{1, 2, 3}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}, []int64{1, 3, 3, 3}, false), "tensor<5x3x3x3xf32>"},
		{"dynamic", fb.Exp(dyn), "tensor<2x?xf32>"},
		{"dimsize", fb.GetDimensionSize(dyn, 1), "tensor<i32>"},
		{"convert", fb.Convert(x, dtype.BF16), "tensor<4x3x8x8xbf16>"},
		{"bitcast", fb.BitcastConvert(x, dtype.U8), "tensor<4x3x8x8x4xui8>"},
	}
	if err := fb.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := c.v.Type.String(); got != c.want {
			t.Errorf("%s: type %s, want %s", c.name, got, c.want)
		}
	}
}

func TestBuildRegionsVerify(t *testing.T) {
	b := NewBuilder("")
	i64 := Tensor(dtype.I64)
	fb := b.NewFunc("main", f32(2, 5))
	x := fb.Arg(0)
	iota := fb.Iota(Tensor(dtype.I32, 2, 5), 1)
	sorted := fb.Sort([]*Value{x, iota}, 1, true, func(rb *FuncBuilder, a []*Value) []*Value {
		return []*Value{rb.Compare(LT, a[0], a[1], CompareTotalOrder)}
	})
	loop := fb.While([]*Value{fb.ScalarInt(dtype.I64, 0), sorted[0]},
		func(rb *FuncBuilder, a []*Value) []*Value {
			return []*Value{rb.Compare(LT, a[0], rb.ScalarInt(dtype.I64, 3), CompareSigned)}
		},
		func(rb *FuncBuilder, a []*Value) []*Value {
			return []*Value{rb.Add(a[0], rb.ScalarInt(dtype.I64, 1)), rb.Mul(a[1], a[1])}
		})
	pred := fb.Compare(EQ, loop[0], fb.ScalarInt(dtype.I64, 3), "")
	r := fb.If(pred, 1,
		func(rb *FuncBuilder, _ []*Value) []*Value { return []*Value{loop[1]} },
		func(rb *FuncBuilder, _ []*Value) []*Value { return []*Value{x} })
	h := b.NewFunc("helper", i64)
	h.SetVisibility("private")
	h.Return(h.Add(h.Arg(0), h.Arg(0)))
	c := fb.Call("helper", []*Value{loop[0]})
	fb.Return(r[0], sorted[1], c[0])
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	text := m.String()
	for _, want := range []string{`"stablehlo.sort"(%arg0, %0) ({`, "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):",
		`"stablehlo.while"`, `"stablehlo.if"`, `{callee = @helper}`, `func.func private @helper(%arg0: tensor<i64>) -> tensor<i64>`} {
		if !strings.Contains(text, want) {
			t.Errorf("printed module lacks %q:\n%s", want, text)
		}
	}
}
