package fx

import "fmt"

// Verify checks the graph's invariants: every value is defined once (by a
// graph input or a node output) before it is used, node names are unique,
// the signature matches the inputs and outputs, and subgraphs verify too.
func (g *Graph) Verify() error { return g.verify(0) }

func (g *Graph) verify(depth int) error {
	if depth > 64 {
		return fmt.Errorf("fx: graphs nested too deeply")
	}
	defined := map[string]bool{}
	for i, in := range g.Inputs {
		for _, v := range in.ValueNames() {
			if defined[v] {
				return fmt.Errorf("fx: graph input %d redefines %q", i, v)
			}
			defined[v] = true
		}
	}
	names := map[string]bool{}
	for i, n := range g.Nodes {
		if n.Name == "" || names[n.Name] {
			return fmt.Errorf("fx: node %d (%s): empty or repeated name %q", i, n.Target, n.Name)
		}
		names[n.Name] = true
		for _, in := range n.Inputs {
			for _, v := range in.Arg.ValueNames() {
				if !defined[v] {
					return fmt.Errorf("fx: node %s (%s): input %s uses %q before it is defined", n.Name, n.Target, in.Name, v)
				}
			}
			if in.Arg.Kind == ArgGraph && in.Arg.Graph != nil {
				if err := in.Arg.Graph.verify(depth + 1); err != nil {
					return fmt.Errorf("node %s: subgraph %s: %w", n.Name, in.Arg.Name, err)
				}
			}
		}
		for _, v := range n.OutputNames() {
			if defined[v] {
				return fmt.Errorf("fx: node %s (%s) redefines %q", n.Name, n.Target, v)
			}
			defined[v] = true
		}
	}
	for i, o := range g.Outputs {
		for _, v := range o.ValueNames() {
			if !defined[v] {
				return fmt.Errorf("fx: graph output %d uses undefined %q", i, v)
			}
		}
	}
	if s := g.Signature; s != nil {
		if len(s.Inputs) != len(g.Inputs) || len(s.Outputs) != len(g.Outputs) {
			return fmt.Errorf("fx: signature has %d inputs and %d outputs, graph %d and %d",
				len(s.Inputs), len(s.Outputs), len(g.Inputs), len(g.Outputs))
		}
		for i, o := range s.Outputs {
			if fmt.Sprint(o.Arg.ValueNames()) != fmt.Sprint(g.Outputs[i].ValueNames()) {
				return fmt.Errorf("fx: output spec %d names %v, graph output is %v", i, o.Arg.ValueNames(), g.Outputs[i].ValueNames())
			}
		}
	}
	return nil
}
