package legalize

// Result types and constants during refinement: the result types an op
// has once its operands are refined, folding of shape computations,
// get_dimension_size and shape assertions.

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// sameShapeOps are the ops whose declared result takes operand 0's shape
// (their inference rule checks a given type rather than computing one).
var sameShapeOps = map[string]bool{
	"stablehlo.convert": true, "stablehlo.bitcast_convert": true, "stablehlo.reduce_precision": true,
	"stablehlo.uniform_quantize": true, "stablehlo.uniform_dequantize": true, "stablehlo.optimization_barrier": true,
}

// retype infers op's result types again from its (refined) operands.
func (rf *refiner) retype(op *stablehlo.Op) error {
	dyn := false
	for _, v := range op.Operands {
		if t := stablehlo.AsTensor(v.Type); t != nil && !t.IsStatic() {
			dyn = true
		}
	}
	for _, r := range op.Results {
		if t := stablehlo.AsTensor(r.Type); t != nil && !t.IsStatic() {
			dyn = true
		}
	}
	if !dyn && len(op.Regions) == 0 {
		return nil
	}
	if !stablehlo.HasInferRule(op.Name) {
		return nil
	}
	ts, err := stablehlo.InferResultTypes(op)
	if err != nil {
		return err
	}
	for i, t := range ts {
		tt := stablehlo.AsTensor(t)
		if tt == nil || tt.IsStatic() {
			continue
		}
		switch {
		case sameShapeOps[op.Name] && len(op.Operands) > 0:
			if ot := stablehlo.AsTensor(op.Operands[0].Type); ot != nil && ot.Rank() == tt.Rank() && ot.IsStatic() {
				ts[i] = &stablehlo.TensorType{Shape: append([]int64{}, ot.Shape...), Elem: tt.Elem}
			} else if ot != nil && op.Name == "stablehlo.bitcast_convert" && ot.IsStatic() {
				ts[i] = bitcastShape(ot, tt)
			}
		case op.Name == "stablehlo.if" || op.Name == "stablehlo.case":
			if rets := regionReturnTypes(op, 0); i < len(rets) {
				ts[i] = rets[i]
			}
		}
	}
	if len(ts) != len(op.Results) {
		return fmt.Errorf("inferred %d result types for %d results", len(ts), len(op.Results))
	}
	for i, t := range ts {
		old := stablehlo.AsTensor(op.Results[i].Type)
		nt := stablehlo.AsTensor(t)
		if old != nil && nt != nil && old.IsStatic() && !sameShape(old.Shape, nt.Shape) {
			return fmt.Errorf("result %d is declared %v, the call's shapes make it %v", i, old, nt)
		}
		if old != nil && nt != nil {
			// keep the declared element type (a quantized one included)
			op.Results[i].Type = &stablehlo.TensorType{Shape: append([]int64{}, nt.Shape...), Elem: old.Elem}
			continue
		}
		op.Results[i].Type = t
	}
	return nil
}

func bitcastShape(in, out *stablehlo.TensorType) *stablehlo.TensorType {
	ib, ob := in.DType().Bits(), out.DType().Bits()
	shape := append([]int64{}, in.Shape...)
	switch {
	case ib > ob && ob > 0:
		shape = append(shape, int64(ib/ob))
	case ob > ib && len(shape) > 0:
		shape = shape[:len(shape)-1]
	}
	return &stablehlo.TensorType{Shape: shape, Elem: out.Elem}
}

func regionReturnTypes(op *stablehlo.Op, i int) []stablehlo.Type {
	if i >= len(op.Regions) {
		return nil
	}
	blk := op.Regions[i].Entry()
	if blk == nil || len(blk.Ops) == 0 {
		return nil
	}
	ret := blk.Ops[len(blk.Ops)-1]
	out := make([]stablehlo.Type, len(ret.Operands))
	for j, v := range ret.Operands {
		out[j] = v.Type
	}
	return out
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// noFold are ops never folded: effects, randomness, the device's identity.
var noFold = map[string]bool{
	"stablehlo.custom_call": true, "stablehlo.rng": true, "stablehlo.rng_bit_generator": true,
	"stablehlo.infeed": true, "stablehlo.outfeed": true, "stablehlo.send": true, "stablehlo.recv": true,
	"stablehlo.after_all": true, "stablehlo.create_token": true, "stablehlo.optimization_barrier": true,
	"stablehlo.replica_id": true, "stablehlo.partition_id": true, "func.call": true, "stablehlo.composite": true,
}

// fold evaluates op when its operands are known constants and its
// results small integer tensors (shape computations), turning it into a
// constant.
func (rf *refiner) fold(op *stablehlo.Op) {
	if noFold[op.Name] || len(op.Regions) > 0 || len(op.Results) != 1 || strings.HasPrefix(op.Name, "check.") ||
		strings.HasPrefix(op.Name, "interpreter.") || strings.HasPrefix(op.Name, "func.") {
		return
	}
	t := stablehlo.AsTensor(op.Results[0].Type)
	if t == nil || !t.IsStatic() || t.Elem.IsQuantized() || t.NumElements() > maxFoldElems {
		return
	}
	if d := t.DType(); !(d.IsInteger() || d.IsBool() || d == dtype.Index) {
		return
	}
	in := make([]*literal.Literal, len(op.Operands))
	for i, v := range op.Operands {
		l, ok := rf.consts[v]
		if !ok {
			return
		}
		in[i] = l
	}
	out, err := evalOp(rf.s.Ctx, op, in)
	if err != nil || len(out) != 1 {
		return // left to the device, which reports what is wrong
	}
	becomeConstant(op, out[0])
	rf.consts[op.Results[0]] = out[0]
}

// constInts reads a constant operand as integers.
func (rf *refiner) constInts(v *stablehlo.Value) ([]int64, bool) {
	l, ok := rf.consts[v]
	if !ok || !(l.DType.IsInteger() || l.DType.IsBool() || l.DType == dtype.Index) {
		return nil, false
	}
	out := make([]int64, l.Len())
	for i := range out {
		out[i] = l.Int64(i)
	}
	return out, true
}

func (rf *refiner) dimensionSize(op *stablehlo.Op) error {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return fmt.Errorf("get_dimension_size with %d operands", len(op.Operands))
	}
	t := stablehlo.AsTensor(op.Operands[0].Type)
	d, ok := op.Int("dimension")
	if t == nil || !ok || d < 0 || int(d) >= t.Rank() {
		return fmt.Errorf("dimension %d of %v", d, op.Operands[0].Type)
	}
	if t.Shape[d] == stablehlo.Dynamic {
		return fmt.Errorf("dimension %d of %v is still dynamic", d, t)
	}
	rt := stablehlo.AsTensor(op.Results[0].Type)
	dt := dtype.I32
	if rt != nil {
		dt = rt.DType()
	}
	l, err := literal.New(dt, nil)
	if err != nil {
		return err
	}
	l.SetInt64(0, t.Shape[d])
	becomeConstant(op, l)
	rf.consts[op.Results[0]] = l
	return nil
}

// assertion checks a shape_assertion custom call whose operands are
// constants now; a failed one is the call's error, with the program's
// message.
func (rf *refiner) assertion(op *stablehlo.Op) error {
	if len(op.Operands) == 0 {
		return fmt.Errorf("shape_assertion without a condition")
	}
	cond, ok := rf.consts[op.Operands[0]]
	if !ok || cond.Len() != 1 {
		return fmt.Errorf("shape_assertion: its condition is not a constant after refinement")
	}
	if cond.Int64(0) != 0 {
		return nil
	}
	msg := "shape assertion failed"
	if d, ok := op.Attr("error_message").(stablehlo.StringAttr); ok {
		msg = string(d)
	}
	for i, v := range op.Operands[1:] {
		if l, ok := rf.consts[v]; ok && l.Len() == 1 {
			msg = strings.ReplaceAll(msg, fmt.Sprintf("{%d}", i), fmt.Sprint(l.Int64(0)))
		}
	}
	return fmt.Errorf("the call's shapes fail the program's assertion: %s", msg)
}
