package stablehlo

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// denseI64 makes a dense i64 tensor attribute of the given shape.
func denseI64(vals []int64, shape ...int64) *DenseAttr {
	lit := &literal.Literal{DType: dtype.I64, Shape: append([]int64{}, shape...), Data: make([]byte, 8*len(vals))}
	for i, v := range vals {
		lit.SetInt64(i, v)
	}
	return &DenseAttr{Type: Tensor(dtype.I64, shape...), Value: lit}
}

// ints copies a list, empty rather than nil (as the parser makes them).
func ints(xs []int64) []int64 { return append([]int64{}, xs...) }

// CustomCall calls an implementation-defined target. attrs may carry
// backend_config, has_side_effect, api_version and others.
func (fb *FuncBuilder) CustomCall(target string, args []*Value, results []Type, attrs ...NamedAttr) []*Value {
	all := append([]NamedAttr{{"call_target_name", StringAttr(target)}}, attrs...)
	return fb.OpTyped("stablehlo.custom_call", args, results, all)
}

// RNG algorithms for RngBitGenerator.
const (
	RngDefault  = "DEFAULT"
	RngThreeFry = "THREE_FRY"
	RngPhilox   = "PHILOX"
)

// RngBitGenerator returns (new state, random bits of type bits) from state.
func (fb *FuncBuilder) RngBitGenerator(algorithm string, state *Value, bits *TensorType) (newState, out *Value) {
	st := tensorOf(state)
	if st == nil {
		fb.checkOperands("stablehlo.rng_bit_generator", []*Value{state})
		return nil, nil
	}
	rs := fb.OpTyped("stablehlo.rng_bit_generator", []*Value{state}, []Type{withElem(st, st.Elem), bits},
		[]NamedAttr{{"rng_algorithm", Enum("rng_algorithm", algorithm)}})
	return rs[0], rs[1]
}

// Rng draws UNIFORM(a, b) or NORMAL(mu, sigma) numbers of type result;
// shape is the 1-d shape operand.
func (fb *FuncBuilder) Rng(distribution string, a, b, shape *Value, result *TensorType) *Value {
	return fb.oneTyped("stablehlo.rng", []*Value{a, b, shape}, result,
		NamedAttr{"rng_distribution", Enum("rng_distribution", distribution)})
}

// OptimizationBarrier passes values through, blocking optimizations.
func (fb *FuncBuilder) OptimizationBarrier(xs ...*Value) []*Value {
	out := make([]*Value, len(xs))
	copy(out, fb.Op("stablehlo.optimization_barrier", xs, nil))
	return out
}

// AfterAll joins tokens.
func (fb *FuncBuilder) AfterAll(tokens ...*Value) *Value {
	return fb.one("stablehlo.after_all", tokens)
}
