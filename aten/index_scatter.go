package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Writing by index: scatter (src/value/reduce variants), scatter_add,
// scatter_reduce.two, index_put. Duplicate indices accumulate for the
// reducing forms; for plain writes the winner is unspecified, as in
// PyTorch.

func init() {
	lower("aten::scatter.src", lowerScatter)
	lower("aten::scatter.value", lowerScatter)
	lower("aten::scatter.reduce", lowerScatter)
	lower("aten::scatter.value_reduce", lowerScatter)
	lower("aten::scatter_add", lowerScatterAdd)
	lower("aten::scatter_reduce.two", lowerScatterReduce)
	lower("aten::index_put", lowerIndexPut)
	lower("aten::_unsafe_index_put", lowerIndexPut)
	lower("aten::index_put.hacked_twin", lowerIndexPut)
}

type combineFunc func(sub *LowerCtx, old, upd *stablehlo.Value) *stablehlo.Value

func combineOp(name string) combineFunc {
	return func(sub *LowerCtx, old, upd *stablehlo.Value) *stablehlo.Value {
		if sub.DType(old) == dtype.Bool {
			switch name {
			case "add", "maximum":
				name = "or"
			case "multiply", "minimum":
				name = "and"
			}
		}
		return sub.Binary(name, old, upd)
	}
}

// scatterAlong writes upd (shaped like idx) into x at the coordinates of
// a wrapped index along d.
func scatterAlong(c *LowerCtx, x *stablehlo.Value, d int, idx, upd *stablehlo.Value, f combineFunc) *stablehlo.Value {
	r := c.Rank(x)
	ind := fullIndices(c, idx, d, r)
	all := seqI64(r)
	s := &stablehlo.ScatterDims{InsertedWindowDims: all, ScatterDimsToOperandDims: all, IndexVectorDim: int64(r)}
	return emitScatter(c, x, ind, upd, s, f)
}

// scatterArgs reads and checks the common arguments: self, dim, index and
// the source (a tensor trimmed to index's shape, or a broadcast value).
func scatterArgs(c *LowerCtx, a *Args) (x *stablehlo.Value, d int, idx, src *stablehlo.Value, err error) {
	x = a.Tensor("self")
	dim := a.Int("dim")
	index := a.Tensor("index")
	if a.Err() != nil {
		return nil, 0, nil, nil, a.Err()
	}
	shape := c.Shape(x)
	scalar := len(shape) == 0
	if scalar {
		x = c.Reshape(x, []int64{1})
		shape = []int64{1}
		index = c.Reshape(index, []int64{numelOf(c.Shape(index))})
	}
	if d, err = canonDim(dim, len(shape)); err != nil {
		return nil, 0, nil, nil, err
	}
	ishape := c.Shape(index)
	if len(ishape) != len(shape) {
		return nil, 0, nil, nil, c.Errorf("scatter(): index tensor must have the same number of dimensions as self tensor")
	}
	dt := c.DType(x)
	if a.Has("src") {
		s := a.Tensor("src")
		if scalar {
			s = c.Reshape(s, []int64{numelOf(c.Shape(s))})
		}
		ss := c.Shape(s)
		if len(ss) != len(ishape) {
			return nil, 0, nil, nil, c.Errorf("scatter(): index tensor must have the same number of dimensions as src tensor")
		}
		for i := range ishape {
			if ishape[i] > ss[i] || (i != d && ishape[i] > shape[i]) {
				return nil, 0, nil, nil, c.Errorf("scatter(): expected index %v to be no larger than self %v apart from dimension %d and to be no larger than src %v", ishape, shape, d, ss)
			}
		}
		if c.DType(s) != dt {
			return nil, 0, nil, nil, c.Errorf("scatter(): expected self.dtype to be equal to src.dtype (%v vs %v)", dt, c.DType(s))
		}
		src = emitSlice(c, s, make([]int64, len(ss)), ishape, nil)
	} else {
		src = c.ScalarFull(a.Scalar("value"), dt, ishape)
	}
	idx, err = wrapIndex(c, index, shape[d])
	if err != nil {
		return nil, 0, nil, nil, err
	}
	return x, d, idx, src, nil
}

func finishScatter(c *LowerCtx, a *Args, out *stablehlo.Value) []Value {
	return one(c.Reshape(out, c.Shape(a.Tensor("self"))))
}

func lowerScatter(c *LowerCtx, a *Args) ([]Value, error) {
	x, d, idx, src, err := scatterArgs(c, a)
	if err != nil {
		return nil, err
	}
	var f combineFunc
	if a.Has("reduce") {
		switch r := a.Str("reduce"); r {
		case "add":
			f = combineOp("add")
		case "multiply":
			f = combineOp("multiply")
		default:
			return nil, c.Errorf("scatter(): reduce argument must be either add or multiply, got %q", r)
		}
	}
	return finishScatter(c, a, scatterAlong(c, x, d, idx, src, f)), nil
}

func lowerScatterAdd(c *LowerCtx, a *Args) ([]Value, error) {
	x, d, idx, src, err := scatterArgs(c, a)
	if err != nil {
		return nil, err
	}
	return finishScatter(c, a, scatterAlong(c, x, d, idx, src, combineOp("add"))), nil
}

func lowerScatterReduce(c *LowerCtx, a *Args) ([]Value, error) {
	x, d, idx, src, err := scatterArgs(c, a)
	if err != nil {
		return nil, err
	}
	mode := a.Str("reduce")
	includeSelf := a.Bool("include_self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	ishape := c.Shape(idx)
	// reset writes the reduction's identity where the index points, so that
	// self does not take part (include_self=False).
	reset := func(v *stablehlo.Value) *stablehlo.Value {
		if includeSelf {
			return v
		}
		var init *stablehlo.Value
		switch mode {
		case "sum", "mean":
			init = c.SplatInt(dt, ishape, 0)
		case "prod":
			init = c.SplatInt(dt, ishape, 1)
		case "amax":
			init = c.BroadcastInDim(lowestConst(c, dt), ishape, nil)
		case "amin":
			init = c.BroadcastInDim(highestConst(c, dt), ishape, nil)
		}
		return scatterAlong(c, v, d, idx, init, nil)
	}
	var out *stablehlo.Value
	switch mode {
	case "sum":
		out = scatterAlong(c, reset(x), d, idx, src, combineOp("add"))
	case "prod":
		out = scatterAlong(c, reset(x), d, idx, src, combineOp("multiply"))
	case "amax":
		out = scatterAlong(c, reset(x), d, idx, src, combineOp("maximum"))
	case "amin":
		out = scatterAlong(c, reset(x), d, idx, src, combineOp("minimum"))
	case "mean":
		sum := scatterAlong(c, reset(x), d, idx, src, combineOp("add"))
		shape := c.Shape(x)
		base := c.SplatInt(dt, shape, 0)
		if includeSelf {
			base = c.SplatInt(dt, shape, 1)
		}
		count := scatterAlong(c, base, d, idx, c.SplatInt(dt, ishape, 1), combineOp("add"))
		zero := c.Compare("EQ", count, c.SplatInt(dt, shape, 0))
		count = c.Select(zero, c.SplatInt(dt, shape, 1), count)
		out = c.Binary("divide", sum, count)
		if dt.IsInteger() {
			// PyTorch divides integers with rounding_mode="floor".
			rem := c.Binary("remainder", sum, count)
			fix := c.Binary("and",
				c.Compare("NE", rem, c.SplatInt(dt, shape, 0)),
				c.Compare("NE", c.Compare("LT", rem, c.SplatInt(dt, shape, 0)), c.Compare("LT", count, c.SplatInt(dt, shape, 0))))
			out = c.Select(fix, c.Binary("subtract", out, c.SplatInt(dt, shape, 1)), out)
		}
	default:
		return nil, c.Errorf("scatter_reduce(): reduce argument must be one of sum, prod, mean, amax, amin, got %q", mode)
	}
	return finishScatter(c, a, out), nil
}

func lowerIndexPut(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	idx := a.Tensors("indices")
	vals := a.Tensor("values")
	acc := a.Bool("accumulate")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if hasMaskIndex(c, a.Value("indices").List) {
		out, err := maskedIndexPut(c, x, idx, vals, acc)
		if err != nil {
			return nil, err
		}
		return one(out), nil
	}
	ai, err := buildAdvIndex(c, x, idx)
	if err != nil {
		return nil, err
	}
	dt := c.DType(x)
	vals = c.Convert(vals, dt)
	if ai == nil {
		v, err := expandTo(c, vals, c.Shape(x))
		if err != nil {
			return nil, err
		}
		if acc {
			return one(combineOp("add")(c, x, v)), nil
		}
		return one(v), nil
	}
	upd, err := expandTo(c, vals, ai.resShape)
	if err != nil {
		return nil, c.Errorf("index_put: shape mismatch: value tensor of shape %v cannot be broadcast to indexing result of shape %v", c.Shape(vals), ai.resShape)
	}
	if ai.moveTo > 0 {
		perm := ai.toTorchOrder()
		inv := make([]int64, len(perm))
		for i, p := range perm {
			inv[p] = int64(i)
		}
		upd = emitTranspose(c, upd, inv)
	}
	nb := int64(len(ai.batch))
	win := make([]int64, len(ai.rest))
	for i := range win {
		win[i] = nb + int64(i)
	}
	s := &stablehlo.ScatterDims{UpdateWindowDims: win, InsertedWindowDims: ai.dims, ScatterDimsToOperandDims: ai.dims, IndexVectorDim: nb}
	var f combineFunc
	if acc {
		f = combineOp("add")
	}
	return one(emitScatter(c, x, ai.ind, upd, s, f)), nil
}

// maskedIndexPut lowers x[mask] = v (a single boolean mask, possibly after
// leading None entries) as a select: the shape stays static. Values given
// one row per true element are gathered by the running count of trues.
func maskedIndexPut(c *LowerCtx, x *stablehlo.Value, idx []*stablehlo.Value, vals *stablehlo.Value, acc bool) (*stablehlo.Value, error) {
	p := -1
	for i, t := range idx {
		if t == nil {
			continue
		}
		if p >= 0 {
			return nil, c.Errorf("index_put with a boolean mask and other indices: %w", ErrUnsupported)
		}
		p = i
	}
	mask := idx[p]
	if d := c.DType(mask); d != dtype.Bool && d != dtype.U8 {
		return nil, c.Errorf("index_put with a boolean mask and other indices: %w", ErrUnsupported)
	}
	shape, ms := c.Shape(x), c.Shape(mask)
	if p+len(ms) > len(shape) || !sameShape(ms, shape[p:p+len(ms)]) {
		return nil, c.Errorf("index_put: the shape of the mask %v does not match the shape of the indexed tensor %v at index %d", ms, shape, p)
	}
	dims := make([]int64, len(ms))
	for i := range dims {
		dims[i] = int64(p + i)
	}
	mb := c.Convert(mask, dtype.Bool)
	m := c.BroadcastInDim(mb, shape, dims)
	vals = c.Convert(vals, c.DType(x))
	pre, rest := shape[:p], shape[p+len(ms):]
	vs := c.Shape(vals)
	kdim := len(vs) - 1 - len(rest)
	var v *stablehlo.Value
	switch {
	case numelOf(vs) == 1:
		v = c.BroadcastInDim(c.Reshape(vals, nil), shape, nil)
	case kdim < 0 || vs[kdim] == 1:
		// The same values at every selected position.
		v = c.BroadcastTo(vals, shape)
	default:
		// One row of values per true element, in the mask's row-major
		// order: element j of the mask takes row (number of trues up to
		// j) - 1.
		k := vs[kdim]
		target := append(append(append([]int64(nil), pre...), k), rest...)
		vb := c.BroadcastTo(vals, target)
		mn := numelOf(ms)
		flat := c.Convert(c.Reshape(mb, []int64{mn}), dtype.I64)
		pos := c.Binary("subtract", c.Call1("aten::cumsum", TensorValue(flat), IntValue(0)), c.SplatInt(dtype.I64, []int64{mn}, 1))
		pos = c.Binary("minimum", c.Binary("maximum", pos, c.SplatInt(dtype.I64, []int64{mn}, 0)), c.SplatInt(dtype.I64, []int64{mn}, k-1))
		v = c.Reshape(takeAlongV(c, vb, len(pre), pos), shape)
	}
	if c.Err() != nil {
		return nil, c.Err()
	}
	if acc {
		v = combineOp("add")(c, x, v)
	}
	return c.Select(m, v, x), nil
}
