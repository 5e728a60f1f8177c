package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

func init() {
	registerInfer(inferWhile, "stablehlo.while")
	registerInfer(inferIfCase, "stablehlo.if", "stablehlo.case")
	registerInfer(inferPassThrough, "stablehlo.optimization_barrier", "stablehlo.cross-replica-sum")
	registerInfer(inferCollective, "stablehlo.collective_permute", "stablehlo.collective_broadcast")
	registerInfer(inferTuple, "stablehlo.tuple")
	registerInfer(inferGetTupleElement, "stablehlo.get_tuple_element")
	registerInfer(inferToken, "stablehlo.after_all", "stablehlo.create_token")
	registerInfer(inferProcessID, "stablehlo.replica_id", "stablehlo.partition_id")
	registerInfer(inferNoResults, "stablehlo.return", "func.return")
	registerInfer(inferRngBitGenerator, "stablehlo.rng_bit_generator")
	registerInfer(inferQuantize, "stablehlo.uniform_quantize", "stablehlo.uniform_dequantize")
	registerInfer(givenOnly, "stablehlo.custom_call", "func.call", "stablehlo.rng", "stablehlo.composite", "stablehlo.infeed", "stablehlo.outfeed",
		"stablehlo.send", "stablehlo.recv", "stablehlo.all_gather", "stablehlo.all_to_all",
		"stablehlo.reduce_scatter", "stablehlo.collective_reduce", "stablehlo.async_start",
		"stablehlo.async_done", "stablehlo.einsum", "stablehlo.unary_einsum", "stablehlo.torch_index_select",
		"chlo.top_k", "chlo.scan")
}

func inferWhile(op *Op) ([]Type, error) {
	ops := make([]Type, len(op.Operands))
	for i, v := range op.Operands {
		ops[i] = v.Type
	}
	if len(op.Regions) != 2 {
		return nil, fmt.Errorf("has %d regions, want cond and body", len(op.Regions))
	}
	if err := checkBlockArgs(op, 0, ops); err != nil {
		return nil, fmt.Errorf("cond: %w", err)
	}
	if err := checkBlockArgs(op, 1, ops); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	c, err := regionReturns(op, 0)
	if err != nil {
		return nil, fmt.Errorf("cond: %w", err)
	}
	if len(c) != 1 || AsTensor(c[0]) == nil || AsTensor(c[0]).DType() != dtype.Bool || AsTensor(c[0]).Rank() != 0 {
		return nil, fmt.Errorf("cond must return one tensor<i1>, returns %v", c)
	}
	b, err := regionReturns(op, 1)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if err := matchTypes("body returns", b, ops); err != nil {
		return nil, err
	}
	return ops, nil
}

// matchTypes checks that got agrees with want, one by one.
func matchTypes(what string, got, want []Type) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !TypesCompatible(got[i], want[i]) {
			return fmt.Errorf("%s %v at %d, want %v", what, got[i], i, want[i])
		}
	}
	return nil
}

func inferIfCase(op *Op) ([]Type, error) {
	p, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	want := dtype.Bool
	if op.Name == "stablehlo.case" {
		want = dtype.I32
	}
	if p.Rank() != 0 || p.DType() != want {
		return nil, fmt.Errorf("selector %v, want tensor<%v>", p, want)
	}
	if len(op.Regions) == 0 || (op.Name == "stablehlo.if" && len(op.Regions) != 2) {
		return nil, fmt.Errorf("has %d branches", len(op.Regions))
	}
	var first []Type
	for i := range op.Regions {
		if err := checkBlockArgs(op, i, nil); err != nil {
			return nil, err
		}
		rets, err := regionReturns(op, i)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = rets
			continue
		}
		if err := matchTypes(fmt.Sprintf("branch %d returns", i), rets, first); err != nil {
			return nil, err
		}
	}
	// Branches may differ in static dims; a declared type settles them.
	if given, err := givenTypes(op); err == nil && len(given) == len(first) {
		return given, nil
	}
	return first, nil
}

func inferPassThrough(op *Op) ([]Type, error) { return inferPassThroughTypes(op), nil }

// inferCollective: results have the operands' types, except for a trailing
// root operand when has_dynamic_root is set.
func inferCollective(op *Op) ([]Type, error) {
	n := len(op.Operands)
	if op.Attr("has_dynamic_root") != nil {
		n--
	}
	if n <= 0 {
		return nil, fmt.Errorf("has no data operands")
	}
	return inferPassThroughTypes(op)[:n], nil
}

// inferQuantize: the result type is declared (its quantization parameters
// are not implied) and keeps the operand's shape.
func inferQuantize(op *Op) ([]Type, error) {
	t, r, err := soleOperandAndResult(op)
	if err != nil {
		return nil, err
	}
	if !shapesCompatible(t.Shape, r.Shape) {
		return nil, fmt.Errorf("result shape %v differs from operand shape %v", r.Shape, t.Shape)
	}
	if op.Name == "stablehlo.uniform_dequantize" && t.Elem.Quant == nil {
		return nil, fmt.Errorf("operand %v is not quantized", t)
	}
	if op.Name == "stablehlo.uniform_quantize" && r.Elem.Quant == nil {
		return nil, fmt.Errorf("result %v is not quantized", r)
	}
	return []Type{r}, nil
}

func inferTuple(op *Op) ([]Type, error) {
	return []Type{&TupleType{Elems: inferPassThroughTypes(op)}}, nil
}

func inferPassThroughTypes(op *Op) []Type {
	out := make([]Type, len(op.Operands))
	for i, v := range op.Operands {
		out[i] = v.Type
	}
	return out
}

func inferGetTupleElement(op *Op) ([]Type, error) {
	if err := wantOperands(op, 1); err != nil {
		return nil, err
	}
	t, ok := op.Operands[0].Type.(*TupleType)
	if !ok {
		return nil, fmt.Errorf("operand has type %v, want a tuple", op.Operands[0].Type)
	}
	i, err := intAttr(op, "index")
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(t.Elems)) {
		return nil, fmt.Errorf("index %d out of range for %v", i, t)
	}
	return []Type{t.Elems[i]}, nil
}

func inferToken(op *Op) ([]Type, error) {
	for i, v := range op.Operands {
		if _, ok := v.Type.(TokenType); !ok {
			return nil, fmt.Errorf("operand %d has type %v, want !stablehlo.token", i, v.Type)
		}
	}
	return []Type{TokenType{}}, nil
}

func inferProcessID(op *Op) ([]Type, error) {
	if err := wantOperands(op, 0); err != nil {
		return nil, err
	}
	return []Type{scalarOf(Elem(dtype.U32))}, nil
}

func inferNoResults(op *Op) ([]Type, error) { return []Type{}, nil }

func inferRngBitGenerator(op *Op) ([]Type, error) {
	s, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	given, err := givenTypes(op)
	if err != nil {
		return nil, err
	}
	if len(given) != 2 {
		return nil, fmt.Errorf("has %d results, want the new state and the bits", len(given))
	}
	if !TypesCompatible(s, given[0]) {
		return nil, fmt.Errorf("output state %v differs from the initial state %v", given[0], s)
	}
	return given, nil
}
