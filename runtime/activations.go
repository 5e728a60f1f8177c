package runtime

import (
	"strings"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/sym"
)

// ActivationBytes estimates the peak bytes of live activations when the
// program runs on inputs: it walks the graph in order, holding each value
// (the user inputs and every node's tensor outputs, not the weights) from
// the node that makes it to its last use, and returns the largest sum. It
// is what an executor that frees every value after its last use and fuses
// nothing needs at least; a fusing backend may hold less, one that keeps
// freed buffers for later runs more.
//
// Values whose size the graph leaves to the data (unbacked symbols) are
// not counted; unknown says how many there were.
func (p *Program) ActivationBytes(inputs []*literal.Literal) (peak int64, unknown int) {
	g := p.Graph
	bound := map[string]int64{}
	// dies[i] lists the values freed after node i, with their bytes.
	dies := make([][]int64, len(g.Nodes)+1)
	hold := func(name string, at int, bytes int64) {
		last, used := p.lastUse[name]
		if !used || last < at {
			last = at // never used: freed right after it is made
		}
		dies[min(last, len(g.Nodes))] = append(dies[min(last, len(g.Nodes))], bytes)
	}
	var live int64
	for i, name := range p.userTensorInputs() {
		m := g.Tensor(name)
		if m == nil || i >= len(inputs) || inputs[i] == nil {
			continue
		}
		for d, dim := range m.Shape {
			if !dim.IsStatic() && dim.Expr.Op == sym.OpSymbol && d < len(inputs[i].Shape) {
				bound[dim.Expr.Name] = inputs[i].Shape[d]
			}
		}
		b := int64(len(inputs[i].Data))
		live += b
		hold(name, 0, b)
	}
	peak = live
	for i, n := range g.Nodes {
		if !aliasesInput(n) {
			for _, name := range n.OutputNames() {
				m := g.Tensor(name)
				if m == nil {
					continue
				}
				shape, err := m.EvalShape(bound)
				if err != nil {
					unknown++
					continue
				}
				elems, err := literal.NumElements(shape)
				if err != nil {
					unknown++
					continue
				}
				b := elems * int64(m.DType.Size())
				live += b
				hold(name, i, b)
			}
		}
		peak = max(peak, live)
		for _, b := range dies[i] {
			live -= b
		}
	}
	return peak, unknown
}

// aliasesInput reports whether a node only relabels its input's elements
// (a reshape): every backend can give it the input's memory, so it holds
// no bytes of its own.
func aliasesInput(n *fx.Node) bool {
	op := strings.TrimPrefix(n.Target, "aten::")
	op, _, _ = strings.Cut(op, ".")
	switch op {
	case "view", "_unsafe_view", "reshape", "squeeze", "unsqueeze", "flatten", "alias", "detach":
		return true
	}
	return false
}
