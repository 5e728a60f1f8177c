package stablehlo

import (
	"reflect"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

func TestParseTypes(t *testing.T) {
	tt := func(s string) *TensorType {
		t.Helper()
		ty, err := ParseType(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		x, ok := ty.(*TensorType)
		if !ok {
			t.Fatalf("%s: got %T", s, ty)
		}
		return x
	}
	if x := tt("tensor<2x?x3xf32>"); !reflect.DeepEqual(x.Shape, []int64{2, Dynamic, 3}) || x.DType() != dtype.F32 {
		t.Errorf("dynamic: %v", x)
	}
	if x := tt("tensor<f32>"); x.Rank() != 0 {
		t.Errorf("scalar rank %d", x.Rank())
	}
	if x := tt("tensor<?x3xf32, #stablehlo.bounds<16, ?>>"); !reflect.DeepEqual(x.Bounds, []int64{16, Dynamic}) {
		t.Errorf("bounds %v", x.Bounds)
	}
	if x := tt("tensor<?xi32, #stablehlo.type_extensions<bounds = [8]>>"); !reflect.DeepEqual(x.Bounds, []int64{8}) {
		t.Errorf("type_extensions bounds %v", x.Bounds)
	}
	for s, d := range map[string]dtype.DType{
		"tensor<4xcomplex<f64>>": dtype.C128, "tensor<i1>": dtype.Bool, "tensor<i2>": dtype.I2,
		"tensor<ui4>": dtype.U4, "tensor<f8E4M3FN>": dtype.F8E4M3FN, "tensor<f4E2M1FN>": dtype.F4E2M1FN,
		"tensor<f6E3M2FN>": dtype.F6E3M2FN, "tensor<bf16>": dtype.BF16, "tensor<2xindex>": dtype.Index,
	} {
		if x := tt(s); x.DType() != d {
			t.Errorf("%s: dtype %v", s, x.DType())
		}
	}
	q := tt("tensor<2x!quant.uniform<i8:f32, 0.5:-3>>").Elem.Quant
	if q == nil || q.Storage != dtype.I8 || q.Expressed != dtype.F32 || q.Axis != -1 || q.Scales[0] != 0.5 || q.ZeroPoints[0] != -3 || q.StorageMin != -128 || q.HasRange {
		t.Errorf("per-tensor quant %+v", q)
	}
	q = tt("tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.1:2, 0.2:3, 0.3}>>").Elem.Quant
	if q == nil || !q.HasRange || q.StorageMin != -127 || q.Axis != 1 || !reflect.DeepEqual(q.Scales, []float64{0.1, 0.2, 0.3}) || !reflect.DeepEqual(q.ZeroPoints, []int64{2, 3, 0}) {
		t.Errorf("per-axis quant %+v", q)
	}
	ty, err := ParseType("(tensor<f32>, tuple<tensor<i32>, !stablehlo.token>) -> (tensor<f32>, !stablehlo.token)")
	if err != nil {
		t.Fatal(err)
	}
	ft := ty.(*FuncType)
	tu, ok := ft.Inputs[1].(*TupleType)
	if len(ft.Inputs) != 2 || len(ft.Results) != 2 || !ok || len(tu.Elems) != 2 || ft.Results[1] != (TokenType{}) {
		t.Errorf("function type %v", ft)
	}
	if ty, err := ParseType("!stablehlo.future<tensor<f32>>"); err != nil || ty.String() != "!stablehlo.future<tensor<f32>>" {
		t.Errorf("opaque type %v %v", ty, err)
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, s := range []string{
		"tensor<*xf32>", "tensor<2xfoo>", "tensor<2x3>", "tensor<2xf32", "tensor<99999999999999999999xf32>",
		"tensor<4294967296x4294967296xf32>", "tensor<2xf32, #stablehlo.bounds<1, 2>>", "complex<i32>",
		"tensor<!quant.uniform<f32:f32, 1.0>>", "tensor<!quant.uniform<i8:f32:-1, {1.0}>>", "tuple<f32",
		"tensor<2xf32> extra", "!undefined_alias", "", "(tensor<f32>",
	} {
		if ty, err := ParseType(s); err == nil {
			t.Errorf("%q: no error, got %v", s, ty)
		}
	}
}
