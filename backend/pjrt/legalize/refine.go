package legalize

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Shape refinement: a program with ? dims (a jax.export program with a
// symbolic batch, say) is specialised to the shapes of one call, as JAX's
// refine_polymorphic_shapes does before XLA sees it. @main's arguments
// take the call's types; arguments the shapes depend on (ShapeArgs: a
// jax2tf dimension argument) become constants of the call's values; the
// shape computations are folded with the native backend's kernels;
// dynamic_broadcast_in_dim, dynamic_iota, dynamic_reshape,
// real_dynamic_slice, dynamic_pad, dynamic_gather and dynamic_conv whose
// shape operands are now constants become their static forms;
// get_dimension_size becomes a constant; shape assertions are checked and
// dropped; every result type is inferred again. What is left dynamic is
// an error naming the op. Calls are inlined first (inline.go).

// maxFoldElems bounds the size of a folded value: shape computations are
// a few elements.
const maxFoldElems = 1024

// dynamicOps maps each op whose result shape comes from operand values to
// the indices of those operands.
var dynamicOps = map[string][]int{
	"stablehlo.dynamic_broadcast_in_dim": {1},
	"stablehlo.dynamic_iota":             {0},
	"stablehlo.dynamic_reshape":          {1},
	"stablehlo.real_dynamic_slice":       {1, 2, 3},
	"stablehlo.dynamic_pad":              {2, 3, 4},
	"stablehlo.dynamic_gather":           {2},
	"stablehlo.dynamic_conv":             {2},
}

func isShapeAssertion(op *stablehlo.Op) bool {
	if op.Name != "stablehlo.custom_call" {
		return false
	}
	t, _ := op.Symbol("call_target_name")
	return t == "shape_assertion"
}

func isRefinementWrapper(op *stablehlo.Op) bool {
	if op.Name != "stablehlo.custom_call" {
		return false
	}
	t, _ := op.Symbol("call_target_name")
	return t == "stablehlo.shape_refinement_operand_wrapper"
}

// ShapeArgs returns the indices of @main's arguments whose values the
// shapes of m depend on (after inlining, which Run does first): a call
// is specialised to their values too, so they must be small integer
// tensors.
func ShapeArgs(m *stablehlo.Module) ([]int, error) {
	main := m.Func("main")
	if main == nil || main.Body.Entry() == nil {
		return nil, fmt.Errorf("legalize: the module has no @main")
	}
	args := map[*stablehlo.Value]int{}
	for i, a := range main.Body.Entry().Args {
		args[a] = i
	}
	seen := map[*stablehlo.Value]bool{}
	found := map[int]bool{}
	var visit func(v *stablehlo.Value)
	visit = func(v *stablehlo.Value) {
		if v == nil || seen[v] {
			return
		}
		seen[v] = true
		if i, ok := args[v]; ok {
			found[i] = true
			return
		}
		if v.Def == nil || v.Def.Name == "stablehlo.get_dimension_size" {
			return
		}
		for _, o := range v.Def.Operands {
			visit(o)
		}
	}
	for _, f := range m.Funcs {
		_ = f.Body.Walk(func(op *stablehlo.Op) error {
			if idx, ok := dynamicOps[op.Name]; ok {
				for _, i := range idx {
					if i < len(op.Operands) {
						visit(op.Operands[i])
					}
				}
			}
			if isShapeAssertion(op) {
				for _, o := range op.Operands {
					visit(o)
				}
			}
			return nil
		})
	}
	var out []int
	for i := range main.Body.Entry().Args {
		if found[i] {
			t := stablehlo.AsTensor(main.Body.Entry().Args[i].Type)
			if t == nil || !(t.DType().IsInteger() || t.DType().IsBool()) || t.Elem.IsQuantized() || !t.IsStatic() || t.NumElements() > 16 {
				return nil, fmt.Errorf("legalize: the shapes of @main depend on the values of argument %d (%v): only small integer arguments can set shapes", i, main.Body.Entry().Args[i].Type)
			}
			out = append(out, i)
		}
	}
	return out, nil
}

func runRefine(s *State) error {
	main := s.Module.Func("main")
	if main == nil {
		return fmt.Errorf("the module has no @main")
	}
	blk := main.Body.Entry()
	if blk == nil {
		return fmt.Errorf("@main has no body")
	}
	rf := &refiner{s: s, consts: map[*stablehlo.Value]*literal.Literal{}}
	if s.Args != nil {
		if len(s.Args) != len(blk.Args) {
			return fmt.Errorf("@main takes %d arguments, the call gives %d", len(blk.Args), len(s.Args))
		}
		shapeArgs, err := ShapeArgs(s.Module)
		if err != nil {
			return err
		}
		isShape := map[int]bool{}
		for _, i := range shapeArgs {
			isShape[i] = true
		}
		var pre []*stablehlo.Op
		for i, a := range s.Args {
			decl := stablehlo.AsTensor(blk.Args[i].Type)
			if decl == nil || a.Type == nil {
				continue
			}
			if err := fits(a.Type, decl); err != nil {
				return fmt.Errorf("argument %d: %w", i, err)
			}
			t := &stablehlo.TensorType{Shape: append([]int64{}, a.Type.Shape...), Elem: decl.Elem}
			blk.Args[i].Type = t
			if isShape[i] {
				if a.Value == nil {
					return fmt.Errorf("argument %d sets shapes of the program: its value is needed", i)
				}
				c := constOp(a.Value, t, main.Loc)
				rf.consts[c.Results[0]] = a.Value
				pre = append(pre, c)
				replaceUses(main.Body, blk.Args[i], c.Results[0])
			}
		}
		blk.Ops = append(pre, blk.Ops...)
	}
	for i, a := range blk.Args {
		if t := stablehlo.AsTensor(a.Type); t != nil && !t.IsStatic() {
			return fmt.Errorf("argument %d has type %v: refinement needs the call's shapes", i, t)
		}
	}
	if err := rf.block(blk); err != nil {
		return err
	}
	for i, a := range blk.Args {
		main.Type.Inputs[i] = a.Type
	}
	ret := blk.Ops[len(blk.Ops)-1]
	if ret.Name == "func.return" && len(ret.Operands) == len(main.Type.Results) {
		for i, v := range ret.Operands {
			main.Type.Results[i] = v.Type
		}
	}
	s.changed = true
	return checkStatic(main)
}

// fits checks a call's argument type against the declared one: same
// rank and element type, static dims equal.
func fits(got, decl *stablehlo.TensorType) error {
	if got.DType() != decl.DType() || len(got.Shape) != len(decl.Shape) {
		return fmt.Errorf("the call gives %v, @main takes %v", got, decl)
	}
	for d, n := range decl.Shape {
		if got.Shape[d] == stablehlo.Dynamic {
			return fmt.Errorf("the call gives %v, with a dynamic dim", got)
		}
		if n != stablehlo.Dynamic && n != got.Shape[d] {
			return fmt.Errorf("the call gives %v, @main takes %v", got, decl)
		}
	}
	return nil
}

// replaceUses makes every use of old in reg read new.
func replaceUses(reg *stablehlo.Region, old, new *stablehlo.Value) {
	_ = reg.Walk(func(op *stablehlo.Op) error {
		for i, v := range op.Operands {
			if v == old {
				op.Operands[i] = new
			}
		}
		return nil
	})
}

// checkStatic reports the first value of f left with a dynamic dim.
func checkStatic(f *stablehlo.Func) error {
	return f.Body.Walk(func(op *stablehlo.Op) error {
		for _, r := range op.Results {
			if t := stablehlo.AsTensor(r.Type); t != nil && !t.IsStatic() {
				return fmt.Errorf("%s (%v) still has the dynamic type %v after refinement", op.Name, op.Loc, t)
			}
		}
		if dynamicOps[op.Name] != nil {
			return fmt.Errorf("%s (%v): its shape operands are not constants after refinement", op.Name, op.Loc)
		}
		return nil
	})
}

type refiner struct {
	s      *State
	consts map[*stablehlo.Value]*literal.Literal
}

func (rf *refiner) block(b *stablehlo.Block) error {
	out := make([]*stablehlo.Op, 0, len(b.Ops))
	for _, op := range b.Ops {
		keep, err := rf.op(op)
		if err != nil {
			return fmt.Errorf("%s (%v): %w", op.Name, op.Loc, err)
		}
		if keep {
			out = append(out, op)
		}
	}
	b.Ops = out
	return nil
}

// op refines one op; keep is false when it is dropped (a checked
// assertion).
func (rf *refiner) op(op *stablehlo.Op) (keep bool, err error) {
	switch {
	case op.Name == "stablehlo.constant":
		if l, ok := denseValue(op); ok && int64(l.Len()) <= maxFoldElems {
			rf.consts[op.Results[0]] = l
		}
		return true, nil
	case isShapeAssertion(op):
		return false, rf.assertion(op)
	case isRefinementWrapper(op):
		if len(op.Operands) == 0 || len(op.Results) != 1 {
			return false, fmt.Errorf("shape_refinement_operand_wrapper with %d operands and %d results", len(op.Operands), len(op.Results))
		}
		// The wrapper stands for its operand: its uses read a copy of it.
		op.Name = "stablehlo.optimization_barrier"
		op.Operands = op.Operands[:1]
		op.Attrs = nil
		op.Results[0].Type = op.Operands[0].Type
		return true, nil
	case op.Name == "stablehlo.get_dimension_size":
		return true, rf.dimensionSize(op)
	case dynamicOps[op.Name] != nil:
		if err := rf.staticize(op); err != nil {
			return false, err
		}
	}
	if err := rf.regions(op); err != nil {
		return false, err
	}
	if err := rf.retype(op); err != nil {
		return false, err
	}
	rf.fold(op)
	return true, nil
}

func (rf *refiner) regions(op *stablehlo.Op) error {
	if len(op.Regions) == 0 {
		return nil
	}
	if op.Name == "stablehlo.while" {
		for _, reg := range op.Regions {
			blk := reg.Entry()
			if blk == nil || len(blk.Args) != len(op.Operands) {
				return fmt.Errorf("while region with %d arguments for %d operands", len(blk.Args), len(op.Operands))
			}
			for i, a := range blk.Args {
				a.Type = op.Operands[i].Type
			}
		}
	}
	for _, reg := range op.Regions {
		for _, b := range reg.Blocks {
			if err := rf.block(b); err != nil {
				return err
			}
		}
	}
	return nil
}

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
		if t := stablehlo.AsTensor(v.Type); t != nil && changedOrDynamic(t) {
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

// changedOrDynamic is a cheap stand-in for "this operand was refined":
// dynamic operands are; refined ones are static now and their users'
// results were dynamic (caught by the result check).
func changedOrDynamic(t *stablehlo.TensorType) bool { return !t.IsStatic() }

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
