package pt2

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/sym"
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

// dim decodes a SymInt (as_int or as_expr) into a Dim.
func dim(raw json.RawMessage) (fx.Dim, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.Dim{}, err
	}
	switch tag {
	case "as_int":
		var n int64
		if err := unmarshal(v, &n); err != nil {
			return fx.Dim{}, err
		}
		return fx.StaticDim(n), nil
	case "as_expr":
		var e jSymExpr
		if err := unmarshal(v, &e); err != nil {
			return fx.Dim{}, err
		}
		x, err := sym.Parse(e.ExprStr)
		if err != nil {
			return fx.Dim{}, err
		}
		dm := fx.Dim{Expr: x}
		if c, ok := x.IsConst(); ok {
			return fx.StaticDim(c), nil
		}
		if len(e.Hint) > 0 && string(e.Hint) != "null" {
			var h int64
			if _, err := symArg(e.Hint, "as_int", &h); err == nil {
				dm.Hint, dm.HasHint = h, true
			}
		}
		return dm, nil
	}
	return fx.Dim{}, fmt.Errorf("unknown SymInt member %q", tag)
}

func tensorMeta(tm *jTensorMeta) (*fx.TensorMeta, error) {
	dt, err := scalarType(tm.DType)
	if err != nil {
		return nil, err
	}
	m := &fx.TensorMeta{DType: dt, RequiresGrad: tm.RequiresGrad, Device: convDevice(tm.Device), Layout: fx.Layout(tm.Layout)}
	static := make([]int64, 0, len(tm.Sizes))
	for i, raw := range tm.Sizes {
		dm, err := dim(raw)
		if err != nil {
			return nil, fmt.Errorf("sizes[%d]: %w", i, err)
		}
		if dm.IsStatic() {
			if dm.Static < 0 {
				return nil, fmt.Errorf("sizes[%d] is negative (%d)", i, dm.Static)
			}
			static = append(static, dm.Static)
		}
		m.Shape = append(m.Shape, dm)
	}
	if _, err := literal.NumElements(static); err != nil {
		return nil, err
	}
	for i, raw := range tm.Strides {
		dm, err := dim(raw)
		if err != nil {
			return nil, fmt.Errorf("strides[%d]: %w", i, err)
		}
		m.Strides = append(m.Strides, dm)
	}
	if len(tm.StorageOffset) > 0 && string(tm.StorageOffset) != "null" {
		if m.StorageOffset, err = dim(tm.StorageOffset); err != nil {
			return nil, fmt.Errorf("storage_offset: %w", err)
		}
	}
	return m, nil
}

// symValue decodes a SymInt / SymFloat / SymBool value entry.
func symValue(raw json.RawMessage, constTag string) (fx.SymValue, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.SymValue{}, err
	}
	var s fx.SymValue
	switch tag {
	case constTag:
		return s, constInto(&s, constTag, v)
	case "as_expr":
		var e jSymExpr
		if err := unmarshal(v, &e); err != nil {
			return s, err
		}
		if s.Expr, err = sym.Parse(e.ExprStr); err != nil {
			return s, err
		}
		if len(e.Hint) > 0 && string(e.Hint) != "null" {
			ht, hv, err := union(e.Hint)
			if err != nil {
				return s, fmt.Errorf("hint: %w", err)
			}
			if err := constInto(&s, ht, hv); err != nil {
				return s, fmt.Errorf("hint: %w", err)
			}
			s.HasHint = true
		}
		return s, nil
	}
	return s, fmt.Errorf("unknown member %q", tag)
}

func constInto(s *fx.SymValue, tag string, v json.RawMessage) error {
	switch tag {
	case "as_int":
		return unmarshal(v, &s.Int)
	case "as_float":
		var f jfloat
		err := unmarshal(v, &f)
		s.Float = float64(f)
		return err
	case "as_bool":
		return unmarshal(v, &s.Bool)
	}
	return fmt.Errorf("unknown member %q", tag)
}
