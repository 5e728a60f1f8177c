package legalize

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Quantized types to integer and float arithmetic, as StableHLO's
// quant-to-math lowering (stablehlo-legalize-quant-to-int) defines it and
// the native backend computes it (backend/native/quant*.go): every
// !quant.uniform value becomes its storage integers;
//
//	uniform_quantize   round_even(clamp(f32(x) / scale + zp, min, max)), converted to the storage type
//	uniform_dequantize f32(i32(q) - zp) * scale, in the expressed type
//	requantize         round_even(f32(q) * (s_in/s_out) + (zp_out - zp_in*s_in/s_out)), clamped below 32 bits
//	ops that move or select elements (reshape, gather, select, max of equal
//	types, ...) work on the storage values;
//	add: both operands requantized to the result in i32, added, the zero
//	point subtracted once, clamped;
//	dot_general, dot, convolution: the stored integers accumulated in i32
//	(quant_ops.go);
//	any other op: operands dequantized, the op on the expressed type, its
//	results quantized.

func needQuant(s *State) bool {
	if s.Target.Quant {
		return false
	}
	return anyQuant(s.Module)
}

func anyQuant(m *stablehlo.Module) bool {
	for _, f := range m.Funcs {
		if f.Type != nil {
			for _, t := range append(append([]stablehlo.Type{}, f.Type.Inputs...), f.Type.Results...) {
				if isQuantType(t) {
					return true
				}
			}
		}
	}
	return anyOp(m, func(op *stablehlo.Op) bool {
		for _, v := range op.Results {
			if isQuantType(v.Type) {
				return true
			}
		}
		for _, v := range op.Operands {
			if isQuantType(v.Type) {
				return true
			}
		}
		return false
	})
}

func isQuantType(t stablehlo.Type) bool {
	switch t := t.(type) {
	case *stablehlo.TensorType:
		return t.Elem.IsQuantized()
	case *stablehlo.TupleType:
		for _, e := range t.Elems {
			if isQuantType(e) {
				return true
			}
		}
	}
	return false
}

// quantMoves are the ops that only move or select stored elements: on
// quantized types they work on the storage values.
var quantMoves = map[string]bool{
	"stablehlo.constant": true, "stablehlo.broadcast_in_dim": true, "stablehlo.reshape": true,
	"stablehlo.transpose": true, "stablehlo.slice": true, "stablehlo.concatenate": true, "stablehlo.reverse": true,
	"stablehlo.dynamic_slice": true, "stablehlo.dynamic_update_slice": true, "stablehlo.gather": true,
	"stablehlo.get_tuple_element": true, "stablehlo.tuple": true, "stablehlo.optimization_barrier": true,
	"stablehlo.while": true, "stablehlo.if": true, "stablehlo.case": true, "func.call": true,
	"stablehlo.custom_call": true, "stablehlo.bitcast_convert": true, "func.return": true, "stablehlo.return": true,
	"stablehlo.select": true, "stablehlo.pad": true, "stablehlo.reduce_window": true, "stablehlo.sort": true,
	"stablehlo.all_gather": true, "stablehlo.all_to_all": true, "stablehlo.collective_permute": true,
	"stablehlo.collective_broadcast": true,
}

type quantizer struct {
	// orig holds the quantized type of each value retyped to its storage.
	orig map[*stablehlo.Value]*stablehlo.TensorType
}

func runQuant(s *State) error {
	q := &quantizer{orig: map[*stablehlo.Value]*stablehlo.TensorType{}}
	for _, f := range s.Module.Funcs {
		if f.Body == nil {
			continue
		}
		if blk := f.Body.Entry(); blk != nil {
			for _, a := range blk.Args {
				q.retype(a)
			}
		}
	}
	r := newRewriter(q.op)
	if err := r.funcs(s.Module); err != nil {
		return err
	}
	for _, f := range s.Module.Funcs {
		if f.Type == nil {
			continue
		}
		for i, t := range f.Type.Inputs {
			f.Type.Inputs[i] = storageType(t)
		}
		for i, t := range f.Type.Results {
			f.Type.Results[i] = storageType(t)
		}
	}
	s.changed = true
	return nil
}

// storageType is t with every quantized element type replaced by its
// storage type.
func storageType(t stablehlo.Type) stablehlo.Type {
	switch t := t.(type) {
	case *stablehlo.TensorType:
		if t.Elem.IsQuantized() {
			return &stablehlo.TensorType{Shape: t.Shape, Elem: stablehlo.Elem(t.Elem.Quant.Storage), Bounds: t.Bounds}
		}
	case *stablehlo.TupleType:
		out := &stablehlo.TupleType{}
		for _, e := range t.Elems {
			out.Elems = append(out.Elems, storageType(e))
		}
		return out
	}
	return t
}

// retype gives v its storage type, remembering the quantized one.
func (q *quantizer) retype(v *stablehlo.Value) {
	if t := stablehlo.AsTensor(v.Type); t != nil && t.Elem.IsQuantized() {
		q.orig[v] = t
	}
	v.Type = storageType(v.Type)
}

// quantOf returns the quantization of a value (before retyping), or nil.
func (q *quantizer) quantOf(v *stablehlo.Value) *stablehlo.Quant {
	if t, ok := q.orig[v]; ok {
		return t.Elem.Quant
	}
	if t := stablehlo.AsTensor(v.Type); t != nil {
		return t.Elem.Quant
	}
	return nil
}

func (q *quantizer) touches(op *stablehlo.Op) bool {
	for _, v := range op.Operands {
		if q.quantOf(v) != nil || isQuantType(v.Type) {
			return true
		}
	}
	for _, v := range op.Results {
		if isQuantType(v.Type) {
			return true
		}
	}
	return false
}

// retypeRegions gives the block arguments of op's regions their storage
// types.
func (q *quantizer) retypeRegions(op *stablehlo.Op) {
	for _, reg := range op.Regions {
		for _, b := range reg.Blocks {
			for _, a := range b.Args {
				q.retype(a)
			}
		}
	}
}

func (q *quantizer) op(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if !q.touches(op) {
		return nil, nil, nil
	}
	switch op.Name {
	case "stablehlo.uniform_quantize":
		return q.quantize(op)
	case "stablehlo.uniform_dequantize":
		return q.dequantize(op)
	case "stablehlo.maximum", "stablehlo.minimum":
		if q.sameTypes(op) {
			return q.keep(op)
		}
	case "stablehlo.add":
		if ops, res, ok, err := q.add(op); ok || err != nil {
			return ops, res, err
		}
	case "stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution":
		if ops, res, ok, err := q.dotLike(op); ok || err != nil {
			return ops, res, err
		}
	}
	if quantMoves[op.Name] || len(op.Name) > 6 && op.Name[:6] == "check." {
		return q.keep(op)
	}
	if len(op.Regions) > 0 {
		return nil, nil, fmt.Errorf("%s with a region on quantized types is not lowered", op.Name)
	}
	return q.viaFloat(op)
}

// keep retypes op's results (and region arguments) to the storage types:
// the op works on the stored integers.
func (q *quantizer) keep(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if op.Name == "stablehlo.constant" {
		if d, ok := op.Attr("value").(*stablehlo.DenseAttr); ok && d.Type != nil && d.Type.Elem.IsQuantized() {
			nd := *d
			nd.Type = storageType(d.Type).(*stablehlo.TensorType)
			op.SetAttr("value", &nd)
		}
	}
	for _, r := range op.Results {
		q.retype(r)
	}
	q.retypeRegions(op)
	return nil, nil, nil
}

func (q *quantizer) sameTypes(op *stablehlo.Op) bool {
	var first *stablehlo.Quant
	for _, v := range append(append([]*stablehlo.Value{}, op.Operands...), op.Results...) {
		qt := q.quantOf(v)
		if qt == nil {
			return false
		}
		if first == nil {
			first = qt
		} else if first.String() != qt.String() {
			return false
		}
	}
	return true
}

func (q *quantizer) quantize(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, nil, fmt.Errorf("uniform_quantize with %d operands", len(op.Operands))
	}
	rt := stablehlo.AsTensor(op.Results[0].Type)
	if rt == nil || !rt.Elem.IsQuantized() {
		return nil, nil, fmt.Errorf("uniform_quantize to %v", op.Results[0].Type)
	}
	to := rt.Elem.Quant
	fb := stablehlo.NewOpsBuilder(op.Loc)
	x := op.Operands[0]
	var out *stablehlo.Value
	if from := q.quantOf(x); from != nil {
		out = requant(fb, x, from, to, to.Storage)
	} else {
		if t := stablehlo.AsTensor(x.Type); t == nil || !t.DType().IsFloat() {
			return nil, nil, fmt.Errorf("uniform_quantize of %v", x.Type)
		}
		out = quant(fb, x, to)
	}
	if err := fb.Err(); err != nil {
		return nil, nil, err
	}
	q.orig[out] = rt
	return fb.Ops(), []*stablehlo.Value{out}, nil
}

func (q *quantizer) dequantize(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, nil, fmt.Errorf("uniform_dequantize with %d operands", len(op.Operands))
	}
	from := q.quantOf(op.Operands[0])
	if from == nil {
		return nil, nil, fmt.Errorf("uniform_dequantize of %v", op.Operands[0].Type)
	}
	fb := stablehlo.NewOpsBuilder(op.Loc)
	out := dequant(fb, op.Operands[0], from)
	if rt := stablehlo.AsTensor(op.Results[0].Type); rt != nil && rt.DType() != from.Expressed {
		out = fb.Convert(out, rt.DType())
	}
	if err := fb.Err(); err != nil {
		return nil, nil, err
	}
	return fb.Ops(), []*stablehlo.Value{out}, nil
}
