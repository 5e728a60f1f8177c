package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// More reductions: aminmax, nanmean, nanmedian, mode and hash_tensor.

func init() {
	lower("aten::aminmax", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dim, hasDim := a.OptInt("dim")
		keep := a.Bool("keepdim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		var dims Value
		if hasDim {
			dims = IntsValue([]int64{dim})
			if c.Rank(x) > 0 && c.Shape(x)[mustDim(c, dim, c.Rank(x))] == 0 {
				return nil, c.Errorf("aminmax(): Expected reduction dim %d to have non-zero size.", dim)
			}
		} else {
			if numelOf(c.Shape(x)) == 0 {
				return nil, c.Errorf("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
			}
			dims = IntsValue(seqI64(c.Rank(x)))
		}
		lo := c.Call1("aten::amin", TensorValue(x), dims, BoolValue(keep))
		hi := c.Call1("aten::amax", TensorValue(x), dims, BoolValue(keep))
		return []Value{TensorValue(lo), TensorValue(hi)}, nil
	})
	lower("aten::nanmean", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dim, hasDim := a.OptInts("dim")
		keep := a.Bool("keepdim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.DType(x)
		if od, ok := a.OptDType("dtype"); ok {
			dt = od
		}
		if !dt.IsFloat() && !dt.IsComplex() {
			return nil, c.Errorf("nanmean(): expected input to have floating point or complex dtype but got %s", dt.Torch())
		}
		var dims Value
		if hasDim {
			dims = IntsValue(dim)
		} else {
			dims = None()
		}
		kw := map[string]Value{"keepdim": BoolValue(keep)}
		if od, ok := a.OptDType("dtype"); ok {
			kw["dtype"] = DTypeValue(od)
		}
		sum, err := c.Call("aten::nansum", []Value{TensorValue(x), dims}, kw)
		if err != nil {
			return nil, err
		}
		notNaN := c.Unary("not", c.IsNaN(x))
		cnt := c.Call1("aten::sum.dim_IntList", TensorValue(notNaN), dims, BoolValue(keep))
		return c.Call("aten::div.Tensor", []Value{sum[0], TensorValue(cnt)}, nil)
	})
	lower("aten::nanmedian.dim", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dim, keep := a.Int("dim"), a.Bool("keepdim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(x) == 0 {
			if dim != 0 && dim != -1 {
				return nil, c.Errorf("Dimension out of range (expected to be in range of [-1, 0], but got %d)", dim)
			}
			return []Value{TensorValue(x), TensorValue(c.SplatInt(dtype.I64, nil, 0))}, nil
		}
		d := mustDim(c, dim, c.Rank(x))
		if c.Shape(x)[d] == 0 {
			return nil, c.Errorf("nanmedian(): Expected reduction dim %d to have non-zero size.", dim)
		}
		v, i := nanmedian(c, x, int64(d), keep)
		return []Value{TensorValue(v), TensorValue(i)}, nil
	})
	lower("aten::nanmedian", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		n := numelOf(c.Shape(x))
		if n == 0 {
			return one(c.Splat(c.DType(x), nil, math.NaN())), nil
		}
		v, _ := nanmedian(c, c.Reshape(x, []int64{n}), 0, false)
		return one(v), nil
	})
	lower("aten::mode", lowerMode)
	lower("aten::hash_tensor", lowerHashTensor)
}

// mustDim canonicalizes dim, recording PyTorch's error if out of range.
func mustDim(c *LowerCtx, dim int64, rank int) int {
	d, err := canonDim(dim, max(rank, 1))
	if err != nil {
		c.Errorf("%w", err)
		return 0
	}
	return d
}

// nanmedian is the lower median of the non-NaN values along dim (NaN when
// there are none) with its index: a stable sort, NaN last, picks entry
// (m-1)/2 of the m non-NaN values.
func nanmedian(c *LowerCtx, x *stablehlo.Value, dim int64, keep bool) (vals, idx *stablehlo.Value) {
	shape := c.Shape(x)
	dt := c.DType(x)
	sv, si := sortAlong(c, x, int(dim), false)
	out := keptShape(shape, []int64{dim}, true)
	k := c.SplatInt(dtype.I64, out, (shape[dim]-1)/2)
	if dt.IsFloat() {
		m := reduceTo(c, c.Convert(c.Unary("not", c.IsNaN(x)), dtype.I64), []int64{dim}, true, "add", 0, dtype.I64)
		half := c.Binary("divide", c.Binary("subtract", m, c.SplatInt(dtype.I64, out, 1)), c.SplatInt(dtype.I64, out, 2))
		k = c.Select(c.Compare("GT", m, c.SplatInt(dtype.I64, out, 0)), half, c.SplatInt(dtype.I64, out, 0))
	}
	final := keptShape(shape, []int64{dim}, keep)
	vals = c.Reshape(gatherAlong(c, sv, int(dim), k), final)
	idx = c.Reshape(gatherAlong(c, si, int(dim), k), final)
	return vals, idx
}

// lowerMode: the most frequent value along dim (the smallest among equally
// frequent ones) and the index PyTorch's CPU kernel returns for it.
// Counting compares every pair of the dim's elements.
func lowerMode(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim, keep := a.Int("dim"), a.Bool("keepdim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.DType(x).IsComplex() {
		return nil, c.Errorf("mode(): complex tensors are not supported")
	}
	scalar := c.Rank(x) == 0
	if scalar {
		x = c.Reshape(x, []int64{1})
	}
	d := mustDim(c, dim, c.Rank(x))
	if c.Err() != nil {
		return nil, c.Err()
	}
	// Move dim last: [rows..., n].
	r := c.Rank(x)
	perm := make([]int64, 0, r)
	for i := 0; i < r; i++ {
		if i != d {
			perm = append(perm, int64(i))
		}
	}
	perm = append(perm, int64(d))
	xt := emitTranspose(c, x, perm)
	s := c.Shape(xt)
	n := s[r-1]
	if n == 0 {
		return nil, c.Errorf("mode(): Expected reduction dim %d to have non-zero size.", dim)
	}
	pair := append(append([]int64(nil), s...), n)
	rows := seqI64(r - 1)
	xi := c.BroadcastInDim(xt, pair, append(append([]int64(nil), rows...), int64(r-1)))
	xj := c.BroadcastInDim(xt, pair, append(append([]int64(nil), rows...), int64(r)))
	eq := c.Compare("EQ", xi, xj)
	if c.DType(x).IsFloat() {
		eq = c.Binary("or", eq, c.Binary("and", c.IsNaN(xi), c.IsNaN(xj)))
	}
	count := c.Reduce(c.Convert(eq, dtype.I64), []int64{int64(r)}, "add", 0) // [rows..., n]
	best := c.Reduce(count, []int64{int64(r - 1)}, "maximum", 0)
	isBest := c.Compare("EQ", count, c.BroadcastInDim(best, s, rows))
	// The smallest most frequent value.
	dt := c.DType(x)
	big := highestConst(c, dt)
	cand := c.Select(isBest, xt, c.BroadcastTo(big, s))
	val := c.ReduceWith(cand, []int64{int64(r - 1)}, "minimum", big)
	// Its index: PyTorch std::sorts (value, index) pairs by value and
	// returns the index paired with the last entry of the value's run, so
	// the same unstable sort (which the native backend runs as std::sort)
	// orders the tied indices the same way.
	sv, si := sortAlongOrder(c, xt, r-1, false, false)
	vb := c.BroadcastInDim(val, s, rows)
	same := c.Compare("EQ", sv, vb)
	if dt.IsFloat() {
		same = c.Binary("or", same, c.Binary("and", c.IsNaN(sv), c.IsNaN(vb)))
	}
	iota := c.Iota(dtype.I64, s, r-1)
	last := c.Reduce(c.Select(same, iota, c.SplatInt(dtype.I64, s, -1)), []int64{int64(r - 1)}, "maximum", -1)
	at := c.Compare("EQ", iota, c.BroadcastInDim(last, s, rows))
	idx := c.Reduce(c.Select(at, si, c.SplatInt(dtype.I64, s, -1)), []int64{int64(r - 1)}, "maximum", -1)
	outShape := keptShape(c.Shape(x), []int64{int64(d)}, keep)
	if scalar {
		outShape = nil
	}
	return []Value{TensorValue(c.Reshape(val, outShape)), TensorValue(c.Reshape(idx, outShape))}, nil
}

// lowerHashTensor xor-reduces the elements' bits after widening them to
// 64 bits (floats to float64, integers sign-extended to int64).
func lowerHashTensor(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dims, _ := a.OptInts("dim")
	keep, mode := a.Bool("keepdim"), a.Int("mode")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if mode != 0 {
		return nil, c.Errorf("hash_tensor only support mode=0 (xor_sum) for now, got mode=%d", mode)
	}
	dt := c.DType(x)
	if dt.IsComplex() {
		return nil, c.Errorf("\"xor_sum_cpu\" not implemented for '%s'", dt.Torch())
	}
	shape := c.Shape(x)
	var bits *stablehlo.Value
	if dt.IsFloat() {
		f := c.Convert(x, dtype.F64)
		bits = c.Op1("stablehlo.bitcast_convert", []*stablehlo.Value{f}, nil, stablehlo.Tensor(dtype.U64, shape...))
	} else {
		i := c.Convert(x, dtype.I64)
		bits = c.Op1("stablehlo.bitcast_convert", []*stablehlo.Value{i}, nil, stablehlo.Tensor(dtype.U64, shape...))
	}
	rd := reduceDims(c, dims, len(dims) == 0, len(shape))
	return one(reduceTo(c, bits, rd, keep, "xor", 0, dtype.U64)), nil
}
