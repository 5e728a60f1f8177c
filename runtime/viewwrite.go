package runtime

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/fx"
)

// In-place writes into views. PyTorch's `mask[a:b, c:d] = k` (slice, then
// fill_/copy_ on the slice) changes the base tensor too; the default export
// keeps that as an in-place op on the output of a view op. After such an op
// the runtime rebinds the view to the result and, here, writes it back into
// the view's base through the matching *_scatter op (or the inverse
// reshape/permutation), up the chain of views to the tensor that owns the
// storage. Views created before the write from the same base keep their old
// values (rare in exported programs).

// writeBack propagates the new value v of name into the base name is a view
// of, if it is one.
func (r *run) writeBack(name string, v aten.Value) error {
	for depth := 0; depth < 64; depth++ {
		p := r.p.Graph.Producer(name) // nil for graph inputs
		if p == nil {
			return nil
		}
		op := viewOpName(p.Target)
		if op == "" {
			return nil
		}
		base, ok := p.Input("self")
		if !ok || base.Kind != fx.ArgTensor || base.Name == "" {
			return nil
		}
		e, ok := aten.Lookup(p.Target)
		if !ok {
			return nil
		}
		args, err := r.bind(e, p, false)
		if err != nil {
			return fmt.Errorf("writing %s back into %s: %w", name, base.Name, err)
		}
		src, err := r.tensor(name, false)
		if err != nil {
			return err
		}
		nb, err := r.scatterInto(op, args, src)
		if err != nil {
			return fmt.Errorf("in-place write into %s, a view made by %s (%s) of %s: %w", name, p.Name, p.Target, base.Name, err)
		}
		r.env[base.Name] = nb
		name, v = base.Name, nb
	}
	return fmt.Errorf("in-place write into %s: view chain too deep", name)
}

// viewOpName returns the aliasing view op a target names ("slice" for
// aten::slice.Tensor), or "".
func viewOpName(target string) string {
	t := strings.TrimPrefix(target, "aten::")
	if t == target {
		return ""
	}
	op, _, _ := strings.Cut(t, ".")
	if strings.HasSuffix(op, "_") && !strings.HasSuffix(op, "__") {
		return "inplace" // returns its mutated self: an alias of it
	}
	switch op {
	case "slice", "select", "diagonal", "view", "_unsafe_view", "unsqueeze", "squeeze", "alias",
		"detach", "transpose", "t", "permute", "as_strided", "narrow", "view_as", "unflatten":
		return op
	}
	return ""
}

// scatterInto returns the base of the view args describe with the view's
// elements replaced by src.
func (r *run) scatterInto(op string, args *aten.Args, src aten.Value) (aten.Value, error) {
	base := args.Value("self")
	call := func(name string, kw map[string]aten.Value) (aten.Value, error) {
		e, ok := aten.Lookup(name)
		if !ok {
			return aten.None(), fmt.Errorf("%s is not registered", name)
		}
		a, err := aten.Bind(e.ParsedSchema(), nil, kw)
		if err != nil {
			return aten.None(), err
		}
		res, err := e.Call(r.seg.ctx, a)
		if err != nil {
			return aten.None(), err
		}
		if len(res) == 0 {
			return aten.None(), fmt.Errorf("%s returned nothing", name)
		}
		return res[0], nil
	}
	kw := func(names ...string) map[string]aten.Value {
		m := map[string]aten.Value{"self": base, "src": src}
		for _, n := range names {
			if args.Has(n) {
				m[n] = args.Value(n)
			}
		}
		return m
	}
	switch op {
	case "inplace":
		return src, nil
	case "slice":
		return call("aten::slice_scatter", kw("dim", "start", "end", "step"))
	case "narrow":
		m := kw("dim")
		start := args.Value("start")
		m["start"] = start
		if start.Kind == aten.KInt && args.Value("length").Kind == aten.KInt {
			m["end"] = aten.IntValue(start.I + args.Value("length").I)
		}
		return call("aten::slice_scatter", m)
	case "select":
		return call("aten::select_scatter", kw("dim", "index"))
	case "diagonal":
		return call("aten::diagonal_scatter", kw("offset", "dim1", "dim2"))
	case "as_strided":
		return call("aten::as_strided_scatter", kw("size", "stride", "storage_offset"))
	case "transpose":
		return call("aten::transpose.int", map[string]aten.Value{"self": src, "dim0": args.Value("dim0"), "dim1": args.Value("dim1")})
	case "t":
		return call("aten::t", map[string]aten.Value{"self": src})
	case "permute":
		dims := args.Value("dims")
		inv := make([]int64, len(dims.List))
		for i, d := range dims.List {
			k := d.I
			if k < 0 {
				k += int64(len(inv))
			}
			if k < 0 || k >= int64(len(inv)) {
				return aten.None(), fmt.Errorf("permutation %v", dims)
			}
			inv[k] = int64(i)
		}
		return call("aten::permute", map[string]aten.Value{"self": src, "dims": aten.IntsValue(inv)})
	}
	// view, _unsafe_view, unsqueeze, squeeze, alias, detach, view_as,
	// unflatten: same elements in the base's shape.
	t := base.TensorType()
	if t == nil {
		return aten.None(), fmt.Errorf("base is not a tensor of the open segment")
	}
	return call("aten::reshape", map[string]aten.Value{"self": src, "shape": aten.IntsValue(t.Shape)})
}
