package aten

import "fmt"

// Small composite ops nobody registered: trace, numpy_T (x.T),
// atleast_1d/2d/3d, cross and linalg_cross (3-vectors along dim; for cross
// the first dim of size 3 when dim is None) and kron.

func init() {
	decomp("aten::trace", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(x) != 2 {
			return nil, fmt.Errorf("trace: expected a matrix, got shape %v", c.Shape(x))
		}
		return c.Call("aten::sum.default", []Value{TensorValue(c.Call1("aten::diagonal", TensorValue(x)))}, nil)
	})
	decomp("aten::numpy_T", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		r := c.Rank(x)
		perm := make([]int64, r)
		for i := range perm {
			perm[i] = int64(r - 1 - i)
		}
		return c.Call("aten::permute", []Value{TensorValue(x), IntsValue(perm)}, nil)
	})
	for n := 1; n <= 3; n++ {
		decomp(fmt.Sprintf("aten::atleast_%dd", n), func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if a.Err() != nil {
				return nil, a.Err()
			}
			s := c.Shape(x)
			if len(s) >= n {
				return one(x), nil
			}
			var to []int64
			switch {
			case len(s) == 0:
				to = []int64{1, 1, 1}[:n]
			case len(s) == 1 && n == 2:
				to = []int64{1, s[0]}
			case len(s) == 1:
				to = []int64{1, s[0], 1}
			default:
				to = []int64{s[0], s[1], 1}
			}
			return one(c.Reshape(x, to)), nil
		})
	}
	decomp("aten::cross", lowerCross)
	decomp("aten::linalg_cross", lowerCross)
	decomp("aten::kron", lowerKron)
}

func lowerCross(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("other")
	dim, hasDim := a.OptInt("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.BroadcastShapes(c.Shape(x), c.Shape(y))
	if c.Err() != nil {
		return nil, c.Err()
	}
	if !hasDim {
		dim = -1
		for i, d := range shape {
			if d == 3 {
				dim = int64(i)
				break
			}
		}
	}
	if dim < 0 {
		dim += int64(len(shape))
	}
	if dim < 0 || dim >= int64(len(shape)) || shape[dim] != 3 {
		return nil, fmt.Errorf("cross: no dimension of size 3 (dim %d, shape %v)", dim, shape)
	}
	x, y = c.BroadcastTo(x, shape), c.BroadcastTo(y, shape)
	at := func(v Value, i int64) Value {
		return TensorValue(c.Call1("aten::select.int", v, IntValue(dim), IntValue(i)))
	}
	comp := func(i, j int64) Value {
		return TensorValue(c.Call1("aten::sub.Tensor",
			TensorValue(c.Call1("aten::mul.Tensor", at(TensorValue(x), i), at(TensorValue(y), j))),
			TensorValue(c.Call1("aten::mul.Tensor", at(TensorValue(x), j), at(TensorValue(y), i)))))
	}
	parts := []Value{comp(1, 2), comp(2, 0), comp(0, 1)}
	return c.Call("aten::stack", []Value{ListValue(parts...), IntValue(dim)}, nil)
}

func lowerKron(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("other")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, ys := c.Shape(x), c.Shape(y)
	r := max(len(xs), len(ys))
	pad := func(s []int64) []int64 {
		out := make([]int64, r-len(s), r)
		for i := range out {
			out[i] = 1
		}
		return append(out, s...)
	}
	xs, ys = pad(xs), pad(ys)
	xi, yi, res := make([]int64, 2*r), make([]int64, 2*r), make([]int64, r)
	for i := 0; i < r; i++ {
		xi[2*i], xi[2*i+1] = xs[i], 1
		yi[2*i], yi[2*i+1] = 1, ys[i]
		res[i] = xs[i] * ys[i]
	}
	p := c.Call1("aten::mul.Tensor", TensorValue(c.Reshape(x, xi)), TensorValue(c.Reshape(y, yi)))
	return one(c.Reshape(p, res)), nil
}
