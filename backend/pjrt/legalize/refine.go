package legalize

import (
	"fmt"

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
