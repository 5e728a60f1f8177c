package runtime

// Slices and concatenations along padded dims.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/sym"
)

// sliceRule: a slice along an unpadded dim keeps the layout. Along a
// lone padded dim s+c (valid positions [0, s+c)), a slice [a, e) with
// step 1 whose result is s+k long is valid where k <= c-a: its positions
// read only valid ones, and in the padded program the symbolic end gives
// the padded length. A slice with static bounds below the symbol's least
// value reads valid positions only, and is static.
func sliceRule(a *padAnalysis, n *fx.Node, ins []string) error {
	self := tensorArg(n, "self")
	l, ok := a.layouts[self]
	if !ok {
		return fmt.Errorf("slices a tensor with an untracked padded dim")
	}
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(len(l))
	}
	if d < 0 || int(d) >= len(l) {
		return fmt.Errorf("dim out of range")
	}
	out := n.Outputs[0].Name
	keep := map[int]dimLayout{}
	for i, dl := range l {
		if i != int(d) && dl.padded() {
			keep[i] = dl
		}
	}
	m := a.g.Tensor(out)
	if m == nil || m.Rank() != len(l) {
		return fmt.Errorf("unexpected output rank")
	}
	if l[d].padded() {
		s := l[d].lone()
		if s == "" {
			return fmt.Errorf("slices a dim that merges a padded dim with others")
		}
		start, _ := intArg(n, "start")
		step := int64(1)
		if v, ok := intArg(n, "step"); ok {
			step = v
		}
		if step != 1 {
			return fmt.Errorf("slices a padded dim with a step")
		}
		od := m.Shape[d]
		if start < 0 { // from the end: at the actual end (dynamic_slice, dynamic_mask.go)
			end := int64(1<<63 - 1)
			if e, ok := intArg(n, "end"); ok {
				end = e
			}
			if !od.IsStatic() || (end < 0 && end <= start) || (end >= 0 && end < 1<<62) || -start > l[d].off()+a.minOf(s) {
				return fmt.Errorf("slices a padded dim from its end other than to its end")
			}
			a.tails[n.Name] = tailSlice{dim: int(d), sym: s, off: l[d].off(), start: start}
			res, err := a.fromMeta(out, keep)
			if err != nil {
				return err
			}
			a.set(out, res)
			return nil
		}
		switch {
		case od.IsStatic():
			rg, ok := a.g.Ranges[s]
			if !ok || rg.Min == nil || start+od.Static > *rg.Min+l[d].off() {
				return fmt.Errorf("a static slice of a padded dim may reach padded positions")
			}
		case od.Expr.Op == sym.OpSymbol && od.Expr.Name == s:
			if 0 > l[d].off()-start {
				return fmt.Errorf("slices past the valid positions")
			}
			keep[int(d)] = dimLayout{{s: s}}
		case symPlus(od.Expr) == s:
			_, k := symPlusParts(od.Expr)
			if k > l[d].off()-start {
				return fmt.Errorf("slices past the valid positions")
			}
			keep[int(d)] = dimLayout{{s: s, off: k}}
		default:
			return fmt.Errorf("slices a padded dim to %s", od)
		}
	}
	res, err := a.fromMeta(out, keep)
	if err != nil {
		return err
	}
	a.set(out, res)
	return nil
}

// catRule: a concatenation along an unpadded dim (the pieces agree on
// the padded dims), or along a padded dim with one padded piece: static
// pieces before it shift the valid positions (a prefix still); static
// pieces after it are written at the actual end (a dynamic_update_slice,
// dynamic_mask.go: a KV cache growing by one token).
func catRule(a *padAnalysis, n *fx.Node, ins []string) error {
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	if m == nil {
		return fmt.Errorf("no output shape")
	}
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(m.Rank())
	}
	if d < 0 || int(d) >= m.Rank() {
		return fmt.Errorf("dim out of range")
	}
	keep := map[int]dimLayout{}
	tv, _ := n.Input("tensors")
	names := tv.TensorNames()
	var before, after int64
	padIdx := -1
	for pi, name := range names {
		l, tracked := a.layouts[name]
		if !tracked {
			pm := a.g.Tensor(name)
			if pm != nil && pm.Rank() == 1 && pm.Shape[0].IsStatic() && pm.Shape[0].Static == 0 {
				continue // an empty 1-D piece: cat skips it
			}
			if pm == nil || pm.Rank() != m.Rank() {
				return fmt.Errorf("piece %s of another rank", name)
			}
			if !pm.Shape[d].IsStatic() {
				continue // only matters along a padded dim: checked below
			}
			if padIdx < 0 {
				before += pm.Shape[d].Static
			} else {
				after += pm.Shape[d].Static
			}
			continue
		}
		if len(l) != m.Rank() {
			return fmt.Errorf("pieces of rank %d for rank %d", len(l), m.Rank())
		}
		for i, dl := range l {
			if !dl.padded() {
				if i == int(d) {
					if padIdx < 0 {
						before += dl[0].n
					} else {
						after += dl[0].n
					}
				}
				continue
			}
			if i == int(d) {
				if padIdx >= 0 || dl.lone() == "" {
					return fmt.Errorf("concatenates two padded pieces along a padded dim")
				}
				padIdx = pi
				keep[i] = dl
				continue
			}
			if keep[i] != nil && !keep[i].equal(dl) {
				return fmt.Errorf("pieces disagree on a padded dim")
			}
			keep[i] = dl
		}
	}
	if padIdx >= 0 {
		dl := keep[int(d)]
		s := dl.lone()
		keep[int(d)] = dimLayout{{s: s, off: dl.off() + before + after}}
		if after > 0 {
			a.catTails[n.Name] = catTail{dim: int(d), sym: s, off: dl.off() + before, piece: padIdx}
		}
	}
	res, err := a.fromMeta(out, keep)
	if err != nil {
		return err
	}
	a.set(out, res)
	return nil
}

// catTail is a concatenation along a padded dim with static pieces after
// the padded one: they go at the actual end.
type catTail struct {
	dim   int
	sym   string
	off   int64 // valid positions up to the end of the padded piece: sym+off
	piece int   // index of the padded piece
}

// tailSlice is a slice [start:] (start < 0) along a padded dim, lowered
// as a dynamic_slice at the actual length.
type tailSlice struct {
	dim   int
	sym   string
	off   int64
	start int64
}

// minOf is the least value of a symbol (its range's minimum, else 1).
func (a *padAnalysis) minOf(s string) int64 {
	if rg, ok := a.g.Ranges[s]; ok && rg.Min != nil {
		return *rg.Min
	}
	return 1
}
