package aten

import (
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Bad arguments to the backward and fft ops give errors, never panics.
func TestBackwardBadInputs(t *testing.T) {
	ten := func(dt dtype.DType, shape ...int64) Value {
		return TensorValue(&stablehlo.Value{Type: stablehlo.Tensor(dt, shape...)})
	}
	f32 := func(shape ...int64) Value { return ten(dtype.F32, shape...) }
	ints := func(xs ...int64) Value { return IntsValue(xs) }
	bools := func(xs ...bool) Value {
		items := make([]Value, len(xs))
		for i, x := range xs {
			items[i] = BoolValue(x)
		}
		return ListValue(items...)
	}
	all := bools(true, true, true)
	cases := []struct {
		name string
		op   string
		args []Value
	}{
		{"conv grad rank", "aten::convolution_backward", []Value{f32(1, 4, 3), f32(1, 2, 5, 5), f32(4, 2, 3, 3), ints(4), ints(1, 1), ints(0, 0), ints(1, 1), BoolValue(false), ints(0, 0), IntValue(1), all}},
		{"conv groups 0", "aten::convolution_backward", []Value{f32(1, 4, 3, 3), f32(1, 2, 5, 5), f32(4, 2, 3, 3), None(), ints(1, 1), ints(0, 0), ints(1, 1), BoolValue(false), ints(0, 0), IntValue(0), all}},
		{"conv dtypes", "aten::convolution_backward", []Value{ten(dtype.F64, 1, 4, 3, 3), f32(1, 2, 5, 5), f32(4, 2, 3, 3), None(), ints(1, 1), ints(0, 0), ints(1, 1), BoolValue(false), ints(0, 0), IntValue(1), all}},
		{"conv mask", "aten::convolution_backward", []Value{f32(1, 4, 3, 3), f32(1, 2, 5, 5), f32(4, 2, 3, 3), None(), ints(1, 1), ints(0, 0), ints(1, 1), BoolValue(false), ints(0, 0), IntValue(1), bools(true)}},
		{"maxpool grad shape", "aten::max_pool2d_with_indices_backward", []Value{f32(1, 2, 4, 4), f32(1, 2, 6, 6), ints(2, 2), ints(2, 2), ints(0, 0), ints(1, 1), BoolValue(false), ten(dtype.I64, 1, 2, 3, 3)}},
		{"maxpool int32 indices", "aten::max_pool2d_with_indices_backward", []Value{f32(1, 2, 3, 3), f32(1, 2, 6, 6), ints(2, 2), ints(2, 2), ints(0, 0), ints(1, 1), BoolValue(false), ten(dtype.I32, 1, 2, 3, 3)}},
		{"avgpool divisor 0", "aten::avg_pool2d_backward", []Value{f32(1, 2, 3, 3), f32(1, 2, 6, 6), ints(2, 2), ints(2, 2), ints(0, 0), BoolValue(false), BoolValue(true), IntValue(0)}},
		{"avgpool int", "aten::avg_pool2d_backward", []Value{ten(dtype.I64, 1, 2, 3, 3), ten(dtype.I64, 1, 2, 6, 6), ints(2, 2), ints(2, 2), ints(0, 0), BoolValue(false), BoolValue(true), None()}},
		{"avgpool huge pad", "aten::avg_pool2d_backward", []Value{f32(1, 2, 3, 3), f32(1, 2, 6, 6), ints(2, 2), ints(2, 2), ints(5, 5), BoolValue(false), BoolValue(true), None()}},
		{"adaptive rank", "aten::_adaptive_avg_pool2d_backward", []Value{f32(2, 2), f32(4, 4)}},
		{"adaptive lead", "aten::_adaptive_avg_pool2d_backward", []Value{f32(1, 3, 2, 2), f32(1, 2, 4, 4)}},
		{"embedding float idx", "aten::embedding_dense_backward", []Value{f32(4, 3), f32(4), IntValue(5), IntValue(-1), BoolValue(false)}},
		{"embedding shapes", "aten::embedding_dense_backward", []Value{f32(5, 3), ten(dtype.I64, 4), IntValue(5), IntValue(-1), BoolValue(false)}},
		{"embedding negative num", "aten::embedding_dense_backward", []Value{f32(4, 3), ten(dtype.I64, 4), IntValue(-2), IntValue(-1), BoolValue(false)}},
		{"layer norm shape", "aten::native_layer_norm_backward", []Value{f32(2, 3), f32(2, 3), ints(4), f32(2, 1), f32(2, 1), None(), None(), all}},
		{"layer norm stats", "aten::native_layer_norm_backward", []Value{f32(2, 3), f32(2, 3), ints(3), f32(5, 1), f32(2, 1), None(), None(), all}},
		{"group norm groups", "aten::native_group_norm_backward", []Value{f32(2, 6, 4), f32(2, 6, 4), f32(2, 4), f32(2, 4), None(), IntValue(2), IntValue(6), IntValue(4), IntValue(4), all}},
		{"group norm sizes", "aten::native_group_norm_backward", []Value{f32(2, 6, 4), f32(2, 6, 4), f32(2, 3), f32(2, 3), None(), IntValue(2), IntValue(6), IntValue(5), IntValue(3), all}},
		{"r2c int", "aten::_fft_r2c", []Value{ten(dtype.I64, 8), ints(0), IntValue(0), BoolValue(true)}},
		{"r2c dims", "aten::_fft_r2c", []Value{f32(4, 8), ints(1, 1), IntValue(0), BoolValue(true)}},
		{"r2c no dims", "aten::_fft_r2c", []Value{f32(4, 8), ints(), IntValue(0), BoolValue(true)}},
		{"r2c norm", "aten::_fft_r2c", []Value{f32(4, 8), ints(1), IntValue(7), BoolValue(true)}},
		{"c2r real", "aten::_fft_c2r", []Value{f32(4, 5), ints(1), IntValue(0), IntValue(8)}},
		{"c2r size", "aten::_fft_c2r", []Value{ten(dtype.C64, 4, 5), ints(1), IntValue(0), IntValue(0)}},
		{"c2r dim", "aten::_fft_c2r", []Value{ten(dtype.C64, 4, 5), ints(2), IntValue(0), IntValue(8)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked: %v", tc.op, r)
				}
			}()
			c := NewLowerCtx(&stablehlo.Block{})
			if _, err := c.Call(tc.op, tc.args, nil); err == nil {
				t.Errorf("%s accepted bad arguments", tc.op)
			}
		})
	}
}

// MutationResults maps mutated arguments to the results holding their new
// values: the aliased return, else extra results after the returns.
func TestMutationResults(t *testing.T) {
	for _, tc := range []struct {
		op   string
		want []int
		n    int
	}{
		{"aten::_native_batch_norm_legit", []int{3, 4}, 5},
		{"aten::resize_", []int{0}, 1},
		{"aten::native_batch_norm", nil, 3},
	} {
		s, ok := SchemaFor(tc.op)
		if !ok {
			t.Fatalf("no schema for %s", tc.op)
		}
		got := s.MutationResults()
		if len(got) != len(tc.want) || s.NumResults() != tc.n {
			t.Errorf("%s: MutationResults %v NumResults %d, want %v and %d", tc.op, got, s.NumResults(), tc.want, tc.n)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: MutationResults %v, want %v", tc.op, got, tc.want)
			}
		}
	}
}
