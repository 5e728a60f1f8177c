package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// evalQuantized evaluates an op whose operands or results have quantized
// element types (other than the quantize/dequantize ops themselves), as
// StableHLO's quant-to-math lowering defines it:
//   - maximum, minimum, select, pad, reduce_window and the like work on the
//     stored integers directly (their kernels see the storage types);
//   - add of per-tensor operands requantizes both to the result type and
//     adds the integers (quant_add.go);
//   - dot, dot_general and convolution of quantized operands into a
//     quantized result accumulate the integers exactly (quant_dot.go);
//   - every other op dequantizes its operands, runs the float kernel on
//     the expressed types and quantizes the results.
func evalQuantized(env Env, op *stablehlo.Op, in []Value, k Kernel) ([]Value, error) {
	switch op.Name {
	case "stablehlo.select", "stablehlo.pad", "stablehlo.reduce_window", "stablehlo.dynamic_pad", "stablehlo.sort":
		return k(env, op, in)
	case "stablehlo.maximum", "stablehlo.minimum":
		if sameQuantTypes(op) {
			return k(env, op, in)
		}
	case "stablehlo.add":
		if out, ok, err := quantAdd(op, in); ok || err != nil {
			return out, err
		}
	case "stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution":
		if out, ok, err := quantDotLike(env, op, in, k); ok || err != nil {
			return out, err
		}
	}
	if len(op.Regions) > 0 {
		return nil, fmt.Errorf("%s with a region on quantized types: %w", op.Name, backend.ErrNotImplemented)
	}
	return quantViaFloat(env, op, in, k)
}

// quantViaFloat is dequantize → float op → quantize.
func quantViaFloat(env Env, op *stablehlo.Op, in []Value, k Kernel) ([]Value, error) {
	sh := shadowOp(op, func(t *stablehlo.TensorType) stablehlo.ElemType {
		return stablehlo.Elem(t.Elem.Quant.Expressed)
	})
	fin := make([]Value, len(in))
	for i, v := range in {
		fin[i] = v
		if i >= len(op.Operands) {
			continue
		}
		q := quantOfType(op.Operands[i].Type)
		if q == nil {
			continue
		}
		l, ok := v.(*literal.Literal)
		if !ok {
			return nil, fmt.Errorf("%s: operand #%d is %T, want a tensor", op.Name, i, v)
		}
		d, err := dequantizeLit(q, l)
		if err != nil {
			return nil, fmt.Errorf("%s: operand #%d: %w", op.Name, i, err)
		}
		fin[i] = d
	}
	res, err := k(env, sh, fin)
	if err != nil {
		return nil, err
	}
	if len(res) != len(op.Results) {
		return nil, fmt.Errorf("%s: kernel returned %d values for %d results", op.Name, len(res), len(op.Results))
	}
	for i, v := range res {
		q := quantOfType(op.Results[i].Type)
		if q == nil {
			continue
		}
		l, ok := v.(*literal.Literal)
		if !ok {
			return nil, fmt.Errorf("%s: result #%d is %T, want a tensor", op.Name, i, v)
		}
		if !l.DType.IsFloat() {
			return nil, fmt.Errorf("%s: float kernel gave %v for quantized result #%d", op.Name, l, i)
		}
		qv, err := quantizeLit(q, l)
		if err != nil {
			return nil, fmt.Errorf("%s: result #%d: %w", op.Name, i, err)
		}
		res[i] = qv
	}
	return res, nil
}

// shadowOp copies op with every quantized tensor type of its operands and
// results replaced by elem(type); the copy shares attributes and regions.
func shadowOp(op *stablehlo.Op, elem func(*stablehlo.TensorType) stablehlo.ElemType) *stablehlo.Op {
	conv := func(vs []*stablehlo.Value) []*stablehlo.Value {
		out := make([]*stablehlo.Value, len(vs))
		for i, v := range vs {
			out[i] = v
			if v == nil {
				continue
			}
			t := stablehlo.AsTensor(v.Type)
			if t == nil || !t.Elem.IsQuantized() {
				continue
			}
			nt := &stablehlo.TensorType{Shape: t.Shape, Elem: elem(t), Bounds: t.Bounds}
			out[i] = &stablehlo.Value{Type: nt, Def: v.Def, Index: v.Index, Name: v.Name}
		}
		return out
	}
	sh := *op
	sh.Operands = conv(op.Operands)
	sh.Results = conv(op.Results)
	return &sh
}

// sameQuantTypes reports whether every operand and result of op has the
// same element type.
func sameQuantTypes(op *stablehlo.Op) bool {
	var first *stablehlo.TensorType
	for _, vs := range [][]*stablehlo.Value{op.Operands, op.Results} {
		for _, v := range vs {
			t := stablehlo.AsTensor(v.Type)
			if t == nil {
				return false
			}
			if first == nil {
				first = t
			} else if !first.Elem.Equal(t.Elem) {
				return false
			}
		}
	}
	return true
}
