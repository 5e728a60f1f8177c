package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Whole-slice index updates along one dim (index_add, index_copy,
// index_fill, index_reduce), flat ones (take, put) and masked_scatter.

func init() {
	lower("aten::index_add", lowerIndexUpdate("add"))
	lower("aten::index_copy", lowerIndexUpdate("copy"))
	lower("aten::index_fill.int_Scalar", lowerIndexUpdate("fill"))
	lower("aten::index_fill.int_Tensor", lowerIndexUpdate("fill"))
	lower("aten::index_reduce", lowerIndexUpdate("reduce"))
	lower("aten::take", lowerTake)
	lower("aten::put", lowerPut)
	decomp("aten::masked_scatter", lowerMaskedScatter)
}

// scatterSlices writes upd (x's shape with dim d of size n) into x at the
// n wrapped int64 indices idx along d.
func scatterSlices(c *LowerCtx, x *stablehlo.Value, d int, idx, upd *stablehlo.Value, f combineFunc) *stablehlo.Value {
	r := c.Rank(x)
	n := c.Shape(idx)[0]
	win := dropDim(r, d)
	s := &stablehlo.ScatterDims{UpdateWindowDims: win, InsertedWindowDims: []int64{int64(d)},
		ScatterDimsToOperandDims: []int64{int64(d)}, IndexVectorDim: 1}
	return emitScatter(c, x, c.Reshape(idx, []int64{n, 1}), upd, s, f)
}

func lowerIndexUpdate(kind string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dim := a.Int("dim")
		index := a.Tensor("index")
		if a.Err() != nil {
			return nil, a.Err()
		}
		orig := c.Shape(x)
		if len(orig) == 0 {
			x = c.Reshape(x, []int64{1})
		}
		shape := c.Shape(x)
		d, err := canonDim(dim, len(shape))
		if err != nil {
			return nil, err
		}
		if c.Rank(index) > 1 {
			return nil, c.Errorf("%s: index should have dimension 1 or 0", a.Schema.Name)
		}
		n := numelOf(c.Shape(index))
		idx, err := wrapIndex(c, c.Reshape(index, []int64{n}), shape[d])
		if err != nil {
			return nil, err
		}
		dt := c.DType(x)
		want := append([]int64(nil), shape...)
		want[d] = n
		var upd *stablehlo.Value
		if kind == "fill" {
			var v *stablehlo.Value
			if a.Schema.Overload == "int_Tensor" {
				v = a.Tensor("value")
				if c.Rank(v) != 0 {
					return nil, c.Errorf("index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s)", c.Rank(v))
				}
				v = c.Convert(v, dt)
			} else {
				v = c.ScalarConst(a.Scalar("value"), dt)
			}
			upd = c.BroadcastInDim(v, want, nil)
		} else {
			src := a.Tensor("source")
			if a.Err() != nil {
				return nil, a.Err()
			}
			if numelOf(c.Shape(src)) != numelOf(want) {
				return nil, c.Errorf("%s: source of shape %v does not match %v", a.Schema.Name, c.Shape(src), want)
			}
			upd = c.Reshape(c.Convert(src, dt), want)
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		var out *stablehlo.Value
		switch kind {
		case "copy", "fill":
			out = scatterSlices(c, x, d, idx, upd, nil)
		case "add":
			if alpha := a.Scalar("alpha"); alpha.Float() != 1 {
				upd = c.Binary("multiply", upd, c.ScalarFull(alpha, dt, want))
			}
			out = scatterSlices(c, x, d, idx, upd, combineOp("add"))
		case "reduce":
			out, err = indexReduce(c, a, x, d, idx, upd)
			if err != nil {
				return nil, err
			}
		}
		return one(c.Reshape(out, orig)), nil
	}
}

// indexReduce implements index_reduce (prod, mean, amax, amin).
func indexReduce(c *LowerCtx, a *Args, x *stablehlo.Value, d int, idx, upd *stablehlo.Value) (*stablehlo.Value, error) {
	mode := a.Str("reduce")
	includeSelf := a.Bool("include_self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	us := c.Shape(upd)
	base := x
	if !includeSelf {
		var init *stablehlo.Value
		switch mode {
		case "prod":
			init = c.SplatInt(dt, us, 1)
		case "mean":
			init = c.SplatInt(dt, us, 0)
		case "amax":
			init = c.BroadcastInDim(lowestConst(c, dt), us, nil)
		case "amin":
			init = c.BroadcastInDim(highestConst(c, dt), us, nil)
		}
		if init != nil {
			base = scatterSlices(c, x, d, idx, init, nil)
		}
	}
	switch mode {
	case "prod":
		return scatterSlices(c, base, d, idx, upd, combineOp("multiply")), nil
	case "amax":
		return scatterSlices(c, base, d, idx, upd, combineOp("maximum")), nil
	case "amin":
		return scatterSlices(c, base, d, idx, upd, combineOp("minimum")), nil
	case "mean":
		shape := c.Shape(x)
		sum := scatterSlices(c, base, d, idx, upd, combineOp("add"))
		cnt0 := c.SplatInt(dt, shape, 0)
		if includeSelf {
			cnt0 = c.SplatInt(dt, shape, 1)
		}
		cnt := scatterSlices(c, cnt0, d, idx, c.SplatInt(dt, us, 1), combineOp("add"))
		zero := c.Compare("EQ", cnt, c.SplatInt(dt, shape, 0))
		cnt = c.Select(zero, c.SplatInt(dt, shape, 1), cnt)
		out := c.Binary("divide", sum, cnt)
		if dt.IsInteger() {
			rem := c.Binary("remainder", sum, cnt)
			fix := c.Binary("and", c.Compare("NE", rem, c.SplatInt(dt, shape, 0)),
				c.Compare("LT", rem, c.SplatInt(dt, shape, 0)))
			out = c.Select(fix, c.Binary("subtract", out, c.SplatInt(dt, shape, 1)), out)
		}
		return out, nil
	}
	return nil, c.Errorf("index_reduce(): expected reduce to be one of prod, mean, amax or amin, got %q", mode)
}

func lowerTake(c *LowerCtx, a *Args) ([]Value, error) {
	x, index := a.Tensor("self"), a.Tensor("index")
	if a.Err() != nil {
		return nil, a.Err()
	}
	n := numelOf(c.Shape(x))
	idx, err := wrapIndex(c, index, n)
	if err != nil {
		return nil, err
	}
	return one(takeAlongV(c, c.Reshape(x, []int64{n}), 0, idx)), nil
}

func lowerPut(c *LowerCtx, a *Args) ([]Value, error) {
	x, index, src := a.Tensor("self"), a.Tensor("index"), a.Tensor("source")
	acc := a.Bool("accumulate")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	n := numelOf(shape)
	k := numelOf(c.Shape(index))
	if numelOf(c.Shape(src)) != k {
		return nil, c.Errorf("put(): expected source and index to have the same number of elements, got %d and %d", numelOf(c.Shape(src)), k)
	}
	idx, err := wrapIndex(c, c.Reshape(index, []int64{k}), n)
	if err != nil {
		return nil, err
	}
	var f combineFunc
	if acc {
		f = combineOp("add")
	}
	flat := c.Reshape(x, []int64{n})
	out := scatterSlices(c, flat, 0, idx, c.Reshape(c.Convert(src, c.DType(x)), []int64{k}), f)
	return one(c.Reshape(out, shape)), nil
}

// lowerMaskedScatter: the i-th true element of mask (row-major) takes
// source's i-th element: positions come from a cumulative sum of the mask.
func lowerMaskedScatter(c *LowerCtx, a *Args) ([]Value, error) {
	x, mask, src := a.Tensor("self"), a.Tensor("mask"), a.Tensor("source")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.DType(mask) != dtype.Bool {
		return nil, c.Errorf("masked_scatter_ only supports boolean masks, but got mask with dtype %v", c.DType(mask).Torch())
	}
	shape, err := broadcastShapes(c.Shape(x), c.Shape(mask))
	if err != nil {
		return nil, c.Errorf("masked_scatter: %w", err)
	}
	x, mask = c.BroadcastTo(x, shape), c.BroadcastTo(mask, shape)
	n := numelOf(shape)
	s := numelOf(c.Shape(src))
	if s == 0 || n == 0 {
		return one(x), nil
	}
	fm := c.Reshape(mask, []int64{n})
	pos := c.Call1("aten::cumsum", TensorValue(fm), IntValue(0))
	pos = c.Binary("subtract", c.Convert(pos, dtype.I64), c.SplatInt(dtype.I64, []int64{n}, 1))
	pos = c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), pos, c.SplatInt(dtype.I64, nil, s-1)}, nil)
	vals := takeAlongV(c, c.Reshape(c.Convert(src, c.DType(x)), []int64{s}), 0, pos)
	out := c.Select(fm, vals, c.Reshape(x, []int64{n}))
	return one(c.Reshape(out, shape)), nil
}
