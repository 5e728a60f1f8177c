package runtime

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/sym"
)

// Padding analysis: may a program run with some symbolic dims padded up
// to a bucket and give, on the unpadded positions, exactly what it gives
// at the exact shapes? It follows each tensor's layout: every dim is an
// ordered list of atoms, static sizes or padded symbols, so that merges
// and splits by view/reshape are checked to keep each padded position a
// position of its own. Only ops whose meaning on the valid positions does
// not depend on the padded ones are allowed with a padded dim: pointwise
// ops, linear/layer_norm/softmax over unpadded dims, layout ops, and
// scaled_dot_product_attention over a padded key dim, which the runtime
// masks (dynamic_bucket.go). Anything else refuses, with the reason.

type atom struct {
	n int64  // static size when s == ""
	s string // padded symbol
	// off is a constant added to a lone padded dim (s+off positions, of
	// which all are valid positions: a concatenation with static pieces
	// before the padded one, or a slice of such); 0 in every other atom.
	off int64
}

// keyMask is an attention node's padded key dim: the symbol, and the
// constant its valid length adds (s+off keys, all valid); and the value
// dim's (the same length at run time, another symbol to dynamo when a
// cache concatenates keys and values apart).
type keyMask struct {
	sym, vsym string
	off, voff int64
}

// off returns the constant of a lone padded dim (s+off).
func (d dimLayout) off() int64 {
	if len(d) == 1 {
		return d[0].off
	}
	return 0
}

type dimLayout []atom

func (d dimLayout) padded() bool {
	for _, a := range d {
		if a.s != "" {
			return true
		}
	}
	return false
}

func (d dimLayout) equal(o dimLayout) bool {
	if len(d) != len(o) {
		return false
	}
	for i := range d {
		if d[i] != o[i] {
			return false
		}
	}
	return true
}

// lone returns the symbol when the dim is exactly one padded symbol.
func (d dimLayout) lone() string {
	if len(d) == 1 && d[0].s != "" {
		return d[0].s
	}
	return ""
}

type layout []dimLayout

func (l layout) padded() bool {
	for _, d := range l {
		if d.padded() {
			return true
		}
	}
	return false
}

// padAnalysis is the result for one set of padded symbols.
type padAnalysis struct {
	g        *fx.Graph
	padded   map[string]bool
	layouts  map[string]layout    // tensors with at least one padded dim
	symVals  map[string]bool      // sym ints that depend on a padded symbol
	masks    map[string]keyMask   // attention node → its padded key dim
	fills    map[string]maskSpec  // nodes reading across a padded dim → what to mask (dynamic_rules_mask.go)
	iotas    map[string]iotaVal   // integer tensors holding their position along a padded dim (dynamic_rules_index.go)
	tails    map[string]tailSlice // slices from the end of a padded dim (dynamic_rules_more.go)
	catTails map[string]catTail   // concatenations with pieces after a padded one (dynamic_rules_more.go)
}

// analyzePadding checks the whole graph; the error is the reason why not.
func analyzePadding(g *fx.Graph, padded map[string]bool) (*padAnalysis, error) {
	a := &padAnalysis{g: g, padded: padded, layouts: map[string]layout{}, symVals: map[string]bool{}, masks: map[string]keyMask{},
		fills: map[string]maskSpec{}, iotas: map[string]iotaVal{}, tails: map[string]tailSlice{}, catTails: map[string]catTail{}}
	for _, s := range g.Signature.Outputs {
		if s.Kind != fx.OutputUser && s.Kind != fx.OutputLoss {
			return nil, fmt.Errorf("the program mutates %s %s", s.Kind, s.Target)
		}
	}
	for i, spec := range g.Signature.Inputs {
		if spec.Kind != fx.InputUser || i >= len(g.Inputs) || g.Inputs[i].Kind != fx.ArgTensor {
			continue
		}
		name := g.Inputs[i].Name
		l, err := a.fromMeta(name, nil)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		if l.padded() {
			a.layouts[name] = l
		}
	}
	// A sym int input whose value is a padded size (s0 beside an [s0, 8]
	// tensor) may only be used as a size.
	for i, spec := range g.Signature.Inputs {
		if spec.Kind != fx.InputUser || i >= len(g.Inputs) || g.Inputs[i].Kind != fx.ArgSymInt || len(g.Inputs[i].SymInts) != 1 {
			continue
		}
		name := g.Inputs[i].SymInts[0].Name
		if sv, ok := g.SymInts[name]; ok && sv.Expr != nil {
			for _, s := range sv.Expr.Symbols() {
				if padded[s] {
					a.symVals[name] = true
				}
			}
		}
	}
	for _, n := range g.Nodes {
		if e, ok := aten.Lookup(n.Target); ok && e.Kind == aten.HostFallback {
			return nil, fmt.Errorf("node %s (%s) runs on the host", n.Name, n.Target)
		}
		if err := a.node(n); err != nil {
			return nil, fmt.Errorf("node %s (%s): %w", n.Name, n.Target, err)
		}
		a.flowIota(n)
	}
	for _, o := range g.Outputs {
		if o.Kind != fx.ArgTensor {
			if o.Kind == fx.ArgNone {
				continue
			}
			return nil, fmt.Errorf("output of kind %s", o.Kind)
		}
		for d, dl := range a.layouts[o.Name] {
			if dl.padded() && dl.lone() == "" {
				return nil, fmt.Errorf("output %s dim %d mixes a padded dim with others", o.Name, d)
			}
		}
	}
	return a, nil
}

// fromMeta builds a layout from a tensor's symbolic shape: static dims and
// lone padded symbols only (dims listed in keep are taken from there).
func (a *padAnalysis) fromMeta(name string, keep map[int]dimLayout) (layout, error) {
	m := a.g.Tensor(name)
	if m == nil {
		return nil, fmt.Errorf("no shape recorded for %s", name)
	}
	l := make(layout, len(m.Shape))
	for i, d := range m.Shape {
		switch {
		case keep[i] != nil:
			l[i] = keep[i]
		case d.IsStatic():
			l[i] = dimLayout{{n: d.Static}}
		case d.Expr.Op == sym.OpSymbol && a.padded[d.Expr.Name]:
			l[i] = dimLayout{{s: d.Expr.Name}}
		case symPlus(d.Expr) != "" && a.padded[symPlus(d.Expr)]:
			s, k := symPlusParts(d.Expr)
			l[i] = dimLayout{{s: s, off: k}}
		default:
			for _, s := range d.Expr.Symbols() {
				if a.padded[s] {
					return nil, fmt.Errorf("dim %d is %s, a compound of a padded dim", i, d)
				}
			}
			return nil, fmt.Errorf("dim %d is %s, a symbolic dim that is not padded", i, d)
		}
	}
	return l, nil
}

// metaPadded reports whether a tensor's recorded shape uses a padded symbol.
func (a *padAnalysis) metaPadded(name string) bool {
	m := a.g.Tensor(name)
	if m == nil {
		return false
	}
	for _, s := range m.Symbols() {
		if a.padded[s] {
			return true
		}
	}
	return false
}

// layoutOf returns a tensor's layout (static when not tracked).
func (a *padAnalysis) layoutOf(name string) (layout, bool) {
	l, ok := a.layouts[name]
	return l, ok
}

func (a *padAnalysis) set(name string, l layout) {
	l = append(layout{}, l...)
	for i, dl := range l { // a static 1 inside a padded dim holds no position
		if len(dl) > 1 && dl.padded() {
			var kept dimLayout
			for _, at := range dl {
				if at.s != "" || at.n != 1 {
					kept = append(kept, at)
				}
			}
			l[i] = kept
		}
	}
	if l.padded() {
		a.layouts[name] = l
	} else {
		delete(a.layouts, name)
	}
}

// op is the target without its ".default" overload.
func op(n *fx.Node) string { return strings.TrimSuffix(n.Target, ".default") }

// symPlus returns s when e is s + k (k a constant), else "".
func symPlus(e *sym.Expr) string {
	s, _ := symPlusParts(e)
	return s
}

func symPlusParts(e *sym.Expr) (string, int64) {
	if e == nil || e.Op != sym.OpAdd || len(e.Args) != 2 {
		return "", 0
	}
	a, b := e.Args[0], e.Args[1]
	if a.Op == sym.OpInt {
		a, b = b, a
	}
	if a.Op != sym.OpSymbol || b.Op != sym.OpInt {
		return "", 0
	}
	return a.Name, b.Int
}
