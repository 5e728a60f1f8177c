package runtime

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// maskedAttention lowers scaled_dot_product_attention (or the fused CPU
// op) with the key
// positions at or past the actual length masked out, and the padded key
// and value rows zeroed (so that nothing computed there, not even a NaN,
// reaches a valid position).
func (r *run) maskedAttention(n *fx.Node, km keyMask, lens map[string]*literal.Literal) error {
	e, ok := aten.Lookup(n.Target)
	if !ok {
		return fmt.Errorf("op %s is not supported", n.Target)
	}
	args, err := r.bind(e, n, false)
	if err != nil {
		return err
	}
	c := r.seg.ctx
	c.Loc = stablehlo.Loc{File: n.Name}
	length := func(sym string, off int64) *stablehlo.Value {
		l := r.seg.param(lens[sym])
		if off != 0 { // s+off keys: static pieces concatenated with the padded one
			l = c.Binary("add", l, c.SplatInt(dtype.I64, nil, off))
		}
		return l
	}
	lenV := length(km.sym, km.off)
	keep := func(v, n *stablehlo.Value, dim int) *stablehlo.Value {
		shape := c.Shape(v)
		return c.Compare("LT", c.Iota(dtype.I64, shape, dim), c.BroadcastInDim(n, shape, nil))
	}
	for _, p := range []struct {
		name string
		n    *stablehlo.Value
	}{{"key", lenV}, {"value", length(km.vsym, km.voff)}} {
		i := args.Schema.Param(p.name)
		v := args.Values[i].T
		if v == nil {
			return fmt.Errorf("%s is not a tensor", p.name)
		}
		args.Values[i] = aten.TensorValue(c.Select(keep(v, p.n, c.Rank(v)-2), v, c.Like(v, 0)))
	}
	k := args.Values[args.Schema.Param("key")].T
	S := c.Shape(k)[c.Rank(k)-2]
	mask := c.Compare("LT", c.Iota(dtype.I64, []int64{S}, 0), c.BroadcastInDim(lenV, []int64{S}, nil))
	mi := args.Schema.Param("attn_mask")
	if user := args.Values[mi].T; user != nil {
		// the caller's mask where the key is real, masked out past it
		ms := append([]int64(nil), c.Shape(user)...)
		if len(ms) == 0 {
			ms = []int64{S}
		}
		ms[len(ms)-1] = S
		user = c.BroadcastTo(user, ms)
		keyOK := c.BroadcastInDim(mask, ms, []int64{int64(len(ms) - 1)})
		if c.DType(user) == dtype.Bool {
			mask = c.Binary("and", user, keyOK)
		} else {
			mask = c.Select(keyOK, user, c.Like(user, math.Inf(-1)))
		}
	}
	args.Values[mi] = aten.TensorValue(mask)
	res, err := e.Call(c, args)
	if err != nil {
		return err
	}
	return r.define(n, res)
}

// maskedNode lowers a node that reads across padded dims with those
// positions of its inputs replaced by the op's identity (spec.inputs);
// a mean is lowered as the masked sum over the actual count.
func (r *run) maskedNode(i int, n *fx.Node, spec maskSpec, lens map[string]*literal.Literal) error {
	e, ok := aten.Lookup(n.Target)
	if !ok {
		return fmt.Errorf("op %s is not supported", n.Target)
	}
	args, err := r.bind(e, n, false)
	if err != nil {
		return err
	}
	c := r.seg.ctx
	c.Loc = stablehlo.Loc{File: n.Name, Line: i + 1, Col: 1}
	for _, mi := range spec.inputs {
		p := args.Schema.Param(mi.param)
		if p < 0 || args.Values[p].T == nil {
			return fmt.Errorf("%s: no tensor argument %s to mask", n.Name, mi.param)
		}
		v := args.Values[p].T
		shape := c.Shape(v)
		lenV := r.seg.param(lens[mi.sym])
		if mi.off != 0 {
			lenV = c.Binary("add", lenV, c.SplatInt(dtype.I64, nil, mi.off))
		}
		keep := c.Compare("LT", c.Iota(dtype.I64, shape, mi.dim), c.BroadcastInDim(lenV, shape, nil))
		fill, err := fillValue(c, v, mi.fill)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
		args.Values[p] = aten.TensorValue(c.Select(keep, v, fill))
	}
	if !spec.mean {
		res, err := e.Call(c, args)
		if err != nil {
			return err
		}
		return r.define(n, res)
	}
	// mean: the sum of the masked input over the actual count.
	x := args.Values[args.Schema.Param("self")].T
	kw := map[string]aten.Value{"self": aten.TensorValue(x)}
	for _, name := range []string{"dim", "keepdim", "dtype"} {
		if p := args.Schema.Param(name); p >= 0 {
			kw[name] = args.Values[p]
		}
	}
	target := "aten::sum.dim_IntList"
	if _, has := kw["dim"]; !has {
		target = "aten::sum.default"
		delete(kw, "keepdim")
	}
	sums, err := c.Call(target, nil, kw)
	if err != nil {
		return err
	}
	sum := sums[0].T
	dims, _ := reduceDimsOf(n, c.Rank(x))
	count := c.Convert(c.SplatInt(dtype.I64, nil, 1), c.DType(sum))
	static := int64(1)
	masked := map[int]maskInput{}
	for _, mi := range spec.inputs {
		masked[mi.dim] = mi
	}
	for _, d := range dims {
		if mi, ok := masked[d]; ok {
			n := r.seg.param(lens[mi.sym])
			if mi.off != 0 {
				n = c.Binary("add", n, c.SplatInt(dtype.I64, nil, mi.off))
			}
			count = c.Binary("multiply", count, c.Convert(n, c.DType(sum)))
		} else {
			static *= c.Shape(x)[d]
		}
	}
	count = c.Binary("multiply", count, c.Convert(c.SplatInt(dtype.I64, nil, static), c.DType(sum)))
	res := c.Binary("divide", sum, c.BroadcastInDim(count, c.Shape(sum), nil))
	return r.define(n, []aten.Value{aten.TensorValue(res)})
}

// fillValue is the identity a mask puts at padded positions, broadcast
// to v's shape.
func fillValue(c *aten.LowerCtx, v *stablehlo.Value, kind string) (*stablehlo.Value, error) {
	d := c.DType(v)
	switch kind {
	case "zero", "false":
		return c.Like(v, 0), nil
	case "one", "true":
		return c.Like(v, 1), nil
	case "-inf", "+inf":
		neg := kind == "-inf"
		switch {
		case d.IsFloat():
			if neg {
				return c.Like(v, math.Inf(-1)), nil
			}
			return c.Like(v, math.Inf(1)), nil
		case d == dtype.Bool:
			if neg {
				return c.Like(v, 0), nil
			}
			return c.Like(v, 1), nil
		case d.IsInteger():
			lo, hi := intRange(d)
			if neg {
				return c.BroadcastInDim(c.SplatInt(d, nil, lo), c.Shape(v), nil), nil
			}
			return c.BroadcastInDim(c.SplatInt(d, nil, hi), c.Shape(v), nil), nil
		}
	}
	return nil, fmt.Errorf("no %s mask for %v", kind, d)
}

// intRange is the least and greatest value of an integer dtype.
func intRange(d dtype.DType) (int64, int64) {
	bits := d.Bits()
	if d.IsUnsigned() {
		if bits >= 64 {
			return 0, -1 // all ones
		}
		return 0, int64(1)<<bits - 1
	}
	if bits >= 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -(int64(1) << (bits - 1)), int64(1)<<(bits-1) - 1
}

// tailSlice lowers x[..., start:, ...] (start < 0) along a padded dim as
// a dynamic_slice that starts start positions before the actual end.
func (r *run) tailSlice(i int, n *fx.Node, ts tailSlice, lens map[string]*literal.Literal) error {
	x, err := r.tensor(tensorArg(n, "self"), false)
	if err != nil {
		return err
	}
	c := r.seg.ctx
	c.Loc = stablehlo.Loc{File: n.Name, Line: i + 1, Col: 1}
	m := r.p.Graph.Tensor(n.Outputs[0].Name)
	if m == nil || x.T == nil {
		return fmt.Errorf("%s: no shapes", n.Name)
	}
	shape := c.Shape(x.T)
	sizes := append([]int64{}, shape...)
	sizes[ts.dim] = m.Shape[ts.dim].Static
	starts := make([]*stablehlo.Value, len(shape))
	for d := range starts {
		starts[d] = c.SplatInt(dtype.I64, nil, 0)
	}
	starts[ts.dim] = c.Binary("add", r.seg.param(lens[ts.sym]), c.SplatInt(dtype.I64, nil, ts.off+ts.start))
	ops := append([]*stablehlo.Value{x.T}, starts...)
	out := c.Op1("stablehlo.dynamic_slice", ops, []stablehlo.NamedAttr{{Name: "slice_sizes", Value: stablehlo.I64s(sizes...)}})
	return r.define(n, []aten.Value{aten.TensorValue(out)})
}

// catTail lowers a concatenation whose pieces after the padded one must
// follow its actual end: the pieces are concatenated as they are (those
// after land past the padding), then written again at the actual end.
func (r *run) catTail(i int, n *fx.Node, ct catTail, lens map[string]*literal.Literal) error {
	e, ok := aten.Lookup(n.Target)
	if !ok {
		return fmt.Errorf("op %s is not supported", n.Target)
	}
	args, err := r.bind(e, n, false)
	if err != nil {
		return err
	}
	c := r.seg.ctx
	c.Loc = stablehlo.Loc{File: n.Name, Line: i + 1, Col: 1}
	res, err := e.Call(c, args)
	if err != nil {
		return err
	}
	if len(res) != 1 || res[0].T == nil {
		return fmt.Errorf("%s: cat gave %d results", n.Name, len(res))
	}
	var pieces []*stablehlo.Value
	for _, v := range args.Values[args.Schema.Param("tensors")].List {
		pieces = append(pieces, v.T)
	}
	if ct.piece+1 >= len(pieces) {
		return fmt.Errorf("%s: no pieces after the padded one", n.Name)
	}
	tail := pieces[ct.piece+1:]
	var upd *stablehlo.Value
	if len(tail) == 1 {
		upd = tail[0]
	} else {
		upd = c.Op1("stablehlo.concatenate", tail, []stablehlo.NamedAttr{{Name: "dimension", Value: &stablehlo.IntAttr{Value: int64(ct.dim), Type: stablehlo.Elem(dtype.I64)}}})
	}
	out := res[0].T
	upd = c.Convert(upd, c.DType(out))
	starts := make([]*stablehlo.Value, c.Rank(out))
	for d := range starts {
		starts[d] = c.SplatInt(dtype.I64, nil, 0)
	}
	starts[ct.dim] = c.Binary("add", r.seg.param(lens[ct.sym]), c.SplatInt(dtype.I64, nil, ct.off))
	out = c.Op1("stablehlo.dynamic_update_slice", append([]*stablehlo.Value{out, upd}, starts...), nil)
	return r.define(n, []aten.Value{aten.TensorValue(out)})
}
