package legalize

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// staticize rewrites a dynamic op whose shape operands are constants
// into its static form, in place (its result values stay, with static
// types).
func (rf *refiner) staticize(op *stablehlo.Op) error {
	idx := dynamicOps[op.Name]
	vals := make([][]int64, len(idx))
	for k, i := range idx {
		if i >= len(op.Operands) {
			return fmt.Errorf("has %d operands", len(op.Operands))
		}
		v, ok := rf.constInts(op.Operands[i])
		if !ok {
			return fmt.Errorf("operand %d, a shape, is computed at run time (from data, not from the call's shapes): it cannot be specialised", i)
		}
		vals[k] = v
	}
	if len(op.Results) != 1 {
		return fmt.Errorf("has %d results", len(op.Results))
	}
	rt := stablehlo.AsTensor(op.Results[0].Type)
	if rt == nil {
		return fmt.Errorf("result of type %v", op.Results[0].Type)
	}
	keep := func(names ...string) []stablehlo.NamedAttr {
		var out []stablehlo.NamedAttr
		for _, n := range names {
			if a := op.Attr(n); a != nil {
				out = append(out, stablehlo.NamedAttr{Name: n, Value: a})
			}
		}
		return out
	}
	result := func(shape []int64) error {
		for _, d := range shape {
			if d < 0 {
				return fmt.Errorf("the shape operand gives a negative size %v", shape)
			}
		}
		if len(shape) != rt.Rank() {
			return fmt.Errorf("the shape operand has %d sizes for a result of rank %d", len(shape), rt.Rank())
		}
		for d, n := range rt.Shape {
			if n != stablehlo.Dynamic && n != shape[d] {
				return fmt.Errorf("the shape operand gives %v, the result is declared %v", shape, rt)
			}
		}
		op.Results[0].Type = &stablehlo.TensorType{Shape: append([]int64{}, shape...), Elem: rt.Elem}
		return nil
	}
	var attrs []stablehlo.NamedAttr
	switch op.Name {
	case "stablehlo.dynamic_broadcast_in_dim":
		if err := result(vals[0]); err != nil {
			return err
		}
		op.Name, op.Operands, attrs = "stablehlo.broadcast_in_dim", op.Operands[:1], keep("broadcast_dimensions")
	case "stablehlo.dynamic_iota":
		if err := result(vals[0]); err != nil {
			return err
		}
		op.Name, op.Operands, attrs = "stablehlo.iota", nil, keep("iota_dimension")
	case "stablehlo.dynamic_reshape":
		if err := result(vals[0]); err != nil {
			return err
		}
		op.Name, op.Operands = "stablehlo.reshape", op.Operands[:1]
	case "stablehlo.real_dynamic_slice":
		start, limit, strides := vals[0], vals[1], vals[2]
		if len(start) != len(limit) || len(start) != len(strides) || len(start) != rt.Rank() {
			return fmt.Errorf("start %v, limit %v and strides %v for a result of rank %d", start, limit, strides, rt.Rank())
		}
		shape := make([]int64, len(start))
		for i := range shape {
			if strides[i] <= 0 || limit[i] < start[i] {
				return fmt.Errorf("start %v, limit %v, strides %v do not describe a slice", start, limit, strides)
			}
			shape[i] = (limit[i] - start[i] + strides[i] - 1) / strides[i]
		}
		if err := result(shape); err != nil {
			return err
		}
		op.Name, op.Operands = "stablehlo.slice", op.Operands[:1]
		attrs = []stablehlo.NamedAttr{{Name: "start_indices", Value: stablehlo.I64s(start...)},
			{Name: "limit_indices", Value: stablehlo.I64s(limit...)}, {Name: "strides", Value: stablehlo.I64s(strides...)}}
	case "stablehlo.dynamic_pad":
		low, high, interior := vals[0], vals[1], vals[2]
		op.Name, op.Operands = "stablehlo.pad", op.Operands[:2]
		attrs = []stablehlo.NamedAttr{{Name: "edge_padding_low", Value: stablehlo.I64s(low...)},
			{Name: "edge_padding_high", Value: stablehlo.I64s(high...)}, {Name: "interior_padding", Value: stablehlo.I64s(interior...)}}
		op.Attrs = attrs
		return rf.inferInto(op)
	case "stablehlo.dynamic_gather":
		op.Name, op.Operands = "stablehlo.gather", op.Operands[:2]
		attrs = append(keep("dimension_numbers", "indices_are_sorted"), stablehlo.NamedAttr{Name: "slice_sizes", Value: stablehlo.I64s(vals[0]...)})
		stablehlo.SortAttrs(attrs)
		op.Attrs = attrs
		return rf.inferInto(op)
	case "stablehlo.dynamic_conv":
		p := vals[0]
		if len(p)%2 != 0 {
			return fmt.Errorf("padding operand of %d values", len(p))
		}
		pairs := make([][2]int64, len(p)/2)
		for i := range pairs {
			pairs[i] = [2]int64{p[2*i], p[2*i+1]}
		}
		op.Name, op.Operands = "stablehlo.convolution", op.Operands[:2]
		attrs = append([]stablehlo.NamedAttr{}, op.Attrs...)
		attrs = append(attrs, stablehlo.NamedAttr{Name: "padding", Value: stablehlo.PaddingAttr(pairs)})
		stablehlo.SortAttrs(attrs)
		op.Attrs = attrs
		return rf.inferInto(op)
	}
	stablehlo.SortAttrs(attrs)
	op.Attrs = attrs
	return nil
}

// inferInto sets op's result types from its inference rule, keeping the
// declared element types; a declared static dim must agree.
func (rf *refiner) inferInto(op *stablehlo.Op) error {
	ts, err := stablehlo.InferResultTypes(op)
	if err != nil {
		return err
	}
	if len(ts) != len(op.Results) {
		return fmt.Errorf("inferred %d result types for %d results", len(ts), len(op.Results))
	}
	for i, t := range ts {
		nt, old := stablehlo.AsTensor(t), stablehlo.AsTensor(op.Results[i].Type)
		if nt == nil || old == nil {
			op.Results[i].Type = t
			continue
		}
		for d, n := range old.Shape {
			if d < nt.Rank() && n != stablehlo.Dynamic && n != nt.Shape[d] {
				return fmt.Errorf("result %d is declared %v, the call's shapes make it %v", i, old, nt)
			}
		}
		op.Results[i].Type = &stablehlo.TensorType{Shape: append([]int64{}, nt.Shape...), Elem: old.Elem}
	}
	return nil
}
