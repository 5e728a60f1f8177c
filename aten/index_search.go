package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Searching and index generation: searchsorted, bucketize, kthvalue,
// tril_indices / triu_indices, and repeat_interleave (static for an int
// repeat count; on the host when the counts are a tensor).

func init() {
	lower("aten::searchsorted.Tensor", lowerSearchsorted)
	lower("aten::searchsorted.Scalar", lowerSearchsorted)
	lower("aten::bucketize.Tensor", lowerBucketize)
	lower("aten::bucketize.Scalar", lowerBucketize)
	lower("aten::kthvalue", lowerKthvalue)
	lower("aten::tril_indices", lowerTriIndices(true))
	lower("aten::triu_indices", lowerTriIndices(false))
	lower("aten::repeat_interleave.self_int", lowerRepeatInterleaveInt)
	Register(Entry{Name: "aten::repeat_interleave.self_Tensor", Kind: HostFallback, Host: hostRepeatInterleave})
	Register(Entry{Name: "aten::repeat_interleave.Tensor", Kind: HostFallback, Host: hostRepeatInterleave})
}

// countBelow returns, for each value, how many sequence entries are < it
// (right: <=). seq is [..., M] with leading dims matching vals [..., N], or
// 1-D for values of any shape.
func countBelow(c *LowerCtx, seq, vals *stablehlo.Value, right bool, out dtype.DType) (*stablehlo.Value, error) {
	ss, vs := c.Shape(seq), c.Shape(vals)
	dt := c.ResultType(TensorOperand(seq), TensorOperand(vals))
	seq, vals = c.Convert(seq, dt), c.Convert(vals, dt)
	var full []int64
	var sd, vd []int64
	switch {
	case len(ss) == 1:
		full = append(append([]int64(nil), vs...), ss[0])
		sd = []int64{int64(len(vs))}
		vd = seqI64(len(vs))
	case len(ss) > 1 && len(ss) == len(vs) && sameShape(ss[:len(ss)-1], vs[:len(vs)-1]):
		r := len(vs)
		full = append(append([]int64(nil), vs...), ss[r-1])
		sd = append(seqI64(r-1), int64(r))
		vd = seqI64(r)
	default:
		return nil, c.Errorf("searchsorted: boundaries of shape %v do not fit values of shape %v", ss, vs)
	}
	sb, vb := c.BroadcastInDim(seq, full, sd), c.BroadcastInDim(vals, full, vd)
	dir := "LT"
	if right {
		dir = "LE"
	}
	hit := c.Convert(c.Compare(dir, sb, vb), out)
	return c.Reduce(hit, []int64{int64(len(full) - 1)}, "add", 0), nil
}

func searchOutDType(a *Args) dtype.DType {
	if a.Bool("out_int32") {
		return dtype.I32
	}
	return dtype.I64
}

func lowerSearchsorted(c *LowerCtx, a *Args) ([]Value, error) {
	seq := a.Tensor("sorted_sequence")
	var vals *stablehlo.Value
	if a.Schema.Overload == "Scalar" {
		s := a.Scalar("self")
		vals = c.ScalarConst(s, s.DType())
	} else {
		vals = a.Tensor("self")
	}
	right := a.Bool("right")
	if side, ok := a.OptStr("side"); ok {
		if right && side == "left" {
			return nil, c.Errorf("torch.searchsorted(): side and right can't be set to opposites")
		}
		right = side == "right"
	}
	sorter := a.OptTensor("sorter")
	out := searchOutDType(a)
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(seq) == 0 {
		return nil, c.Errorf("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension")
	}
	if sorter != nil {
		if !sameShape(c.Shape(sorter), c.Shape(seq)) {
			return nil, c.Errorf("torch.searchsorted(): boundary and sorter must have the same size, but got %v and %v", c.Shape(seq), c.Shape(sorter))
		}
		ss := c.Shape(seq)
		w, err := wrapIndex(c, sorter, ss[len(ss)-1])
		if err != nil {
			return nil, err
		}
		seq = gatherAlong(c, seq, len(ss)-1, w)
	}
	v, err := countBelow(c, seq, vals, right, out)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerBucketize(c *LowerCtx, a *Args) ([]Value, error) {
	b := a.Tensor("boundaries")
	var vals *stablehlo.Value
	if a.Schema.Overload == "Scalar" {
		s := a.Scalar("self")
		vals = c.ScalarConst(s, s.DType())
	} else {
		vals = a.Tensor("self")
	}
	right := a.Bool("right")
	out := searchOutDType(a)
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(b) != 1 {
		return nil, c.Errorf("bucketize: boundaries tensor must be 1 dimension, but got dim(%d)", c.Rank(b))
	}
	v, err := countBelow(c, b, vals, right, out)
	if err != nil {
		return nil, err
	}
	return one(v), nil
}

func lowerKthvalue(c *LowerCtx, a *Args) ([]Value, error) {
	x, d, scalar, err := sortInput(c, a)
	if err != nil {
		return nil, err
	}
	k := a.Int("k")
	keep := a.Bool("keepdim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	n := c.Shape(x)[d]
	if k < 1 || k > n {
		return nil, c.Errorf("kthvalue(): selected number k out of range for dimension %d", d)
	}
	v, i := sortAlong(c, x, d, false)
	v, i = sliceDim(c, v, d, k-1, 1, 1), sliceDim(c, i, d, k-1, 1, 1)
	shape := c.Shape(v)
	if scalar {
		shape = nil
	} else if !keep {
		shape = append(append([]int64(nil), shape[:d]...), shape[d+1:]...)
	}
	return []Value{TensorValue(c.Reshape(v, shape)), TensorValue(c.Reshape(i, shape))}, nil
}

func lowerTriIndices(lower bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		rows, cols, off := a.Int("row"), a.Int("col"), a.Int("offset")
		dt := dtype.I64
		if v := a.Value("dtype"); v.Kind == KDType {
			dt = v.DType
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		if rows < 0 || cols < 0 {
			return nil, c.Errorf("tril_indices: row and col must be non-negative, got %d and %d", rows, cols)
		}
		var rs, cs []int64
		for i := int64(0); i < rows; i++ {
			for j := int64(0); j < cols; j++ {
				if (lower && j-i <= off) || (!lower && j-i >= off) {
					rs, cs = append(rs, i), append(cs, j)
				}
			}
		}
		n := int64(len(rs))
		return one(c.Convert(constI64(c, []int64{2, n}, append(rs, cs...)), dt)), nil
	}
}

func lowerRepeatInterleaveInt(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	r := a.Int("repeats")
	dim, hasDim := a.OptInt("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if r < 0 {
		return nil, c.Errorf("repeat_interleave: repeats can not be negative")
	}
	if !hasDim {
		x = c.Reshape(x, []int64{numelOf(c.Shape(x))})
		dim = 0
	}
	if c.Rank(x) == 0 {
		x = c.Reshape(x, []int64{1})
	}
	d, err := canonDim(dim, c.Rank(x))
	if err != nil {
		return nil, err
	}
	if r == 0 {
		return one(sliceDim(c, x, d, 0, 0, 1)), nil
	}
	return one(repeatInterleaveDim(c, x, d, r)), nil
}

// hostRepeatInterleave runs repeat_interleave with tensor counts.
func hostRepeatInterleave(_ *HostCtx, a *Args) ([]Value, error) {
	var x, reps *literal.Literal
	if a.Schema.Overload == "Tensor" {
		reps = a.Literal("repeats")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if reps.Rank() > 1 {
			return nil, fmt.Errorf("repeat_interleave: repeats must be 0-dim or 1-dim tensor")
		}
		x, _ = literal.New(dtype.I64, []int64{int64(reps.Len())})
		for i := 0; i < reps.Len(); i++ {
			x.SetInt64(i, int64(i))
		}
	} else {
		x, reps = a.Literal("self"), a.Literal("repeats")
	}
	dim, hasDim := int64(0), false
	if a.Schema.Param("dim") >= 0 {
		dim, hasDim = a.OptInt("dim")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := append([]int64(nil), x.Shape...)
	if !hasDim {
		shape = []int64{int64(x.Len())}
		dim = 0
	}
	if len(shape) == 0 {
		shape = []int64{1}
	}
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, fmt.Errorf("repeat_interleave: %w", err)
	}
	n := shape[d]
	counts := make([]int64, n)
	for i := range counts {
		switch {
		case reps.Len() == 1:
			counts[i] = reps.Int64(0)
		case int64(reps.Len()) == n:
			counts[i] = reps.Int64(i)
		default:
			return nil, fmt.Errorf("repeat_interleave: repeats must have the same size as input along dim, but got repeats.size(0) = %d and input.size(%d) = %d", reps.Len(), d, n)
		}
		if counts[i] < 0 {
			return nil, fmt.Errorf("repeat_interleave: repeats can not be negative")
		}
	}
	var src []int64
	for i, k := range counts {
		for j := int64(0); j < k; j++ {
			src = append(src, int64(i))
		}
	}
	outShape := append([]int64(nil), shape...)
	outShape[d] = int64(len(src))
	out, err := literal.New(x.DType, outShape)
	if err != nil {
		return nil, fmt.Errorf("repeat_interleave: %w", err)
	}
	inner := numelOf(shape[d+1:])
	outer := numelOf(shape[:d])
	m := int64(len(src))
	for o := int64(0); o < outer; o++ {
		for j := int64(0); j < m; j++ {
			for k := int64(0); k < inner; k++ {
				copyElem(out, int((o*m+j)*inner+k), x, int((o*n+src[j])*inner+k))
			}
		}
	}
	return []Value{LiteralValue(out)}, nil
}
