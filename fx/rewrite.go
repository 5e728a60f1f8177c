package fx

// renameArg rewrites the value names a refers to through m (not inside
// subgraphs, which have their own scope).
func renameArg(a *Arg, m map[string]string) {
	sub := func(s string) string {
		if t, ok := m[s]; ok {
			return t
		}
		return s
	}
	if a.Name != "" && (a.Kind == ArgTensor || a.Kind == ArgOptionalTensor || a.Kind == ArgToken || a.Kind == ArgCustomObj) {
		a.Name = sub(a.Name)
	}
	for i := range a.Names {
		if a.Names[i] != "" {
			a.Names[i] = sub(a.Names[i])
		}
	}
	for _, l := range a.NestedNames {
		for i := range l {
			l[i] = sub(l[i])
		}
	}
	for i := range a.SymInts {
		a.SymInts[i].Name = sub(a.SymInts[i].Name)
	}
	for i := range a.SymFloats {
		a.SymFloats[i].Name = sub(a.SymFloats[i].Name)
	}
	for i := range a.SymBools {
		a.SymBools[i].Name = sub(a.SymBools[i].Name)
	}
	for _, v := range a.Map {
		renameArg(v, m)
	}
}

// renameUses rewrites the uses of values in nodes[from:] and in the graph
// outputs (and their signature specs) through m.
func (g *Graph) renameUses(from int, m map[string]string) {
	if len(m) == 0 {
		return
	}
	for _, n := range g.Nodes[from:] {
		for i := range n.Inputs {
			renameArg(&n.Inputs[i].Arg, m)
		}
	}
	for i := range g.Outputs {
		renameArg(&g.Outputs[i], m)
	}
	if g.Signature != nil {
		for i := range g.Signature.Outputs {
			renameArg(&g.Signature.Outputs[i].Arg, m)
		}
	}
}

// useCounts counts the uses of each value by nodes and graph outputs.
func (g *Graph) useCounts() map[string]int {
	uses := map[string]int{}
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			for _, v := range in.Arg.ValueNames() {
				uses[v]++
			}
		}
	}
	for _, o := range g.Outputs {
		for _, v := range o.ValueNames() {
			uses[v]++
		}
	}
	return uses
}
