package stablehlo

import (
	"bufio"
	"math"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

func attrText(a Attr) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	p := &printer{w: w}
	p.attr(a, false)
	w.Flush()
	if p.err != nil {
		return "error: " + p.err.Error()
	}
	return b.String()
}

func lit(d dtype.DType, shape []int64, vals ...float64) *literal.Literal {
	l, _ := literal.New(d, shape)
	for i, v := range vals {
		l.SetFloat64(i, v)
	}
	return l
}

func TestPrintAttrs(t *testing.T) {
	nan32 := lit(dtype.F32, []int64{3}, math.NaN(), math.Inf(-1), 0.1)
	cases := []struct {
		a    Attr
		want string
	}{
		{&IntAttr{Value: 3}, "3 : i64"},
		{&IntAttr{Value: -1, Type: Elem(dtype.U8)}, "255 : ui8"},
		{&FloatAttr{Value: 1e-5, Type: Elem(dtype.F64)}, "1.0e-05 : f64"},
		{&FloatAttr{Value: math.NaN(), Type: Elem(dtype.F32)}, "0x7FC00000 : f32"},
		{&FloatAttr{Value: math.Inf(1)}, "0x7FF0000000000000 : f64"},
		{&FloatAttr{Value: 0.1, Type: Elem(dtype.F32)}, "1.0000000149011612e-01 : f32"}, // the f32 value it will hold
		{&FloatAttr{Value: 0.1, Type: Elem(dtype.BF16)}, "1.0009765625e-01 : bf16"},     // bf16 0x3DCD exactly
		{StringAttr("a\"b\\c\n\x01é"), `"a\"b\\c\n\01\C3\A9"`},
		{SymbolRefAttr("has-dash"), `@"has-dash"`},
		{UnitAttr{}, "unit"},
		{ArrayAttr{BoolAttr(true), &TypeAttr{Type: f32(2)}}, "[true, tensor<2xf32>]"},
		{I64s(), "array<i64>"},
		{&DenseArrayAttr{Elem: "i1", Ints: []int64{1, 0}}, "array<i1: true, false>"},
		{&DenseArrayAttr{Elem: "f32", Floats: []float64{0.5, math.Inf(1)}}, "array<f32: 5.0e-01, 0x7F800000>"},
		{&DenseAttr{Type: f32(3), Value: nan32}, "dense<[0x7FC00000, 0xFF800000, 1.0000000149011612e-01]> : tensor<3xf32>"},
		{&DenseAttr{Type: Tensor(dtype.F16, 0, 3), Value: lit(dtype.F16, []int64{0, 3})}, "dense<> : tensor<0x3xf16>"},
		{&DenseAttr{Type: Tensor(dtype.Bool, 2, 2), Value: lit(dtype.Bool, []int64{2, 2}, 1, 0, 0, 1)}, "dense<[[true, false], [false, true]]> : tensor<2x2xi1>"},
		{&DenseAttr{Type: Tensor(dtype.I4, 3), Value: lit(dtype.I4, []int64{3}, -8, 7, -1)}, "dense<[-8, 7, -1]> : tensor<3xi4>"},
		{&DenseAttr{Type: Tensor(dtype.C64, 2), Value: lit(dtype.C64, []int64{2}, 1, -2)}, "dense<[(1.0e+00, 0.0e+00), (-2.0e+00, 0.0e+00)]> : tensor<2xcomplex<f32>>"},
		{&DenseAttr{Type: Tensor(dtype.F8E4M3FN, 2, 2), Value: lit(dtype.F8E4M3FN, []int64{2, 2}, 1, 1, 1, 1)}, "dense<1.0e+00> : tensor<2x2xf8E4M3FN>"},
		{&DenseAttr{Type: Tensor(dtype.F8E4M3FN, 2), Value: lit(dtype.F8E4M3FN, []int64{2}, math.NaN(), -0.0)}, "dense<[0x7F, 0.0e+00]> : tensor<2xf8E4M3FN>"},
		{Enum("comparison_direction", "EQ"), "#stablehlo<comparison_direction EQ>"},
		{&EnumAttr{Dialect: "stablehlo", Kind: "result_accuracy_mode", Value: "DEFAULT"}, "#stablehlo.result_accuracy_mode<DEFAULT>"},
		{&StructAttr{Name: "stablehlo.channel_handle", Fields: []NamedAttr{{"handle", &IntAttr{Value: 1}}, {"type", &IntAttr{Value: 0}}}}, "#stablehlo.channel_handle<handle = 1, type = 0>"},
		{&GatherDims{IndexVectorDim: 0}, "#stablehlo.gather<index_vector_dim = 0>"},
		{&ScatterDims{InputBatchingDims: []int64{0}, IndexVectorDim: 2}, "#stablehlo.scatter<input_batching_dims = [0], index_vector_dim = 2>"},
		{&DotDims{}, "#stablehlo.dot<>"},
		{&ConvDims{InputBatchDim: 0, InputFeatureDim: 0, InputSpatialDims: []int64{1}}, "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0, input_spatial_dimensions = [1], kernel_input_feature_dimension = 0, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [], output_batch_dimension = 0, output_feature_dimension = 0, output_spatial_dimensions = []>"},
		{DictAttr{{"a", UnitAttr{}}, {"b c", BoolAttr(false)}}, `{a, "b c" = false}`},
		{&DenseAttr{Type: f32(2), Value: lit(dtype.F32, []int64{1}, 1)}, "error: stablehlo: print : dense attribute of type tensor<2xf32> holds 4 bytes"},
	}
	for _, c := range cases {
		if got := attrText(c.a); got != c.want {
			t.Errorf("%#v:\n got %s\nwant %s", c.a, got, c.want)
		}
	}
}

// Large constants print as hex; every hexable element type must read back
// bit for bit, as must a splat of each list-printed type.
func TestPrintDenseReadsBack(t *testing.T) {
	for _, d := range dtype.All() {
		if d == dtype.Index || d.Size() == 0 {
			continue
		}
		l, _ := literal.New(d, []int64{5, 7})
		for i := range l.Data {
			l.Data[i] = byte(i*37 + 11)
		}
		if d.Bits() < 8 || d == dtype.Bool { // keep sub-byte values in range
			for i := range l.Data {
				l.Data[i] &= 1<<uint(d.Bits()) - 1
			}
			if d.IsSigned() {
				for i := 0; i < l.Len(); i++ {
					l.SetInt64(i, l.Int64(i)<<(64-d.Bits())>>(64-d.Bits()))
				}
			}
		}
		a := &DenseAttr{Type: Tensor(d, 5, 7), Value: l}
		text := attrText(a)
		back, err := ParseAttr(text)
		if err != nil {
			t.Errorf("%v: %s does not parse: %v", d, text, err)
			continue
		}
		if !equalAttr(a, back) {
			t.Errorf("%v: %s reads back differently", d, text)
		}
		if hexable(d) != strings.Contains(text, `"0x`) {
			t.Errorf("%v: hex form %v, want %v", d, !hexable(d), hexable(d))
		}
	}
}

func TestPrintRejectsUndefinedValues(t *testing.T) {
	b := NewBuilder("")
	fb := b.NewFunc("main", f32(2))
	other := NewBuilder("").NewFunc("g", f32(2)).Arg(0) // a value of another function
	fb.block.Ops = append(fb.block.Ops, NewOp("stablehlo.negate", []*Value{other}, []Type{f32(2)}, nil))
	fb.Return(fb.block.Ops[0].Results[0])
	var sb strings.Builder
	err := Print(&sb, b.Module())
	if err == nil || !strings.Contains(err.Error(), "stablehlo.negate") || !strings.Contains(err.Error(), "@main") {
		t.Errorf("Print of a use of a foreign value: %v", err)
	}
	if s := b.Module().String(); !strings.HasPrefix(s, "// error:") {
		t.Errorf("String() = %q", s)
	}
	if got := PrintOp(fb.block.Ops[0]); got != `%0 = "stablehlo.negate"(%?) : (tensor<2xf32>) -> tensor<2xf32>` {
		t.Errorf("PrintOp = %s", got)
	}
}
