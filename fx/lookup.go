package fx

// ValueKind says what kind of value a name denotes.
type ValueKind uint8

// Value kinds.
const (
	ValueUnknown ValueKind = iota
	ValueTensor
	ValueSymInt
	ValueSymFloat
	ValueSymBool
	ValueCustomObj
	ValueToken
)

// Value is what the graph knows about one named value.
type Value struct {
	Name   string
	Kind   ValueKind
	Tensor *TensorMeta // ValueTensor
	Sym    SymValue    // ValueSym*
	Class  string      // ValueCustomObj: the class FQN
	// Producer is the node that outputs the value; nil for graph inputs.
	Producer *Node
}

// Value looks a value up by name.
func (g *Graph) Value(name string) (Value, bool) {
	v := Value{Name: name, Producer: g.Producer(name)}
	if t, ok := g.Tensors[name]; ok {
		v.Kind, v.Tensor = ValueTensor, t
	} else if s, ok := g.SymInts[name]; ok {
		v.Kind, v.Sym = ValueSymInt, s
	} else if s, ok := g.SymFloats[name]; ok {
		v.Kind, v.Sym = ValueSymFloat, s
	} else if s, ok := g.SymBools[name]; ok {
		v.Kind, v.Sym = ValueSymBool, s
	} else if c, ok := g.CustomObjs[name]; ok {
		v.Kind, v.Class = ValueCustomObj, c
	} else if g.isToken(name) {
		v.Kind = ValueToken
	} else {
		return v, v.Producer != nil
	}
	return v, true
}

func (g *Graph) isToken(name string) bool {
	for _, in := range g.Inputs {
		if in.Kind == ArgToken && in.Name == name {
			return true
		}
	}
	return false
}

// Tensor returns the TensorMeta of a tensor value, or nil.
func (g *Graph) Tensor(name string) *TensorMeta { return g.Tensors[name] }

// Producer returns the node whose outputs include name, or nil.
func (g *Graph) Producer(name string) *Node {
	if g.producer == nil {
		g.Reindex()
	}
	return g.producer[name]
}

// Reindex rebuilds the name → producer index; call it after editing Nodes.
func (g *Graph) Reindex() {
	g.producer = map[string]*Node{}
	for _, n := range g.Nodes {
		for _, name := range n.OutputNames() {
			g.producer[name] = n
		}
	}
}

// Users returns the nodes that read name, in order (not looking inside
// subgraphs, which have their own names).
func (g *Graph) Users(name string) []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		for _, a := range n.Inputs {
			if contains(a.Arg.ValueNames(), name) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// Node returns the node with the given name, or nil.
func (g *Graph) Node(name string) *Node {
	for _, n := range g.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// UserInputs returns the user_input specs in order, those whose value the
// export baked in as a constant included: the tensors among them are the
// `input.N` tensors of an I/O file, in that order.
func (g *Graph) UserInputs() []InputSpec {
	if g.Signature == nil {
		return nil
	}
	var out []InputSpec
	for _, s := range g.Signature.Inputs {
		if s.Kind == InputUser {
			out = append(out, s)
		}
	}
	return out
}

// UserOutputs returns the user_output specs in order (`output.N`).
func (g *Graph) UserOutputs() []OutputSpec {
	if g.Signature == nil {
		return nil
	}
	var out []OutputSpec
	for _, s := range g.Signature.Outputs {
		if s.Kind == OutputUser {
			out = append(out, s)
		}
	}
	return out
}

// OpCounts returns how many nodes call each target, including nodes in
// subgraphs.
func (g *Graph) OpCounts() map[string]int {
	m := map[string]int{}
	var walk func(*Graph)
	walk = func(g *Graph) {
		for _, n := range g.Nodes {
			m[n.Target]++
			for _, sg := range n.Subgraphs() {
				walk(sg)
			}
		}
	}
	walk(g)
	return m
}

// Symbols returns the size symbols that appear in the input tensors' shapes,
// sorted.
func (g *Graph) Symbols() []string {
	seen := map[string]bool{}
	for _, in := range g.Inputs {
		if in.Kind == ArgTensor {
			if t := g.Tensors[in.Name]; t != nil {
				for _, s := range t.Symbols() {
					seen[s] = true
				}
			}
		}
	}
	return sortedKeys(seen)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
