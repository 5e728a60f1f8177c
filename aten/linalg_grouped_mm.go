package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Grouped matrix products: the experts of a mixture-of-experts layer.
// aten::_grouped_mm (torch.nn.functional.grouped_mm) takes offs, the
// cumulative ends of the groups along one axis (int32, data the program
// reads at run time); transformers' MoE layers export their portable
// fallback as transformers::grouped_mm_fallback (2D x 3D only, offs int32
// or int64) with a backward op of its own.
//
// Groups are data, shapes are not: each group's product is computed over
// the whole axis and its rows (or columns) selected, G products where a
// device kernel would do one; the number of groups G is the static size
// of offs. Rows past the last offset, which PyTorch leaves uninitialised,
// are zero here.

func init() {
	lower("aten::_grouped_mm.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, w, offs := a.Tensor("self"), a.Tensor("mat2"), a.OptTensor("offs")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if a.Has("bias") {
			return nil, c.Errorf("_grouped_mm: Bias tensor provided, but it is not supported yet.")
		}
		if d, ok := a.OptDType("out_dtype"); ok && d != c.DType(x) {
			return nil, c.Errorf("_grouped_mm: Grouped gemm output dtype must match `mat_a` dtype.")
		}
		return groupedMM(c, x, w, offs)
	})
	Register(Entry{Name: "transformers::grouped_mm_fallback",
		Schema: "transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor",
		Kind:   Decomposed, Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			x, w, offs := a.Tensor("input"), a.Tensor("weight"), a.Tensor("offs")
			if a.Err() != nil {
				return nil, a.Err()
			}
			if c.Rank(x) != 2 || c.Rank(w) != 3 {
				return nil, c.Errorf("grouped_mm_fallback: want a 2D input and 3D weight, have %v and %v", c.Shape(x), c.Shape(w))
			}
			return groupedMM(c, x, w, offs)
		}})
	Register(Entry{Name: "transformers::grouped_mm_fallback_backward",
		Schema: "transformers::grouped_mm_fallback_backward(Tensor input, Tensor weight, Tensor offs, Tensor grad_output) -> (Tensor, Tensor)",
		Kind:   Decomposed, Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			x, w, offs, g := a.Tensor("input"), a.Tensor("weight"), a.Tensor("offs"), a.Tensor("grad_output")
			if a.Err() != nil {
				return nil, a.Err()
			}
			if c.Rank(x) != 2 || c.Rank(w) != 3 || c.Rank(g) != 2 {
				return nil, c.Errorf("grouped_mm_fallback_backward: want 2D input, 3D weight, 2D grad_output")
			}
			groups := c.Shape(w)[0]
			gid := groupIDs(c, offs, c.Shape(x)[0])
			var gradIn *stablehlo.Value
			gradW := make([]Value, groups)
			for e := int64(0); e < groups; e++ {
				we := c.Call1("aten::select.int", TensorValue(w), IntValue(0), IntValue(e))
				rows := inGroup(c, gid, e)
				gi := c.Call1("aten::mm.default", TensorValue(g), TensorValue(c.Call1("aten::t.default", TensorValue(we))))
				gradIn = pickRows(c, rows, gi, gradIn)
				xe := pickRows(c, rows, x, nil)
				gradW[e] = TensorValue(c.Call1("aten::mm.default", TensorValue(c.Call1("aten::t.default", TensorValue(xe))), TensorValue(g)))
			}
			st, err := c.Call("aten::stack.default", []Value{ListValue(gradW...)}, nil)
			if err != nil {
				return nil, err
			}
			return []Value{TensorValue(gradIn), st[0]}, nil
		}})
}

// groupedMM computes _grouped_mm for its four layouts.
func groupedMM(c *LowerCtx, x, w, offs *stablehlo.Value) ([]Value, error) {
	mm := func(p, q *stablehlo.Value) *stablehlo.Value {
		return c.Call1("aten::mm.default", TensorValue(p), TensorValue(q))
	}
	sel := func(t *stablehlo.Value, i int64) *stablehlo.Value {
		return c.Call1("aten::select.int", TensorValue(t), IntValue(0), IntValue(i))
	}
	rx, rw := c.Rank(x), c.Rank(w)
	if rx == 3 && rw == 3 {
		if offs != nil {
			return nil, c.Errorf("_grouped_mm: Offsets tensor provided, but is not needed for 3D/3D multiplicand layouts.")
		}
		return c.Call("aten::bmm.default", []Value{TensorValue(x), TensorValue(w)}, nil)
	}
	if offs == nil {
		return nil, c.Errorf("_grouped_mm: Offsets tensor not provided, but is needed for %dD/%dD multiplicand layouts.", rx, rw)
	}
	if c.Rank(offs) != 1 {
		return nil, c.Errorf("_grouped_mm: Offsets tensor must be 1D, but got offs.dim()=%d.", c.Rank(offs))
	}
	groups := c.Shape(offs)[0]
	switch {
	case rx == 2 && rw == 3: // rows of x grouped: out[r] = x[r] @ w[g(r)]
		if c.Shape(w)[0] != groups {
			return nil, c.Errorf("_grouped_mm: matrix batch sizes have to match")
		}
		gid := groupIDs(c, offs, c.Shape(x)[0])
		var out *stablehlo.Value
		for g := int64(0); g < groups; g++ {
			out = pickRows(c, inGroup(c, gid, g), mm(x, sel(w, g)), out)
		}
		return one(out), nil
	case rx == 3 && rw == 2: // columns of w grouped: out[:, n] = x[g(n)] @ w[:, n]
		if c.Shape(x)[0] != groups {
			return nil, c.Errorf("_grouped_mm: matrix batch sizes have to match")
		}
		gid := groupIDs(c, offs, c.Shape(w)[1])
		var out *stablehlo.Value
		for g := int64(0); g < groups; g++ {
			out = pickCols(c, inGroup(c, gid, g), mm(sel(x, g), w), out)
		}
		return one(out), nil
	case rx == 2 && rw == 2: // the contraction grouped: out[g] = x[:, k in g] @ w[k in g, :]
		gid := groupIDs(c, offs, c.Shape(x)[1])
		outs := make([]Value, groups)
		for g := int64(0); g < groups; g++ {
			outs[g] = TensorValue(mm(pickCols(c, inGroup(c, gid, g), x, nil), w))
		}
		return c.Call("aten::stack.default", []Value{ListValue(outs...)}, nil)
	}
	return nil, c.Errorf("_grouped_mm: Multiplicands must be 2D or 3D but got mat_a.dim()=%d and mat_b.dim()=%d", rx, rw)
}

// groupIDs returns, for each of n positions, its group: how many offsets
// are at or below it (n.b. G for the positions past the last offset).
func groupIDs(c *LowerCtx, offs *stablehlo.Value, n int64) *stablehlo.Value {
	groups := c.Shape(offs)[0]
	o := c.Convert(offs, dtype.I64)
	pos := c.BroadcastInDim(c.Iota(dtype.I64, []int64{n}, 0), []int64{groups, n}, []int64{1})
	ends := c.BroadcastInDim(o, []int64{groups, n}, []int64{0})
	past := c.Convert(c.Compare("GE", pos, ends), dtype.I64)
	return c.Reduce(past, []int64{0}, "add", 0)
}

// inGroup is the [n] mask of the positions of group g.
func inGroup(c *LowerCtx, gid *stablehlo.Value, g int64) *stablehlo.Value {
	return c.Compare("EQ", gid, c.SplatInt(dtype.I64, c.Shape(gid), g))
}

// pickRows takes the rows of v where mask holds, the rows of prev (or
// zeros) elsewhere.
func pickRows(c *LowerCtx, mask, v, prev *stablehlo.Value) *stablehlo.Value {
	shape := c.Shape(v)
	if prev == nil {
		prev = c.Splat(c.DType(v), shape, 0)
	}
	return c.Select(c.BroadcastInDim(mask, shape, []int64{0}), v, prev)
}

// pickCols is pickRows for the columns of a matrix.
func pickCols(c *LowerCtx, mask, v, prev *stablehlo.Value) *stablehlo.Value {
	shape := c.Shape(v)
	if prev == nil {
		prev = c.Splat(c.DType(v), shape, 0)
	}
	return c.Select(c.BroadcastInDim(mask, shape, []int64{1}), v, prev)
}
