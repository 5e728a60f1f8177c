package pt2

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/fx"
)

// subgraph decodes a nested graph (a higher-order op's body).
func (d *decoder) subgraph(jg *jGraph) (*fx.Graph, error) {
	if d.depth >= maxGraphDepth {
		return nil, fmt.Errorf("graphs nested deeper than %d", maxGraphDepth)
	}
	d.depth++
	defer func() { d.depth-- }()
	return d.graph(jg)
}

// graph decodes a Graph and checks that every value is defined once and
// before it is used.
func (d *decoder) graph(jg *jGraph) (*fx.Graph, error) {
	g := &fx.Graph{
		Tensors:    make(map[string]*fx.TensorMeta, len(jg.TensorValues)),
		SymInts:    map[string]fx.SymValue{},
		SymFloats:  map[string]fx.SymValue{},
		SymBools:   map[string]fx.SymValue{},
		CustomObjs: map[string]string{},

		IsSingleTensorReturn: jg.IsSingleTensorReturn,
	}
	for name, tm := range jg.TensorValues {
		m, err := tensorMeta(&tm)
		if err != nil {
			return nil, fmt.Errorf("tensor_values[%q]: %w", name, err)
		}
		g.Tensors[name] = m
	}
	for name, raw := range jg.SymIntValues {
		v, err := symValue(raw, "as_int")
		if err != nil {
			return nil, fmt.Errorf("sym_int_values[%q]: %w", name, err)
		}
		g.SymInts[name] = v
	}
	for name, raw := range jg.SymFloatValues {
		v, err := symValue(raw, "as_float")
		if err != nil {
			return nil, fmt.Errorf("sym_float_values[%q]: %w", name, err)
		}
		g.SymFloats[name] = v
	}
	for name, raw := range jg.SymBoolValues {
		v, err := symValue(raw, "as_bool")
		if err != nil {
			return nil, fmt.Errorf("sym_bool_values[%q]: %w", name, err)
		}
		g.SymBools[name] = v
	}
	for name, c := range jg.CustomObjValues {
		g.CustomObjs[name] = c.ClassFQN
	}

	defined := map[string]string{} // value name → where it was defined
	define := func(names []string, where string) error {
		for _, n := range names {
			if prev, dup := defined[n]; dup {
				return fmt.Errorf("value %q defined twice (%s and %s)", n, prev, where)
			}
			defined[n] = where
		}
		return nil
	}
	for i, raw := range jg.Inputs {
		a, err := d.arg(raw)
		if err != nil {
			return nil, fmt.Errorf("graph input %d: %w", i, err)
		}
		if err := define(a.ValueNames(), fmt.Sprintf("graph input %d", i)); err != nil {
			return nil, err
		}
		g.Inputs = append(g.Inputs, a)
	}
	names := map[string]bool{}
	for i := range jg.Nodes {
		n, err := d.node(&jg.Nodes[i])
		if err != nil {
			return nil, fmt.Errorf("node %d (%s): %w", i, nodeLabel(&jg.Nodes[i]), err)
		}
		if n.Name == "" { // torch ≤ 2.7 wrote no names; output-less nodes get one
			n.Name = fmt.Sprintf("%s_%d", opBase(n.Target), i)
		}
		if names[n.Name] {
			return nil, fmt.Errorf("node %d: name %q used twice", i, n.Name)
		}
		names[n.Name] = true
		for _, in := range n.Inputs {
			for _, v := range in.Arg.ValueNames() {
				if _, ok := defined[v]; !ok {
					return nil, fmt.Errorf("node %s (%s): input %s uses %q before it is defined%s", n.Name, n.Target, in.Name, v, where(n))
				}
			}
		}
		if err := define(n.OutputNames(), "node "+n.Name); err != nil {
			return nil, fmt.Errorf("node %s%s: %w", n.Name, where(n), err)
		}
		g.Nodes = append(g.Nodes, n)
	}
	for i, raw := range jg.Outputs {
		a, err := d.arg(raw)
		if err != nil {
			return nil, fmt.Errorf("graph output %d: %w", i, err)
		}
		for _, v := range a.ValueNames() {
			if _, ok := defined[v]; !ok {
				return nil, fmt.Errorf("graph output %d uses undefined value %q", i, v)
			}
		}
		g.Outputs = append(g.Outputs, a)
	}
	g.Reindex()
	return g, nil
}

// opBase returns the op name of a target: "aten::_assert_scalar.default" →
// "_assert_scalar".
func opBase(target string) string {
	if _, rest, ok := strings.Cut(target, "::"); ok {
		target = rest
	}
	base, _, _ := strings.Cut(target, ".")
	return base
}

func nodeLabel(n *jNode) string {
	if n.Name != nil {
		return *n.Name + " = " + n.Target
	}
	return n.Target
}

func where(n *fx.Node) string {
	if s := n.SourceLine(); s != "" {
		return " [" + s + "]"
	}
	return ""
}

func (d *decoder) node(jn *jNode) (*fx.Node, error) {
	if jn.Target == "" {
		return nil, fmt.Errorf("node without a target")
	}
	n := &fx.Node{
		Target:    fx.NormalizeTarget(jn.Target),
		RawTarget: jn.Target,
		Meta:      jn.Metadata,
	}
	if n.Meta == nil {
		n.Meta = map[string]string{}
	}
	if jn.IsHopSingleTensorReturn != nil {
		n.IsHOPSingleTensorReturn = *jn.IsHopSingleTensorReturn
	}
	for i, in := range jn.Inputs {
		a, err := d.arg(in.Arg)
		if err != nil {
			return nil, fmt.Errorf("input %d (%s): %w", i, in.Name, err)
		}
		n.Inputs = append(n.Inputs, fx.NamedArg{Name: in.Name, Arg: a, Kwarg: in.Kind != nil && *in.Kind == 2})
	}
	for i, raw := range jn.Outputs {
		a, err := d.arg(raw)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		n.Outputs = append(n.Outputs, a)
	}
	switch {
	case jn.Name != nil && *jn.Name != "":
		n.Name = *jn.Name
	case len(n.OutputNames()) > 0:
		n.Name = n.OutputNames()[0]
	default:
		n.Name = "" // filled in by the caller if needed
	}
	return n, nil
}
