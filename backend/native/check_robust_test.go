package native

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The kernels of the interpreter, elementwise, convert, compare, control,
// check and collective families must turn bad input into errors, never
// panic: wrong operand counts and kinds, mismatched dtypes and shapes,
// missing attributes and regions.
var robustOps = []string{
	"interpreter.run_parallel", "interpreter.probe", "interpreter.print",
	"stablehlo.constant", "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
	"stablehlo.divide", "stablehlo.remainder", "stablehlo.power", "stablehlo.maximum",
	"stablehlo.minimum", "stablehlo.negate", "stablehlo.sign", "stablehlo.and", "stablehlo.or",
	"stablehlo.xor", "stablehlo.not", "stablehlo.shift_left", "stablehlo.shift_right_logical",
	"stablehlo.shift_right_arithmetic", "stablehlo.popcnt", "stablehlo.count_leading_zeros",
	"stablehlo.abs", "stablehlo.cbrt", "stablehlo.ceil", "stablehlo.floor",
	"stablehlo.round_nearest_afz", "stablehlo.round_nearest_even", "stablehlo.cosine",
	"stablehlo.sine", "stablehlo.tan", "stablehlo.tanh", "stablehlo.exponential",
	"stablehlo.exponential_minus_one", "stablehlo.log", "stablehlo.log_plus_one",
	"stablehlo.logistic", "stablehlo.sqrt", "stablehlo.rsqrt", "stablehlo.atan2",
	"stablehlo.is_finite", "stablehlo.real", "stablehlo.imag", "stablehlo.complex",
	"stablehlo.select", "stablehlo.clamp", "stablehlo.convert", "stablehlo.bitcast_convert",
	"stablehlo.reduce_precision", "stablehlo.compare", "func.call", "stablehlo.while",
	"stablehlo.if", "stablehlo.case", "stablehlo.map", "stablehlo.composite",
	"stablehlo.optimization_barrier", "stablehlo.custom_call", "stablehlo.async_start", "stablehlo.async_done", "check.expect_eq",
	"check.expect_eq_const", "check.expect_almost_eq", "check.expect_almost_eq_const",
	"check.expect_close", "check.expect_serialized_eq", "stablehlo.after_all",
	"stablehlo.create_token", "stablehlo.send", "stablehlo.recv", "stablehlo.infeed",
	"stablehlo.outfeed", "stablehlo.replica_id", "stablehlo.partition_id",
	"stablehlo.all_reduce", "stablehlo.collective_reduce", "stablehlo.reduce_scatter",
	"stablehlo.all_gather", "stablehlo.all_to_all", "stablehlo.collective_permute",
	"stablehlo.collective_broadcast",
}

func robustInputs() [][]Value {
	f32, _ := literal.New(dtype.F32, []int64{2, 3})
	i8, _ := literal.New(dtype.I8, []int64{3})
	c64, _ := literal.New(dtype.C64, []int64{})
	u4, _ := literal.New(dtype.U4, []int64{0})
	b, _ := literal.New(dtype.Bool, []int64{2})
	return [][]Value{
		nil,
		{Token{}},
		{Tuple{f32}},
		{f32, i8},
		{i8, i8, f32},
		{c64, c64},
		{u4},
		{b, f32, f32},
		{f32, f32, f32, f32},
		{nil},
	}
}

func robustOpsFor(name string) []*stablehlo.Op {
	ts := []stablehlo.Type{stablehlo.Tensor(dtype.F32, 2, 3), stablehlo.Tensor(dtype.I4, 7), stablehlo.TokenType{}}
	garbage := []stablehlo.NamedAttr{
		{Name: "value", Value: &stablehlo.DenseAttr{Type: stablehlo.Tensor(dtype.F32, 4), Value: &literal.Literal{DType: dtype.F32, Shape: []int64{1}, Data: make([]byte, 4)}}},
		{Name: "comparison_direction", Value: &stablehlo.EnumAttr{Value: "XX"}},
		{Name: "callee", Value: stablehlo.SymbolRefAttr("nowhere")},
		{Name: "programs", Value: stablehlo.ArrayAttr{stablehlo.ArrayAttr{stablehlo.SymbolRefAttr("nowhere")}}},
		{Name: "replica_groups", Value: &stablehlo.DenseAttr{Type: stablehlo.Tensor(dtype.I64, 1, 2), Value: &literal.Literal{DType: dtype.I64, Shape: []int64{2}, Data: make([]byte, 16)}}},
		{Name: "split_count", Value: &stablehlo.IntAttr{Value: 0}},
		{Name: "all_gather_dim", Value: &stablehlo.IntAttr{Value: 9}},
		{Name: "exponent_bits", Value: &stablehlo.IntAttr{Value: 70}},
		{Name: "mantissa_bits", Value: &stablehlo.IntAttr{Value: 70}},
		{Name: "call_target_name", Value: stablehlo.StringAttr("check.expect_close")},
		{Name: "probe_id", Value: stablehlo.StringAttr("p")},
	}
	empty := &stablehlo.Region{}
	return []*stablehlo.Op{
		stablehlo.NewOp(name, nil, nil, nil),
		stablehlo.NewOp(name, nil, ts[:1], nil),
		stablehlo.NewOp(name, nil, ts, garbage, empty, empty),
		stablehlo.NewOp(name, nil, ts[1:2], garbage),
	}
}

func TestKernelsRejectBadInput(t *testing.T) {
	p, _ := newProgram(&stablehlo.Module{})
	// recv without a sender waits for the context: keep it short.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	g := newGrid(ctx, 1, 1)
	defer g.cancel(nil)
	fr := &frame{proc: &process{prog: p, ctx: g.ctx, grid: g}, fn: &funcPlan{regions: map[*stablehlo.Region]*blockPlan{}}}
	for _, name := range robustOps {
		k, ok := kernels[name]
		if !ok {
			t.Errorf("no kernel for %s", name)
			continue
		}
		for oi, op := range robustOpsFor(name) {
			for ii, in := range robustInputs() {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s (op %d, inputs %d) panicked: %v", name, oi, ii, r)
						}
					}()
					out, err := k(fr, op, in)
					if err == nil {
						_ = checkResults(op, out)
					}
					_ = fmt.Sprint(err)
				}()
			}
		}
	}
}
