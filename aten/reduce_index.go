package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Reductions that return indices: max/min.dim, argmax/argmin, median.
// PyTorch returns the first index among equal extremes, and a NaN wins
// (value NaN, index of the first NaN) for both max and min.

// argReduce reduces x along dim to (values, int64 indices).
func argReduce(c *LowerCtx, x *stablehlo.Value, dim int64, isMax, keep bool) (vals, idx *stablehlo.Value) {
	shape := c.Shape(x)
	dt := c.DType(x)
	if shape[dim] == 0 {
		c.Errorf("cannot reduce over a zero-size dimension %d", dim)
	}
	iota := c.Iota(dtype.I64, shape, int(dim))
	scalar, iscalar := stablehlo.Tensor(dt), stablehlo.Tensor(dtype.I64)
	body := c.Region([]stablehlo.Type{scalar, iscalar, scalar, iscalar}, func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		va, ia, vb, ib := a[0], a[1], a[2], a[3]
		dir := "GT"
		if !isMax {
			dir = "LT"
		}
		better := s.Compare(dir, va, vb)
		tie := s.Compare("EQ", va, vb)
		if dt.IsFloat() {
			an, bn := s.IsNaN(va), s.IsNaN(vb)
			better = s.Binary("or", better, s.Binary("and", an, s.Unary("not", bn)))
			tie = s.Binary("or", tie, s.Binary("and", an, bn))
		}
		pickA := s.Binary("or", better, s.Binary("and", tie, s.Compare("LT", ia, ib)))
		return []*stablehlo.Value{s.Select(pickA, va, vb), s.Select(pickA, ia, ib)}
	})
	initV := limitConst(c, dt, !isMax)
	initI := c.SplatInt(dtype.I64, nil, math.MaxInt64)
	op := c.OpRegions("stablehlo.reduce", []*stablehlo.Value{x, iota, initV, initI},
		[]stablehlo.NamedAttr{I64s("dimensions", []int64{dim})}, []*stablehlo.Region{body})
	if len(op.Results) != 2 {
		c.Errorf("variadic reduce produced %d results", len(op.Results))
		return x, x
	}
	out := keptShape(shape, []int64{dim}, keep)
	return c.Reshape(op.Results[0], out), c.Reshape(op.Results[1], out)
}

func init() {
	for _, isMax := range []bool{true, false} {
		isMax := isMax
		name := map[bool]string{true: "max", false: "min"}[isMax]
		lower("aten::"+name+".dim", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if c.Rank(x) == 0 {
				return []Value{TensorValue(x), TensorValue(c.SplatInt(dtype.I64, nil, 0))}, nil
			}
			d := reduceDims(c, []int64{a.Int("dim")}, false, c.Rank(x))
			if len(d) != 1 {
				return nil, c.Err()
			}
			v, i := argReduce(c, x, d[0], isMax, a.Bool("keepdim"))
			return []Value{TensorValue(v), TensorValue(i)}, nil
		})
		lower("aten::arg"+name+".default", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if c.DType(x) == dtype.Bool {
				return nil, c.Errorf("arg%s(): does not support bool input", name)
			}
			keep := a.Bool("keepdim")
			dim, ok := a.OptInt("dim")
			if !ok {
				// Over the flattened tensor; keepdim keeps every dim as 1.
				n := numel(c.Shape(x), reduceDims(c, nil, true, c.Rank(x)))
				if n == 0 {
					return nil, c.Errorf("arg%s(): Expected reduction dim to be specified for input.numel() == 0", name)
				}
				_, i := argReduce(c, c.Reshape(x, []int64{n}), 0, isMax, false)
				if keep {
					i = c.Reshape(i, keptShape(c.Shape(x), reduceDims(c, nil, true, c.Rank(x)), true))
				}
				return one(i), nil
			}
			if c.Rank(x) == 0 {
				return one(c.SplatInt(dtype.I64, nil, 0)), nil
			}
			d := reduceDims(c, []int64{dim}, false, c.Rank(x))
			if len(d) != 1 {
				return nil, c.Err()
			}
			_, i := argReduce(c, x, d[0], isMax, keep)
			return one(i), nil
		})
	}
	lower("aten::median.dim", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if c.Rank(x) == 0 {
			return []Value{TensorValue(x), TensorValue(c.SplatInt(dtype.I64, nil, 0))}, nil
		}
		d := reduceDims(c, []int64{a.Int("dim")}, false, c.Rank(x))
		if len(d) != 1 {
			return nil, c.Err()
		}
		v, i := median(c, x, d[0], a.Bool("keepdim"))
		return []Value{TensorValue(v), TensorValue(i)}, nil
	})
	lower("aten::median.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		n := numel(c.Shape(x), reduceDims(c, nil, true, c.Rank(x)))
		if n == 0 {
			return one(c.Splat(c.DType(x), nil, math.NaN())), nil
		}
		v, _ := median(c, c.Reshape(x, []int64{n}), 0, false)
		return one(v), nil
	})
}

// median returns the lower median along dim and its index: a stable sort
// with NaN last; if the slice holds a NaN the result is the first NaN.
func median(c *LowerCtx, x *stablehlo.Value, dim int64, keep bool) (vals, idx *stablehlo.Value) {
	shape := c.Shape(x)
	n := shape[dim]
	if n == 0 {
		c.Errorf("median() cannot compute median of an empty dimension")
		return x, x
	}
	dt := c.DType(x)
	iota := c.Iota(dtype.I64, shape, int(dim))
	scalar, iscalar := stablehlo.Tensor(dt), stablehlo.Tensor(dtype.I64)
	cmp := c.Region([]stablehlo.Type{scalar, scalar, iscalar, iscalar}, func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		lt := s.Compare("LT", a[0], a[1])
		if dt.IsFloat() {
			// a < b, or b is NaN and a is not.
			lt = s.Binary("or", lt, s.Binary("and", s.IsNaN(a[1]), s.Unary("not", s.IsNaN(a[0]))))
		}
		return []*stablehlo.Value{lt}
	})
	op := c.OpRegions("stablehlo.sort", []*stablehlo.Value{x, iota}, []stablehlo.NamedAttr{
		Attr("dimension", &stablehlo.IntAttr{Value: dim}), Attr("is_stable", stablehlo.BoolAttr(true)),
	}, []*stablehlo.Region{cmp})
	if len(op.Results) != 2 {
		c.Errorf("sort produced %d results", len(op.Results))
		return x, x
	}
	sv, si := op.Results[0], op.Results[1]
	// k = (n-1)/2, or the position of the first NaN (= number of non-NaN).
	out := keptShape(shape, []int64{dim}, true)
	k := c.SplatInt(dtype.I64, out, (n-1)/2)
	if dt.IsFloat() {
		nonNaN := reduceTo(c, c.Convert(c.Unary("not", c.IsNaN(x)), dtype.I64), []int64{dim}, true, "add", 0, dtype.I64)
		k = c.Select(c.Compare("LT", nonNaN, c.SplatInt(dtype.I64, out, n)), nonNaN, k)
	}
	pick := c.Compare("EQ", c.Iota(dtype.I64, shape, int(dim)), c.BroadcastTo(k, shape))
	// Select the k-th entry: sum of the masked values (exactly one is kept).
	zeroV := c.Splat(dt, shape, 0)
	v := c.Select(pick, sv, zeroV)
	i := c.Select(pick, si, c.SplatInt(dtype.I64, shape, 0))
	body := "add"
	if dt == dtype.Bool {
		body = "or"
	}
	final := keptShape(shape, []int64{dim}, keep)
	// Summing a one-hot selection: NaN and infinities survive the zeros.
	vals = c.Reshape(c.Reduce(v, []int64{dim}, body, 0), final)
	idx = c.Reshape(c.Reduce(i, []int64{dim}, "add", 0), final)
	return vals, idx
}
