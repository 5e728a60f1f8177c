package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Sorting: sort, sort.stable, argsort, topk. One stablehlo.sort carries
// (values, int64 positions); the comparator orders every NaN above +inf,
// as PyTorch does, so ascending puts NaNs last and descending first.
// sort/argsort with stable=False (the default) emit is_stable = false:
// PyTorch's CPU kernel (SortingKernel.cpp) then runs std::sort, whose
// order among ties the native backend reproduces (libstdc++'s introsort).
// That is the reference build's path for every dtype (Debian's 2.14 has
// neither x86-simd-sort nor fbgemm's radix sort: its unstable order
// matches introsort for int8..int64, uint8, float32/64 and 40000-element
// tensors); builds with those order ties differently. msort, topk and
// the other users keep a stable sort.

func init() {
	lower("aten::sort", lowerSort)
	lower("aten::sort.stable", lowerSort)
	lower("aten::argsort", lowerArgsort)
	lower("aten::argsort.stable", lowerArgsort)
	lower("aten::topk", lowerTopk)
	lower("aten::msort", lowerMsort)
}

// sortAlong sorts x along d, returning sorted values and their original
// positions (int64).
func sortAlong(c *LowerCtx, x *stablehlo.Value, d int, descending bool) (vals, idx *stablehlo.Value) {
	return sortAlongOrder(c, x, d, descending, true)
}

// sortAlongOrder is sortAlong with is_stable = stable.
func sortAlongOrder(c *LowerCtx, x *stablehlo.Value, d int, descending, stable bool) (vals, idx *stablehlo.Value) {
	t := c.Type(x)
	dt := t.DType()
	iota := c.Iota(dtype.I64, t.Shape, d)
	sv, si := stablehlo.Tensor(dt), stablehlo.Tensor(dtype.I64)
	cmp := c.Region([]stablehlo.Type{sv, sv, si, si}, func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		lhs, rhs := a[0], a[1]
		if descending {
			lhs, rhs = rhs, lhs
		}
		less := s.Compare("LT", lhs, rhs)
		if dt.IsFloat() {
			// rhs NaN and lhs not: lhs comes first.
			nanR := s.IsNaN(rhs)
			notNanL := s.Unary("not", s.IsNaN(lhs))
			less = s.Binary("or", less, s.Binary("and", nanR, notNanL))
		}
		return []*stablehlo.Value{less}
	})
	op := c.OpRegions("stablehlo.sort", []*stablehlo.Value{x, iota}, []stablehlo.NamedAttr{
		Attr("dimension", &stablehlo.IntAttr{Value: int64(d)}),
		Attr("is_stable", stablehlo.BoolAttr(stable)),
	}, []*stablehlo.Region{cmp})
	if len(op.Results) != 2 {
		return x, iota
	}
	return op.Results[0], op.Results[1]
}

// sortInput reads self and dim, making 0-d tensors 1-d.
func sortInput(c *LowerCtx, a *Args) (x *stablehlo.Value, d int, scalar bool, err error) {
	x = a.Tensor("self")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, 0, false, a.Err()
	}
	if c.Rank(x) == 0 {
		x, scalar = c.Reshape(x, []int64{1}), true
	}
	d, err = canonDim(dim, c.Rank(x))
	if c.DType(x).IsComplex() {
		return nil, 0, false, c.Errorf("sort(): complex tensors are not supported")
	}
	return x, d, scalar, err
}

func lowerSort(c *LowerCtx, a *Args) ([]Value, error) {
	x, d, scalar, err := sortInput(c, a)
	if err != nil {
		return nil, err
	}
	desc := a.Bool("descending")
	stable, _ := a.OptBool("stable") // sort.default: stable=False
	if a.Err() != nil {
		return nil, a.Err()
	}
	v, i := sortAlongOrder(c, x, d, desc, stable)
	if scalar {
		v, i = c.Reshape(v, nil), c.Reshape(i, nil)
	}
	return []Value{TensorValue(v), TensorValue(i)}, nil
}

func lowerArgsort(c *LowerCtx, a *Args) ([]Value, error) {
	out, err := lowerSort(c, a)
	if err != nil {
		return nil, err
	}
	return out[1:], nil
}

func lowerMsort(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(x) == 0 {
		return one(x), nil
	}
	v, _ := sortAlong(c, x, 0, false)
	return one(v), nil
}

func lowerTopk(c *LowerCtx, a *Args) ([]Value, error) {
	x, d, scalar, err := sortInput(c, a)
	if err != nil {
		return nil, err
	}
	k := a.Int("k")
	largest := a.Bool("largest")
	if a.Err() != nil {
		return nil, a.Err()
	}
	n := c.Shape(x)[d]
	if k < 0 || k > n {
		return nil, c.Errorf("topk(): selected index k=%d out of range for dimension of size %d", k, n)
	}
	v, i := sortAlong(c, x, d, largest)
	v, i = sliceDim(c, v, d, 0, k, 1), sliceDim(c, i, d, 0, k, 1)
	if scalar {
		v, i = c.Reshape(v, nil), c.Reshape(i, nil)
	}
	return []Value{TensorValue(v), TensorValue(i)}, nil
}
