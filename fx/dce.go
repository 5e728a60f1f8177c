package fx

// DCE removes pure nodes none of whose outputs is used, repeating until
// nothing changes (it walks backwards, so one sweep usually suffices).
// Impure nodes (mutation, randomness, assertions, higher-order and
// extension ops) always stay.
func DCE(g *Graph, ops OpInfo) (bool, error) {
	uses := g.useCounts()
	changed := false
	keep := make([]bool, len(g.Nodes))
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		keep[i] = true
		if ops.Impure(n) {
			continue
		}
		used := false
		for _, v := range n.OutputNames() {
			if uses[v] > 0 {
				used = true
				break
			}
		}
		if used {
			continue
		}
		keep[i] = false
		changed = true
		for _, in := range n.Inputs {
			for _, v := range in.Arg.ValueNames() {
				uses[v]--
			}
		}
	}
	if !changed {
		return false, nil
	}
	out := g.Nodes[:0]
	for i, n := range g.Nodes {
		if keep[i] {
			out = append(out, n)
		} else {
			for _, v := range n.OutputNames() {
				delete(g.Tensors, v)
			}
		}
	}
	g.Nodes = out
	g.Reindex()
	return true, nil
}
