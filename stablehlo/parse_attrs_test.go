package stablehlo

import (
	"math"
	"reflect"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

// TestParseAttrs checks each attribute kind the parser produces.
func TestParseAttrs(t *testing.T) {
	cases := []struct {
		text string
		want Attr
	}{
		{`"a\"b\\c\0Ad"`, StringAttr("a\"b\\c\nd")},
		{`"plain"`, StringAttr("plain")},
		{"1 : i32", &IntAttr{Value: 1, Type: Elem(dtype.I32)}},
		{"-3 : i64", &IntAttr{Value: -3}},
		{"7", &IntAttr{Value: 7}},
		{"4294967295 : ui32", &IntAttr{Value: 4294967295, Type: Elem(dtype.U32)}},
		{"0xFF : i8", &IntAttr{Value: -1, Type: Elem(dtype.I8)}},
		{"1.5 : f32", &FloatAttr{Value: 1.5, Type: Elem(dtype.F32)}},
		{"1.0e-05 : f64", &FloatAttr{Value: 1e-05}},
		{"2 : f16", &FloatAttr{Value: 2, Type: Elem(dtype.F16)}},
		{"true", BoolAttr(true)},
		{"unit", UnitAttr{}},
		{"@f", SymbolRefAttr("f")},
		{"@m::@f", SymbolRefAttr("m::@f")},
		{"[1, \"x\", [true]]", ArrayAttr{&IntAttr{Value: 1}, StringAttr("x"), ArrayAttr{BoolAttr(true)}}},
		{"{b = 1, a}", DictAttr{{Name: "a", Value: UnitAttr{}}, {Name: "b", Value: &IntAttr{Value: 1}}}},
		{"array<i64: 1, -2>", &DenseArrayAttr{Elem: "i64", Ints: []int64{1, -2}}},
		{"array<i64>", &DenseArrayAttr{Elem: "i64", Ints: []int64{}}},
		{"array<i1: true, false>", &DenseArrayAttr{Elem: "i1", Ints: []int64{1, 0}}},
		{"array<f32: 0.5>", &DenseArrayAttr{Elem: "f32", Floats: []float64{0.5}}},
		{"#stablehlo<comparison_direction EQ>", &EnumAttr{"stablehlo", "comparison_direction", "EQ"}},
		{"#stablehlo.precision<HIGH>", &EnumAttr{"stablehlo", "precision", "HIGH"}},
		{"#chlo<comparison_type TOTALORDER>", &EnumAttr{"chlo", "comparison_type", "TOTALORDER"}},
		{"#stablehlo.channel_handle<handle = 1, type = 0>", &StructAttr{Name: "stablehlo.channel_handle",
			Fields: []NamedAttr{{Name: "handle", Value: &IntAttr{Value: 1}}, {Name: "type", Value: &IntAttr{Value: 0}}}}},
		{`#mhlo.sharding<"{replicated}">`, &OpaqueAttr{Text: `#mhlo.sharding<"{replicated}">`}},
		{"affine_map<(d0) -> (d0)>", &OpaqueAttr{Text: "affine_map<(d0) -> (d0)>"}},
		{"tensor<2xf32>", &TypeAttr{Type: Tensor(dtype.F32, 2)}},
		{"i32", &TypeAttr{Type: Elem(dtype.I32)}},
		{"#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>",
			&GatherDims{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, OperandBatchingDims: []int64{},
				StartIndicesBatchingDims: []int64{}, StartIndexMap: []int64{0}, IndexVectorDim: 1}},
		{"#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], input_batching_dims = [2], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>",
			&ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0}, InputBatchingDims: []int64{2},
				ScatterIndicesBatchingDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}},
		{"#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>", &ConvDims{InputBatchDim: 0, InputFeatureDim: 3,
			InputSpatialDims: []int64{1, 2}, KernelInputFeatureDim: 2, KernelOutputFeatureDim: 3, KernelSpatialDims: []int64{0, 1},
			OutputBatchDim: 0, OutputFeatureDim: 3, OutputSpatialDims: []int64{1, 2}}},
	}
	for _, c := range cases {
		got, err := ParseAttr(c.text)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got  %#v\n want %#v", c.text, got, c.want)
		}
	}
	nan, err := ParseAttr("0x7FC00000 : f32")
	if err != nil || !math.IsNaN(nan.(*FloatAttr).Value) {
		t.Errorf("hex float attribute: %v %v", nan, err)
	}
}

func TestParseAttrErrors(t *testing.T) {
	for _, s := range []string{
		"bogus", "[1, 2", "{a = }", "array<i7: 1>", "array<i1: 2>", "array<i64: 1.5>", `"unterminated`,
		`"bad \q escape"`, "#undefined", "#stablehlo.conv<[b, 0, f]x[0, i]->[b, 0, f]>",
		"#stablehlo.conv<[b, 1, f]x[0, i, o]->[b, 0, f]>", "#stablehlo.gather<bogus = [1]>", "1.5 : i32",
		"99999999999999999999", "@", "dense<[1]> : i32",
	} {
		if a, err := ParseAttr(s); err == nil {
			t.Errorf("%q: no error, got %#v", s, a)
		}
	}
}
