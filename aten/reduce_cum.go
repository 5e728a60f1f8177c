package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Cumulative ops as prefix windows: reduce_window with a window spanning
// the whole dim and padding of n-1 before it. cumsum/cumprod accumulate
// float32 in float64 as PyTorch's CPU kernel does (acc_type), and give
// int64 for integers; cummax/cummin carry (value, index) pairs, ties and
// NaNs taking the latest index as PyTorch's loop does.

// prefixWindow emits a variadic reduce_window over xs along dim whose
// windows are the prefixes.
func prefixWindow(c *LowerCtx, xs, inits []*stablehlo.Value, dim int, body *stablehlo.Region) []*stablehlo.Value {
	shape := c.Shape(xs[0])
	r := len(shape)
	win := make([]int64, r)
	pad, _ := literal.New(dtype.I64, []int64{int64(r), 2})
	for i := range win {
		win[i] = 1
	}
	win[dim] = shape[dim]
	pad.SetInt64(2*dim, shape[dim]-1)
	padAttr := &stablehlo.DenseAttr{Type: stablehlo.Tensor(dtype.I64, int64(r), 2), Value: pad}
	operands := append(append([]*stablehlo.Value{}, xs...), inits...)
	op := c.OpRegions("stablehlo.reduce_window", operands, []stablehlo.NamedAttr{
		I64s("window_dimensions", win), Attr("padding", padAttr),
	}, []*stablehlo.Region{body})
	return op.Results
}

// cumDim canonicalises the dim of a cumulative op (0-dim tensors take 0).
func cumDim(c *LowerCtx, a *Args, x *stablehlo.Value) (int, bool) {
	d := a.Int("dim")
	if c.Rank(x) == 0 {
		if d != 0 && d != -1 {
			c.Errorf("dim %d out of range for a 0-dim tensor", d)
		}
		return 0, false
	}
	cd, err := canonDim(d, c.Rank(x))
	if err != nil {
		c.Errorf("%w", err)
		return 0, false
	}
	return cd, c.Shape(x)[cd] > 0
}

func init() {
	cum := func(body string, init float64) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			out := sumDType(a, c.DType(x))
			v := c.Convert(x, accType(c, out))
			dim, ok := cumDim(c, a, v)
			if !ok {
				return one(c.Convert(v, out)), nil
			}
			dt := c.DType(v)
			scalar := stablehlo.Tensor(dt)
			reg := c.Region([]stablehlo.Type{scalar, scalar}, func(s *LowerCtx, p []*stablehlo.Value) []*stablehlo.Value {
				if dt == dtype.Bool {
					return []*stablehlo.Value{s.Binary(map[string]string{"add": "or", "multiply": "and"}[body], p[0], p[1])}
				}
				return []*stablehlo.Value{s.Binary(body, p[0], p[1])}
			})
			res := prefixWindow(c, []*stablehlo.Value{v}, []*stablehlo.Value{c.Splat(dt, nil, init)}, dim, reg)
			if len(res) != 1 {
				return nil, c.Errorf("reduce_window produced %d results", len(res))
			}
			return one(c.Convert(res[0], out)), nil
		}
	}
	lower("aten::cumsum.default", cum("add", 0))
	lower("aten::cumprod.default", cum("multiply", 1))
	for _, isMax := range []bool{true, false} {
		isMax := isMax
		name := map[bool]string{true: "cummax", false: "cummin"}[isMax]
		lower("aten::"+name+".default", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			dim, ok := cumDim(c, a, x)
			if !ok {
				return []Value{TensorValue(x), TensorValue(c.SplatInt(dtype.I64, c.Shape(x), 0))}, nil
			}
			dt := c.DType(x)
			iota := c.Iota(dtype.I64, c.Shape(x), dim)
			scalar, iscalar := stablehlo.Tensor(dt), stablehlo.Tensor(dtype.I64)
			reg := c.Region([]stablehlo.Type{scalar, iscalar, scalar, iscalar}, func(s *LowerCtx, p []*stablehlo.Value) []*stablehlo.Value {
				va, ia, vb, ib := p[0], p[1], p[2], p[3]
				dir := "GT"
				if !isMax {
					dir = "LT"
				}
				// Take b when it is strictly better, or tied with a later index.
				aBetter := s.Compare(dir, va, vb)
				bBetter := s.Compare(dir, vb, va)
				later := s.Compare("GT", ib, ia)
				takeB := s.Binary("or", bBetter, s.Binary("and", s.Unary("not", aBetter), later))
				if dt.IsFloat() {
					an, bn := s.IsNaN(va), s.IsNaN(vb)
					nanCase := s.Binary("or", an, bn)
					nanTakeB := s.Binary("and", bn, s.Binary("or", s.Unary("not", an), later))
					takeB = s.Select(nanCase, nanTakeB, takeB)
				}
				return []*stablehlo.Value{s.Select(takeB, vb, va), s.Select(takeB, ib, ia)}
			})
			res := prefixWindow(c, []*stablehlo.Value{x, iota},
				[]*stablehlo.Value{limitConst(c, dt, !isMax), c.SplatInt(dtype.I64, nil, -1)}, dim, reg)
			if len(res) != 2 {
				return nil, c.Errorf("reduce_window produced %d results", len(res))
			}
			return []Value{TensorValue(res[0]), TensorValue(res[1])}, nil
		})
	}
}
