package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Reductions over groups decided by data: segment_reduce (segments given
// by lengths or offsets along an axis; the segment count is static),
// histc (a fixed number of equal bins), and isin (membership).

func init() {
	lower("aten::segment_reduce", lowerSegmentReduce)
	lower("aten::histc", lowerHistc)
	isin := func(c *LowerCtx, a *Args) ([]Value, error) {
		el, te := a.Operand("elements"), a.Operand("test_elements")
		if a.Schema.Param("element") >= 0 {
			el = a.Operand("element")
		}
		if a.Schema.Param("test_element") >= 0 {
			te = a.Operand("test_element")
		}
		invert := a.Bool("invert")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.ResultType(el, te)
		x, t := c.Materialize(el, dt), c.Materialize(te, dt)
		xs := c.Shape(x)
		m := numelOf(c.Shape(t))
		flat := c.Reshape(t, []int64{m})
		pair := append(append([]int64(nil), xs...), m)
		eq := c.Compare("EQ", c.BroadcastInDim(x, pair, seqI64(len(xs))), c.BroadcastInDim(flat, pair, []int64{int64(len(xs))}))
		any := c.ReduceWith(eq, []int64{int64(len(xs))}, "or", c.SplatInt(dtype.Bool, nil, 0))
		if invert {
			any = c.Unary("not", any)
		}
		return one(any), nil
	}
	lower("aten::isin.Tensor_Tensor", isin)
	lower("aten::isin.Tensor_Scalar", isin)
	lower("aten::isin.Scalar_Tensor", isin)
}

func lowerSegmentReduce(c *LowerCtx, a *Args) ([]Value, error) {
	data := a.Tensor("data")
	red := a.Str("reduce")
	lengths, offsets := a.OptTensor("lengths"), a.OptTensor("offsets")
	axis := a.Int("axis")
	initial, hasInit := a.OptScalar("initial")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if a.OptTensor("indices") != nil {
		return nil, c.Errorf("segment_reduce(): indices based reduction is not supported yet.")
	}
	r := c.Rank(data)
	ax, err := canonDim(axis, r)
	if err != nil || r == 0 {
		return nil, c.Errorf("segment_reduce: axis %d out of range for a %d-d tensor", axis, r)
	}
	lead := shape0(c, data)[:ax]
	nl := len(lead)
	var start, count *stablehlo.Value // [lead..., S] int64
	switch {
	case lengths != nil:
		if c.Rank(lengths) != nl+1 {
			return nil, c.Errorf("segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe.")
		}
		count = c.Convert(lengths, dtype.I64)
		cs := c.Call1("aten::cumsum", TensorValue(count), IntValue(int64(nl)))
		start = c.Binary("subtract", cs, count)
	case offsets != nil:
		if c.Rank(offsets) != nl+1 {
			return nil, c.Errorf("segment_reduce(): offsets must have %d dims for axis %d", nl+1, ax)
		}
		o := c.Convert(offsets, dtype.I64)
		k := c.Shape(o)[nl]
		start = sliceDim(c, o, nl, 0, k-1, 1)
		count = c.Binary("subtract", sliceDim(c, o, nl, 1, k-1, 1), start)
	default:
		return nil, c.Errorf("segment_reduce(): Either lengths or offsets must be defined.")
	}
	dt := c.DType(data)
	w := OpMath(dt)
	shape := c.Shape(data)
	n, s := shape[ax], c.Shape(start)[nl]
	rest := shape[ax+1:]
	// member[lead..., s, i]: element i of the axis lies in segment s.
	si := append(append([]int64(nil), lead...), s, n)
	ld := seqI64(nl + 1)
	idx := c.Iota(dtype.I64, si, nl+1)
	st := c.BroadcastInDim(start, si, ld)
	member := c.Binary("and", c.Compare("GE", idx, st), c.Compare("LT", idx, c.Binary("add", st, c.BroadcastInDim(count, si, ld))))
	full := append(append([]int64(nil), si...), rest...)
	mb := c.BroadcastInDim(member, full, seqI64(nl+2))
	xd := append(seqI64(nl), seqFrom(nl+1, len(full))...)
	x := c.BroadcastInDim(c.Convert(data, w), full, xd)
	var body string
	var ident float64
	switch red {
	case "sum", "mean":
		body, ident = "add", 0
	case "prod":
		body, ident = "multiply", 1
	case "max":
		body, ident = "maximum", math.Inf(-1)
	case "min":
		body, ident = "minimum", math.Inf(1)
	default:
		return nil, c.Errorf("segment_reduce: reduction %q is not supported", red)
	}
	idv := c.Splat(w, nil, ident)
	if red == "max" || red == "min" {
		if !w.IsFloat() {
			if red == "max" {
				idv = lowestConst(c, w)
			} else {
				idv = highestConst(c, w)
			}
		}
	}
	sel := c.Select(mb, x, c.BroadcastTo(idv, full))
	if (red == "max" || red == "min") && w.IsFloat() {
		// NaN propagates: a NaN member wins.
		body = map[string]string{"max": "maximum", "min": "minimum"}[red]
	}
	out := c.ReduceWith(sel, []int64{int64(nl + 1)}, body, idv) // [lead..., s, rest...]
	os := c.Shape(out)
	cnt := c.BroadcastInDim(c.Convert(count, w), os, seqI64(nl+1))
	if hasInit {
		iv := c.ScalarFull(initial, w, os)
		switch red {
		case "sum", "mean":
			out = c.Binary("add", out, iv)
		case "prod":
			out = c.Binary("multiply", out, iv)
		case "max":
			out = c.Binary("maximum", out, iv)
		case "min":
			out = c.Binary("minimum", out, iv)
		}
		if red == "mean" {
			empty := c.Compare("EQ", cnt, c.Splat(w, os, 0))
			out = c.Select(empty, iv, c.Binary("divide", out, cnt))
		}
	} else if red == "mean" {
		out = c.Binary("divide", out, cnt) // 0/0: NaN for an empty segment
	}
	return one(c.Convert(out, dt)), nil
}

func shape0(c *LowerCtx, v *stablehlo.Value) []int64 { return append([]int64(nil), c.Shape(v)...) }

// seqFrom is [from, from+1, ..., to-1].
func seqFrom(from, to int) []int64 {
	out := make([]int64, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, int64(i))
	}
	return out
}

// lowerHistc counts elements in bins equal-width bins over [min, max]
// (the data's range when both are 0 ... equal), the bin of x being
// trunc((x - min)·bins / (max - min)) and max itself in the last bin.
func lowerHistc(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	bins := a.Int("bins")
	lo, hi := a.Scalar("min").Float(), a.Scalar("max").Float()
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	if !dt.IsFloat() {
		return nil, c.Errorf("\"histogram_cpu\" not implemented for '%s'", dt.Torch())
	}
	if bins <= 0 {
		return nil, c.Errorf("torch.histc(): bins must be > 0, but got %d for dimension 0", bins)
	}
	if lo > hi {
		return nil, c.Errorf("torch.histc(): max must be larger than min")
	}
	n := numelOf(c.Shape(x))
	v := c.Reshape(x, []int64{n})
	var left, right *stablehlo.Value
	if lo == hi {
		if n > 0 {
			left = c.ReduceWith(v, []int64{0}, "minimum", highestConst(c, dt))
			right = c.ReduceWith(v, []int64{0}, "maximum", lowestConst(c, dt))
		} else {
			left, right = c.Splat(dt, nil, 0), c.Splat(dt, nil, 0)
		}
		same := c.Compare("EQ", left, right)
		left = c.Select(same, c.Binary("subtract", left, c.Splat(dt, nil, 1)), left)
		right = c.Select(same, c.Binary("add", right, c.Splat(dt, nil, 1)), right)
	} else {
		left, right = c.Splat(dt, nil, lo), c.Splat(dt, nil, hi)
	}
	lb, rb := c.BroadcastTo(left, []int64{n}), c.BroadcastTo(right, []int64{n})
	pos := c.Binary("divide", c.Binary("multiply", c.Binary("subtract", v, lb), c.Splat(dt, []int64{n}, float64(bins))),
		c.Binary("subtract", rb, lb))
	idx := c.Convert(pos, dtype.I64)
	idx = c.Select(c.Compare("EQ", v, rb), c.SplatInt(dtype.I64, []int64{n}, bins-1), idx)
	in := c.Binary("and", c.Compare("GE", v, lb), c.Compare("LE", v, rb))
	pair := []int64{bins, n}
	hit := c.Binary("and", c.Compare("EQ", c.Iota(dtype.I64, pair, 0), c.BroadcastInDim(idx, pair, []int64{1})),
		c.BroadcastInDim(in, pair, []int64{1}))
	counts := c.Reduce(c.Convert(hit, dtype.I64), []int64{1}, "add", 0)
	return one(c.Convert(counts, dt)), nil
}
