package fx

// Clone returns a deep copy of g, so that passes can rewrite it while the
// original stays intact. TensorMeta and symbolic expressions, which passes
// treat as immutable, are shared.
func (g *Graph) Clone() *Graph {
	if g == nil {
		return nil
	}
	c := &Graph{
		Inputs:               cloneArgs(g.Inputs),
		Outputs:              cloneArgs(g.Outputs),
		Tensors:              make(map[string]*TensorMeta, len(g.Tensors)),
		SymInts:              cloneMap(g.SymInts),
		SymFloats:            cloneMap(g.SymFloats),
		SymBools:             cloneMap(g.SymBools),
		CustomObjs:           cloneMap(g.CustomObjs),
		IsSingleTensorReturn: g.IsSingleTensorReturn,
		Ranges:               cloneMap(g.Ranges),
	}
	for k, v := range g.Tensors {
		c.Tensors[k] = v
	}
	for _, n := range g.Nodes {
		m := *n
		m.Inputs = make([]NamedArg, len(n.Inputs))
		for i, in := range n.Inputs {
			m.Inputs[i] = NamedArg{Name: in.Name, Arg: in.Arg.Clone(), Kwarg: in.Kwarg}
		}
		m.Outputs = cloneArgs(n.Outputs)
		m.Meta = cloneMap(n.Meta)
		c.Nodes = append(c.Nodes, &m)
	}
	if s := g.Signature; s != nil {
		cs := &Signature{}
		for _, in := range s.Inputs {
			in.Arg, in.Value = in.Arg.Clone(), in.Value.Clone()
			cs.Inputs = append(cs.Inputs, in)
		}
		for _, o := range s.Outputs {
			o.Arg = o.Arg.Clone()
			cs.Outputs = append(cs.Outputs, o)
		}
		c.Signature = cs
	}
	c.Reindex()
	return c
}

// Clone returns a deep copy of a (subgraphs included).
func (a Arg) Clone() Arg {
	a.Names = append([]string(nil), a.Names...)
	if a.NestedNames != nil {
		nn := make([][]string, len(a.NestedNames))
		for i, l := range a.NestedNames {
			nn[i] = append([]string(nil), l...)
		}
		a.NestedNames = nn
	}
	a.Ints = append([]int64(nil), a.Ints...)
	a.Floats = append([]float64(nil), a.Floats...)
	a.Bools = append([]bool(nil), a.Bools...)
	a.Strs = append([]string(nil), a.Strs...)
	a.SymInts = append([]SymInt(nil), a.SymInts...)
	a.SymFloats = append([]SymFloat(nil), a.SymFloats...)
	a.SymBools = append([]SymBool(nil), a.SymBools...)
	if a.IntLists != nil {
		l := make([][]int64, len(a.IntLists))
		for i, x := range a.IntLists {
			l[i] = append([]int64(nil), x...)
		}
		a.IntLists = l
	}
	if a.FloatLists != nil {
		l := make([][]float64, len(a.FloatLists))
		for i, x := range a.FloatLists {
			l[i] = append([]float64(nil), x...)
		}
		a.FloatLists = l
	}
	if a.Map != nil {
		m := make(map[string]*Arg, len(a.Map))
		for k, v := range a.Map {
			cv := v.Clone()
			m[k] = &cv
		}
		a.Map = m
	}
	a.Graph = a.Graph.Clone()
	return a
}

func cloneArgs(in []Arg) []Arg {
	if in == nil {
		return nil
	}
	out := make([]Arg, len(in))
	for i, a := range in {
		out[i] = a.Clone()
	}
	return out
}

func cloneMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
