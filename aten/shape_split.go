package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// tensor_split (by a section count, by indices, or by a tensor holding
// either) and the numpy-style hsplit / vsplit / dsplit over it; resize_as_
// and the uninitialized creations empty_permuted and new_empty_strided.

func init() {
	lower("aten::tensor_split.sections", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		n, dim := a.Int("sections"), a.Int("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		return tensorSplitSections(c, x, n, dim)
	})
	lower("aten::tensor_split.indices", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		idx, dim := a.Ints("indices"), a.Int("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		return tensorSplitIndices(c, x, idx, dim)
	})
	for _, v := range []struct {
		name    string
		minRank int
		dim     func(rank int) int64
	}{
		{"hsplit", 1, func(r int) int64 {
			if r == 1 {
				return 0
			}
			return 1
		}},
		{"vsplit", 2, func(int) int64 { return 0 }},
		{"dsplit", 3, func(int) int64 { return 2 }},
	} {
		v := v
		check := func(c *LowerCtx, x *stablehlo.Value) (int64, error) {
			if r := c.Rank(x); r < v.minRank {
				return 0, c.Errorf("torch.%s requires a tensor with at least %d dimension, but got a tensor with %d dimensions!", v.name, v.minRank, r)
			}
			return v.dim(c.Rank(x)), nil
		}
		lower("aten::"+v.name+".int", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			n := a.Int("sections")
			if a.Err() != nil {
				return nil, a.Err()
			}
			d, err := check(c, x)
			if err != nil {
				return nil, err
			}
			size := c.Shape(x)[d]
			if n == 0 || size%n != 0 {
				return nil, c.Errorf("torch.%s attempted to split along dimension %d, but the size of the dimension %d is not divisible by the split_size %d!", v.name, d, size, n)
			}
			return tensorSplitSections(c, x, n, d)
		})
		lower("aten::"+v.name+".array", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			idx := a.Ints("indices")
			if a.Err() != nil {
				return nil, a.Err()
			}
			d, err := check(c, x)
			if err != nil {
				return nil, err
			}
			return tensorSplitIndices(c, x, idx, d)
		})
	}
	lower("aten::resize_as_", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, t := a.Tensor("self"), a.Tensor("the_template")
		if a.Err() != nil {
			return nil, a.Err()
		}
		want := c.Shape(t)
		if numelOf(want) != numelOf(c.Shape(x)) {
			// Growing exposes uninitialized storage; shrinking keeps a
			// prefix PyTorch does not promise to keep either.
			return nil, c.Errorf("resize_as_ from %v to %v changes the element count: %w", c.Shape(x), want, ErrUnsupported)
		}
		return one(c.Reshape(x, want)), nil
	})
	lower("aten::empty_permuted", func(c *LowerCtx, a *Args) ([]Value, error) {
		size, perm := a.Ints("size"), a.Ints("physical_layout")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if len(perm) != len(size) {
			return nil, c.Errorf("Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = %d is not equal to len(physical_layout) = %d", len(size), len(perm))
		}
		if _, err := checkedNumel(size); err != nil {
			return nil, c.Errorf("empty_permuted: %w", err)
		}
		return one(c.Splat(dtypeOr(a, dtype.DefaultFloat), size, 0)), nil
	})
	lower("aten::new_empty_strided", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		size, stride := a.Ints("size"), a.Ints("stride")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if len(stride) != len(size) {
			return nil, c.Errorf("mismatch in length of strides and shape")
		}
		if _, err := checkedNumel(size); err != nil {
			return nil, c.Errorf("new_empty_strided: %w", err)
		}
		return one(c.Splat(dtypeOr(a, c.DType(x)), size, 0)), nil
	})
}

func splitDim(c *LowerCtx, x *stablehlo.Value, dim int64) (int, error) {
	r := c.Rank(x)
	if r == 0 {
		return 0, c.Errorf("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
	}
	d, err := canonDim(dim, r)
	if err != nil {
		return 0, c.Errorf("tensor_split: %w", err)
	}
	return d, nil
}

func tensorSplitSections(c *LowerCtx, x *stablehlo.Value, n, dim int64) ([]Value, error) {
	d, err := splitDim(c, x, dim)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, c.Errorf("number of sections must be larger than 0, got %d", n)
	}
	size := c.Shape(x)[d]
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = size / n
		if int64(i) < size%n {
			sizes[i]++
		}
	}
	return []Value{ListValue(splitPieces(c, x, d, sizes)...)}, nil
}

// tensorSplitIndices cuts at the given indices: piece k is the slice
// [indices[k-1], indices[k]) with slice's rules (negative indices count
// from the end, clamped; a decreasing pair gives an empty piece).
func tensorSplitIndices(c *LowerCtx, x *stablehlo.Value, idx []int64, dim int64) ([]Value, error) {
	d, err := splitDim(c, x, dim)
	if err != nil {
		return nil, err
	}
	size := c.Shape(x)[d]
	norm := func(v int64) int64 {
		if v < 0 {
			v += size
		}
		return clampI64(v, 0, size)
	}
	out := make([]Value, 0, len(idx)+1)
	start := int64(0)
	for _, e := range append(append([]int64(nil), idx...), size) {
		s, end := norm(start), norm(e)
		out = append(out, TensorValue(sliceDim(c, x, d, s, max(0, end-s), 1)))
		start = e
	}
	return []Value{ListValue(out...)}, nil
}
