package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Numerical integration and differentiation over one dim, written with
// aten calls so that PyTorch's type promotion applies step by step:
// trapezoid / trapz and cumulative_trapezoid (uniform spacing or sample
// points), and gradient (central differences, first- or second-order
// edges, uniform spacing or coordinates).

func init() {
	for _, name := range []string{"aten::trapezoid.x", "aten::trapz.x"} {
		decomp(name, trapezoid(false, true))
	}
	for _, name := range []string{"aten::trapezoid.dx", "aten::trapz.dx"} {
		decomp(name, trapezoid(false, false))
	}
	decomp("aten::cumulative_trapezoid.x", trapezoid(true, true))
	decomp("aten::cumulative_trapezoid.dx", trapezoid(true, false))
	for _, ov := range []string{"scalarint", "scalararray", "array", "scalarrayint", "scalarrayarray", "tensorarrayint", "tensorarray"} {
		decomp("aten::gradient."+ov, lowerGradient)
	}
}

// aten calls used below, failing through c's error list.
func (c *LowerCtx) call(name string, args ...Value) Value {
	return TensorValue(c.Call1(name, args...))
}

func slice1(c *LowerCtx, y Value, dim int, start, end int64) Value {
	return c.call("aten::slice.Tensor", y, IntValue(int64(dim)), IntValue(start), IntValue(end))
}

// trapezoid follows PyTorch's formulas: with sample points,
// sum((y[1:] + y[:-1])·dx)/2 (or the cumulative sum of the halves); with
// a uniform dx, (sum(y) - (y[0] + y[-1])·0.5)·dx (or the cumulative sum of
// dx/2·(y[:-1] + y[1:])).
func trapezoid(cumulative, withX bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		yv := a.Tensor("y")
		dim := a.Int("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		y := TensorValue(yv)
		r := c.Rank(yv)
		if r == 0 {
			return nil, c.Errorf("trapezoid: y must have at least one dimension")
		}
		d, err := canonDim(dim, r)
		if err != nil {
			return nil, c.Errorf("trapezoid: %w", err)
		}
		n := c.Shape(yv)[d]
		dims := IntsValue([]int64{int64(d)})
		sum := func() Value { return c.call("aten::add.Tensor", slice1(c, y, d, 0, n-1), slice1(c, y, d, 1, n)) }
		if !withX {
			dx := a.Value("dx")
			if cumulative {
				half := c.call("aten::mul.Scalar", sum(), FloatValue(a.Scalar("dx").Float()/2))
				if n == 0 {
					return []Value{half}, nil
				}
				return c.Call("aten::cumsum", []Value{half, IntValue(int64(d))}, nil)
			}
			if n == 0 {
				s := c.call("aten::sum.dim_IntList", y, dims)
				return c.Call("aten::mul.Scalar", []Value{s, FloatValue(0)}, nil)
			}
			ends := c.call("aten::add.Tensor", c.call("aten::select.int", y, IntValue(int64(d)), IntValue(0)),
				c.call("aten::select.int", y, IntValue(int64(d)), IntValue(n-1)))
			t := c.call("aten::sub.Tensor", c.call("aten::sum.dim_IntList", y, dims), c.call("aten::mul.Scalar", ends, FloatValue(0.5)))
			return c.Call("aten::mul.Scalar", []Value{t, dx}, nil)
		}
		x := a.Tensor("x")
		if a.Err() != nil {
			return nil, a.Err()
		}
		var dx Value
		if c.Rank(x) == 1 {
			if c.Shape(x)[0] != n {
				return nil, c.Errorf("trapezoid: There must be one `x` value for each sample point")
			}
			dv := c.call("aten::diff", TensorValue(x))
			shape := make([]int64, r)
			for i := range shape {
				shape[i] = 1
			}
			shape[d] = max(n-1, 0)
			dx = TensorValue(c.Reshape(dv.T, shape))
		} else {
			xs := c.BroadcastShapes(c.Shape(x), c.Shape(yv))
			if c.Err() != nil {
				return nil, c.Err()
			}
			xb := TensorValue(c.BroadcastTo(x, xs))
			dx = c.call("aten::sub.Tensor", slice1(c, xb, d, 1, n), slice1(c, xb, d, 0, n-1))
		}
		prod := c.call("aten::mul.Tensor", dx, sum())
		if cumulative {
			half := c.call("aten::div.Scalar", prod, FloatValue(2))
			if n == 0 {
				return []Value{half}, nil
			}
			return c.Call("aten::cumsum", []Value{half, IntValue(int64(d))}, nil)
		}
		return c.Call("aten::div.Scalar", []Value{c.call("aten::sum.dim_IntList", prod, dims), FloatValue(2)}, nil)
	}
}

// lowerGradient computes torch.gradient for every overload: spacing is a
// number, a list of numbers (one per dim) or a list of coordinate
// tensors; dim is one dim, a list, or every dim.
func lowerGradient(c *LowerCtx, a *Args) ([]Value, error) {
	xv := a.Tensor("self")
	order := a.Int("edge_order")
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := c.Rank(xv)
	if r == 0 {
		return nil, c.Errorf("torch.gradient only supports tensors with at least one dimension")
	}
	var dims []int64
	switch v := a.Value("dim"); v.Kind {
	case KNone:
		dims = seqI64(r)
	case KInt:
		dims = []int64{v.I}
	default:
		dims = a.Ints("dim")
	}
	cd, err := canonDims(dims, r)
	if err != nil {
		return nil, c.Errorf("torch.gradient: %w", err)
	}
	if order != 1 && order != 2 {
		return nil, c.Errorf("torch.gradient only supports edge_order=1 and edge_order=2.")
	}
	for _, d := range cd {
		if c.Shape(xv)[d] < order+1 {
			return nil, c.Errorf("torch.gradient expected each dimension size to be at least edge_order+1")
		}
	}
	// spacing: per dim, a number (uniform) or coordinates.
	nums := make([]Value, len(cd))
	coords := make([]*stablehlo.Value, len(cd))
	sp := a.Value("spacing")
	switch {
	case sp.Kind == KNone || a.Schema.Param("spacing") < 0:
		for i := range nums {
			nums[i] = IntValue(1)
		}
	case sp.Kind == KList:
		if len(sp.List) != len(cd) && len(sp.List) != 1 {
			return nil, c.Errorf("torch.gradient expected spacing to be unspecified, a scalar or its length to match the number of dimensions (%d), got %d", len(cd), len(sp.List))
		}
		for i := range cd {
			e := sp.List[min(i, len(sp.List)-1)]
			if e.Kind == KTensor {
				coords[i] = e.T
				if coords[i] != nil && c.Rank(coords[i]) == 0 {
					nums[i], coords[i] = TensorValue(coords[i]), nil
				}
			} else {
				nums[i] = e
			}
		}
	default:
		for i := range nums {
			nums[i] = sp
		}
	}
	x := TensorValue(xv)
	out := make([]*stablehlo.Value, len(cd))
	for i, d := range cd {
		n := c.Shape(xv)[d]
		s := func(start, end int64) Value { return slice1(c, x, d, start, end) }
		var center, pre, app Value
		if coords[i] == nil {
			h := nums[i]
			divH := func(v Value) Value {
				if h.Kind == KTensor {
					return c.call("aten::div.Tensor", v, h)
				}
				return c.call("aten::div.Scalar", v, h)
			}
			center = c.call("aten::div.Scalar", divH(c.call("aten::sub.Tensor", s(2, n), s(0, n-2))), IntValue(2))
			if order == 1 {
				pre = divH(c.call("aten::sub.Tensor", s(1, 2), s(0, 1)))
				app = divH(c.call("aten::sub.Tensor", s(n-1, n), s(n-2, n-1)))
			} else {
				pre = divH(c.call("aten::add.Tensor", c.call("aten::add.Tensor",
					c.call("aten::mul.Scalar", s(0, 1), FloatValue(-1.5)), c.call("aten::mul.Scalar", s(1, 2), IntValue(2))),
					c.call("aten::mul.Scalar", s(2, 3), FloatValue(-0.5))))
				app = divH(c.call("aten::add.Tensor", c.call("aten::add.Tensor",
					c.call("aten::mul.Scalar", s(n-3, n-2), FloatValue(0.5)), c.call("aten::mul.Scalar", s(n-2, n-1), IntValue(-2))),
					c.call("aten::mul.Scalar", s(n-1, n), FloatValue(1.5))))
			}
		} else {
			center, pre, app = coordGradient(c, x, coords[i], d, n, order)
		}
		out[i] = c.Call1("aten::cat", ListValue(pre, center, app), IntValue(int64(d)))
	}
	return []Value{TensorsValue(out)}, nil
}

// coordGradient is gradient's non-uniform form for sample coordinates t
// along dim d (second-order accurate inside).
func coordGradient(c *LowerCtx, x Value, t *stablehlo.Value, d int, n, order int64) (center, pre, app Value) {
	r := c.Rank(x.T)
	if c.Rank(t) != 1 || c.Shape(t)[0] != n {
		c.Errorf("torch.gradient expected each tensor to be on the same device and of size %d along dim %d, got %v", n, d, c.Shape(t))
		return x, x, x
	}
	mul, div := "aten::mul.Tensor", "aten::div.Tensor"
	add, sub := "aten::add.Tensor", "aten::sub.Tensor"
	dx := c.call("aten::diff", TensorValue(t))
	dx1, dx2 := slice1(c, dx, 0, 0, n-2), slice1(c, dx, 0, 1, n-1)
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	shape[d] = n - 2
	view := func(v Value) Value { return TensorValue(c.Reshape(v.T, shape)) }
	sum12 := c.call(add, dx1, dx2)
	ca := view(c.call(div, c.call("aten::neg", dx2), c.call(mul, dx1, sum12)))
	cb := view(c.call(div, c.call(sub, dx2, dx1), c.call(mul, dx1, dx2)))
	cc := view(c.call(div, dx1, c.call(mul, dx2, sum12)))
	s := func(start, end int64) Value { return slice1(c, x, d, start, end) }
	center = c.call(add, c.call(add, c.call(mul, ca, s(0, n-2)), c.call(mul, cb, s(1, n-1))), c.call(mul, cc, s(2, n)))
	at := func(i int64) Value { return c.call("aten::select.int", dx, IntValue(0), IntValue(i)) }
	if order == 1 {
		pre = c.call(div, c.call(sub, s(1, 2), s(0, 1)), at(0))
		app = c.call(div, c.call(sub, s(n-1, n), s(n-2, n-1)), at(n-2))
		return
	}
	h0, h1 := at(0), at(1)
	h01 := c.call(add, h0, h1)
	a0 := c.call("aten::neg", c.call(div, c.call(add, c.call("aten::mul.Scalar", h0, FloatValue(2)), h1), c.call(mul, h0, h01)))
	b0 := c.call(div, h01, c.call(mul, h0, h1))
	c0 := c.call(div, c.call("aten::neg", h0), c.call(mul, h1, h01))
	pre = c.call(add, c.call(add, c.call(mul, a0, s(0, 1)), c.call(mul, b0, s(1, 2))), c.call(mul, c0, s(2, 3)))
	hl, hm := at(n-2), at(n-3)
	hlm := c.call(add, hl, hm)
	a1 := c.call(div, hl, c.call(mul, hm, hlm))
	b1 := c.call("aten::neg", c.call(div, hlm, c.call(mul, hl, hm)))
	c1 := c.call(div, c.call(add, c.call("aten::mul.Scalar", hl, FloatValue(2)), hm), c.call(mul, hl, hlm))
	app = c.call(add, c.call(add, c.call(mul, a1, s(n-3, n-2)), c.call(mul, b1, s(n-2, n-1))), c.call(mul, c1, s(n-1, n)))
	return
}
