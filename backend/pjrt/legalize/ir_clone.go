package legalize

// Copies of modules and regions, and dead-code elimination.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// cloneRegion copies a region; values defined outside it are looked up in
// vmap (and left as they are when absent), values defined inside are
// mapped to their copies.
func cloneRegion(reg *stablehlo.Region, vmap map[*stablehlo.Value]*stablehlo.Value) *stablehlo.Region {
	if reg == nil {
		return nil
	}
	out := &stablehlo.Region{}
	for _, b := range reg.Blocks {
		nb := &stablehlo.Block{}
		for i, a := range b.Args {
			na := &stablehlo.Value{Type: a.Type, Index: i, Name: a.Name}
			vmap[a] = na
			nb.Args = append(nb.Args, na)
		}
		for _, op := range b.Ops {
			nb.Ops = append(nb.Ops, cloneOp(op, vmap))
		}
		out.Blocks = append(out.Blocks, nb)
	}
	return out
}

// cloneOp copies one op with its regions, mapping operands through vmap
// and recording its results' copies there.
func cloneOp(op *stablehlo.Op, vmap map[*stablehlo.Value]*stablehlo.Value) *stablehlo.Op {
	n := &stablehlo.Op{Name: op.Name, Loc: op.Loc, Attrs: append([]stablehlo.NamedAttr(nil), op.Attrs...)}
	for _, v := range op.Operands {
		if m, ok := vmap[v]; ok {
			v = m
		}
		n.Operands = append(n.Operands, v)
	}
	for _, reg := range op.Regions {
		n.Regions = append(n.Regions, cloneRegion(reg, vmap))
	}
	for i, r := range op.Results {
		nr := &stablehlo.Value{Type: r.Type, Def: n, Index: i, Name: r.Name}
		vmap[r] = nr
		n.Results = append(n.Results, nr)
	}
	return n
}

// effectful ops are kept by dead-code elimination whatever their uses.
func effectful(op *stablehlo.Op) bool {
	switch op.Name {
	case "func.return", "stablehlo.return", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv",
		"stablehlo.infeed", "stablehlo.after_all", "stablehlo.optimization_barrier", "stablehlo.rng_bit_generator",
		"stablehlo.rng", "func.call":
		return true
	case "stablehlo.custom_call":
		return true
	}
	if len(op.Regions) > 0 && op.Name != "stablehlo.reduce" && op.Name != "stablehlo.map" && op.Name != "stablehlo.sort" &&
		op.Name != "stablehlo.reduce_window" && op.Name != "stablehlo.scatter" && op.Name != "stablehlo.select_and_scatter" {
		return true // while, if, case, collectives: kept
	}
	for _, r := range op.Results {
		if _, tok := r.Type.(stablehlo.TokenType); tok {
			return true
		}
	}
	return len(op.Results) == 0
}

// runDCE drops ops whose results are never used and that have no effect,
// repeatedly, in every function.
func runDCE(s *State) error {
	for _, f := range s.Module.Funcs {
		for {
			used := map[*stablehlo.Value]bool{}
			_ = f.Body.Walk(func(op *stablehlo.Op) error {
				for _, v := range op.Operands {
					used[v] = true
				}
				return nil
			})
			removed := false
			var sweep func(reg *stablehlo.Region)
			sweep = func(reg *stablehlo.Region) {
				if reg == nil {
					return
				}
				for _, b := range reg.Blocks {
					kept := b.Ops[:0]
					for _, op := range b.Ops {
						dead := !effectful(op)
						for _, r := range op.Results {
							if used[r] {
								dead = false
							}
						}
						if dead {
							removed = true
							continue
						}
						for _, sub := range op.Regions {
							sweep(sub)
						}
						kept = append(kept, op)
					}
					b.Ops = kept
				}
			}
			sweep(f.Body)
			if !removed {
				break
			}
		}
	}
	return nil
}

// Clone returns a deep copy of m: the passes rewrite a module in place,
// and a caller's module is not theirs to change.
func Clone(m *stablehlo.Module) (*stablehlo.Module, error) {
	if m == nil {
		return nil, fmt.Errorf("legalize: nil module")
	}
	out := &stablehlo.Module{Name: m.Name, Attrs: append([]stablehlo.NamedAttr(nil), m.Attrs...), Loc: m.Loc}
	for _, f := range m.Funcs {
		nf := &stablehlo.Func{Name: f.Name, Visibility: f.Visibility, Loc: f.Loc,
			ArgAttrs: append([]stablehlo.DictAttr(nil), f.ArgAttrs...), ResultAttrs: append([]stablehlo.DictAttr(nil), f.ResultAttrs...),
			Attrs: append([]stablehlo.NamedAttr(nil), f.Attrs...)}
		if f.Type != nil {
			nf.Type = &stablehlo.FuncType{Inputs: append([]stablehlo.Type(nil), f.Type.Inputs...), Results: append([]stablehlo.Type(nil), f.Type.Results...)}
		}
		nf.Body = cloneRegion(f.Body, map[*stablehlo.Value]*stablehlo.Value{})
		out.Funcs = append(out.Funcs, nf)
	}
	return out, nil
}
