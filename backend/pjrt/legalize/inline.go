package legalize

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// maxInlineRounds bounds the depth of nested calls (StableHLO forbids
// recursion; a program that recurses is refused here).
const maxInlineRounds = 64

// maxInlinedOps bounds the size of @main after inlining.
const maxInlinedOps = 1 << 20

// runInline replaces every func.call reachable from @main by a copy of
// the callee's body, then drops the functions @main no longer reaches:
// refinement specialises one function to the call's shapes, and a callee
// shared by two call sites of different shapes must become two copies.
func runInline(s *State) error {
	m := s.Module
	main := m.Func("main")
	if main == nil || main.Body == nil {
		return fmt.Errorf("the module has no @main")
	}
	for round := 0; ; round++ {
		if !regionHasCalls(main.Body) {
			break
		}
		if round == maxInlineRounds {
			return fmt.Errorf("calls nested more than %d deep (recursion?)", maxInlineRounds)
		}
		r := newRewriter(func(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
			if op.Name != "func.call" {
				return nil, nil, nil
			}
			return inlineCall(m, op)
		})
		if err := r.region(main.Body); err != nil {
			return err
		}
		if n := countOps(main.Body); n > maxInlinedOps {
			return fmt.Errorf("@main has %d ops after inlining, more than %d", n, maxInlinedOps)
		}
	}
	keep := []*stablehlo.Func{main}
	for _, f := range m.Funcs {
		if f != main && f.Body == nil {
			keep = append(keep, f) // declarations stay
		}
	}
	m.Funcs = keep
	s.changed = true
	return nil
}

func inlineCall(m *stablehlo.Module, op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	name, ok := op.Symbol("callee")
	if !ok {
		return nil, nil, fmt.Errorf("func.call without a callee")
	}
	f := m.Func(name)
	if f == nil || f.Body.Entry() == nil {
		return nil, nil, fmt.Errorf("call of @%s, which the module does not define", name)
	}
	blk := f.Body.Entry()
	if len(blk.Args) != len(op.Operands) {
		return nil, nil, fmt.Errorf("call of @%s with %d arguments, it takes %d", name, len(op.Operands), len(blk.Args))
	}
	if len(f.Body.Blocks) != 1 {
		return nil, nil, fmt.Errorf("@%s has %d blocks", name, len(f.Body.Blocks))
	}
	vmap := map[*stablehlo.Value]*stablehlo.Value{}
	for i, a := range blk.Args {
		vmap[a] = op.Operands[i]
	}
	var ops []*stablehlo.Op
	var res []*stablehlo.Value
	for i, o := range blk.Ops {
		if o.Name == "func.return" {
			if i != len(blk.Ops)-1 {
				return nil, nil, fmt.Errorf("@%s returns before its end", name)
			}
			for _, v := range o.Operands {
				if mv, ok := vmap[v]; ok {
					v = mv
				}
				res = append(res, v)
			}
			break
		}
		ops = append(ops, cloneOp(o, vmap))
	}
	if len(res) != len(op.Results) {
		return nil, nil, fmt.Errorf("@%s returns %d values, the call expects %d", name, len(res), len(op.Results))
	}
	return ops, res, nil
}

func regionHasCalls(r *stablehlo.Region) bool {
	found := false
	_ = r.Walk(func(op *stablehlo.Op) error {
		if op.Name == "func.call" {
			found = true
			return errStop
		}
		return nil
	})
	return found
}

func countOps(r *stablehlo.Region) int {
	n := 0
	_ = r.Walk(func(*stablehlo.Op) error { n++; return nil })
	return n
}
