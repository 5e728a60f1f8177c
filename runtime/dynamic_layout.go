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
	g       *fx.Graph
	padded  map[string]bool
	layouts map[string]layout // tensors with at least one padded dim
	symVals map[string]bool   // sym ints that depend on a padded symbol
	masks   map[string]string // sdpa node → symbol of its padded key dim
}

// analyzePadding checks the whole graph; the error is the reason why not.
func analyzePadding(g *fx.Graph, padded map[string]bool) (*padAnalysis, error) {
	a := &padAnalysis{g: g, padded: padded, layouts: map[string]layout{}, symVals: map[string]bool{}, masks: map[string]string{}}
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
	for _, n := range g.Nodes {
		if e, ok := aten.Lookup(n.Target); ok && e.Kind == aten.HostFallback {
			return nil, fmt.Errorf("node %s (%s) runs on the host", n.Name, n.Target)
		}
		if err := a.node(n); err != nil {
			return nil, fmt.Errorf("node %s (%s): %w", n.Name, n.Target, err)
		}
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
	if l.padded() {
		a.layouts[name] = l
	} else {
		delete(a.layouts, name)
	}
}

// op is the target without its ".default" overload.
func op(n *fx.Node) string { return strings.TrimSuffix(n.Target, ".default") }
