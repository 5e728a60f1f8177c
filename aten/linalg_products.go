package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Products written in terms of dot_general: tensordot, inner, vdot,
// linalg_vecdot, linalg_multi_dot (in the cheapest order, as PyTorch
// chooses it) and dist.

func init() {
	lower("aten::tensordot", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor("other")
		dx, dy := a.Ints("dims_self"), a.Ints("dims_other")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if len(dx) != len(dy) {
			return nil, c.Errorf("both dimension lists should have same length")
		}
		cx, err := canonDims(dx, c.Rank(x))
		if err != nil {
			return nil, c.Errorf("tensordot: %w", err)
		}
		cy, err := canonDims(dy, c.Rank(y))
		if err != nil {
			return nil, c.Errorf("tensordot: %w", err)
		}
		lc, rc := make([]int64, len(cx)), make([]int64, len(cy))
		for i := range cx {
			sx, sy := c.Shape(x)[cx[i]], c.Shape(y)[cy[i]]
			switch {
			case sx == sy:
			case sx == 1:
				// A size-1 contracted dim broadcasts against the other.
				s := append([]int64(nil), c.Shape(x)...)
				s[cx[i]] = sy
				x = c.BroadcastTo(x, s)
			case sy == 1:
				s := append([]int64(nil), c.Shape(y)...)
				s[cy[i]] = sx
				y = c.BroadcastTo(y, s)
			default:
				return nil, c.Errorf("contracted dimensions need to match, but first has size %d in dim %d and second has size %d in dim %d", sx, cx[i], sy, cy[i])
			}
			lc[i], rc[i] = int64(cx[i]), int64(cy[i])
		}
		return contract(c, x, y, lc, rc, "tensordot")
	})
	lower("aten::inner", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor("other")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(x) == 0 || c.Rank(y) == 0 {
			return c.Call("aten::mul.Tensor", []Value{TensorValue(x), TensorValue(y)}, nil)
		}
		kx, ky := c.Shape(x)[c.Rank(x)-1], c.Shape(y)[c.Rank(y)-1]
		if kx != ky {
			return nil, c.Errorf("inner() the last dimension must match on both input tensors but got shapes %v and %v", c.Shape(x), c.Shape(y))
		}
		return contract(c, x, y, []int64{int64(c.Rank(x) - 1)}, []int64{int64(c.Rank(y) - 1)}, "inner")
	})
	lower("aten::vdot", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor("other")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(x) != 1 || c.Rank(y) != 1 {
			return nil, c.Errorf("1D tensors expected, but got %dD and %dD tensors", c.Rank(x), c.Rank(y))
		}
		if c.Shape(x)[0] != c.Shape(y)[0] {
			return nil, c.Errorf("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number of elements, but got %d and %d elements respectively",
				c.Shape(x)[0], c.Shape(y)[0], c.Shape(x)[0], c.Shape(y)[0])
		}
		if c.DType(x).IsComplex() {
			x = c.Call1("aten::conj_physical", TensorValue(x))
		}
		return contract(c, x, y, []int64{0}, []int64{0}, "vdot")
	})
	lower("aten::linalg_vecdot", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("x"), a.Tensor("y")
		dim := a.Int("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.DType(x) != c.DType(y) {
			return nil, c.Errorf("linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of type %s instead", c.DType(x).Torch(), c.DType(y).Torch())
		}
		if c.DType(x).IsComplex() {
			x = c.Call1("aten::conj_physical", TensorValue(x))
		}
		p := c.Call1("aten::mul.Tensor", TensorValue(x), TensorValue(y))
		return c.Call("aten::sum.dim_IntList", []Value{TensorValue(p), IntsValue([]int64{dim})}, nil)
	})
	lower("aten::linalg_multi_dot", lowerMultiDot)
	decomp("aten::dist", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor("other")
		p := a.Value("p")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.DType(x) != c.DType(y) {
			return nil, c.Errorf("dist(): input types %s and %s do not match", c.DType(x).Torch(), c.DType(y).Torch())
		}
		d := c.Call1("aten::sub.Tensor", TensorValue(x), TensorValue(y))
		return c.Call("aten::linalg_vector_norm", []Value{TensorValue(d), p}, nil)
	})
}

// contract multiplies x and y over the given dims (dot_general): the
// result has x's free dims, then y's.
func contract(c *LowerCtx, x, y *stablehlo.Value, lc, rc []int64, op string) ([]Value, error) {
	xc, yc, dt, err := dotPrep(c, x, y, op)
	if err != nil {
		return nil, err
	}
	return one(c.Convert(dotGeneral(c, xc, yc, nil, nil, lc, rc), dt)), nil
}

// lowerMultiDot: the first and last operands may be vectors (a row and a
// column), the others are matrices; the chain is multiplied in the order
// of fewest scalar products (three matrices: PyTorch's two-way choice;
// more: the classic dynamic program).
func lowerMultiDot(c *LowerCtx, a *Args) ([]Value, error) {
	ts := a.Tensors("tensors")
	if a.Err() != nil {
		return nil, a.Err()
	}
	n := len(ts)
	if n < 2 {
		return nil, c.Errorf("multi_dot(): expected at least 2 tensors but got %d", n)
	}
	first1, last1 := c.Rank(ts[0]) == 1, c.Rank(ts[n-1]) == 1
	ms := make([]*stablehlo.Value, n)
	for i, t := range ts {
		r := c.Rank(t)
		switch {
		case i == 0 && r == 1:
			t = c.Reshape(t, []int64{1, c.Shape(t)[0]})
		case i == n-1 && r == 1:
			t = c.Reshape(t, []int64{c.Shape(t)[0], 1})
		case r != 2:
			return nil, c.Errorf("multi_dot(): tensor %d must be 2D but got %dD", i, r)
		}
		if c.DType(t) != c.DType(ts[0]) {
			return nil, c.Errorf("multi_dot(): all tensors must have be the same dtype but tensor 0 is %s and tensor %d %s", c.DType(ts[0]).Torch(), i, c.DType(t).Torch())
		}
		ms[i] = t
	}
	dims := make([]int64, n+1)
	dims[0] = c.Shape(ms[0])[0]
	for i, m := range ms {
		if c.Shape(m)[0] != dims[i] {
			return nil, c.Errorf("multi_dot(): tensors %d and %d with shapes %v and %v cannot be multiplied", i-1, i, c.Shape(ms[max(i-1, 0)]), c.Shape(m))
		}
		dims[i+1] = c.Shape(m)[1]
	}
	order := chainOrder(dims)
	var mul func(i, j int) (*stablehlo.Value, error)
	mul = func(i, j int) (*stablehlo.Value, error) {
		if i == j {
			return ms[i], nil
		}
		k := order[i][j]
		l, err := mul(i, k)
		if err != nil {
			return nil, err
		}
		r, err := mul(k+1, j)
		if err != nil {
			return nil, err
		}
		return c.Call1("aten::mm", TensorValue(l), TensorValue(r)), nil
	}
	out, err := mul(0, n-1)
	if err != nil {
		return nil, err
	}
	switch {
	case first1 && last1:
		out = c.Reshape(out, nil)
	case first1:
		out = c.Reshape(out, []int64{c.Shape(out)[1]})
	case last1:
		out = c.Reshape(out, []int64{c.Shape(out)[0]})
	}
	return one(out), nil
}

// chainOrder returns split[i][j]: the k where the product of matrices
// i..j is split as (i..k)(k+1..j) at the least cost, matrix i being
// dims[i] x dims[i+1].
func chainOrder(dims []int64) [][]int {
	n := len(dims) - 1
	split := make([][]int, n)
	cost := make([][]int64, n)
	for i := range split {
		split[i] = make([]int, n)
		cost[i] = make([]int64, n)
	}
	if n == 3 {
		// PyTorch: (AB)C costs a·c·(b+d), A(BC) costs b·d·(a+c).
		a, b, cc, d := dims[0], dims[1], dims[2], dims[3]
		split[0][1], split[1][2] = 0, 1
		if a*cc*(b+d) <= b*d*(a+cc) {
			split[0][2] = 1
		} else {
			split[0][2] = 0
		}
		return split
	}
	for l := 1; l < n; l++ {
		for i := 0; i+l < n; i++ {
			j := i + l
			cost[i][j] = -1
			for k := i; k < j; k++ {
				q := cost[i][k] + cost[k+1][j] + dims[i]*dims[k+1]*dims[j+1]
				if cost[i][j] < 0 || q < cost[i][j] {
					cost[i][j], split[i][j] = q, k
				}
			}
		}
	}
	return split
}
