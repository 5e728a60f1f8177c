package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Host advanced indexing: index.Tensor with boolean (or uint8) mask
// indices has a data-dependent result shape, so it runs on the host. The
// lowering reports ErrHostOnly for such calls (before emitting anything);
// the runtime then runs this kernel on literals.

// hasMaskIndex reports whether an index list holds a bool/uint8 tensor.
func hasMaskIndex(c *LowerCtx, idx []Value) bool {
	for _, v := range idx {
		if v.Kind == KTensor && v.T != nil {
			if d := c.DType(v.T); d == dtype.Bool || d == dtype.U8 {
				return true
			}
		}
	}
	return false
}

// expandMasks replaces each mask of rank k by k int64 coordinate tensors
// (its nonzero positions), as PyTorch does before indexing.
func expandMasks(x *literal.Literal, idx []Value) ([]*literal.Literal, error) {
	var out []*literal.Literal
	for _, v := range idx {
		if v.Kind != KTensor || v.Lit == nil {
			out = append(out, nil)
			continue
		}
		l := v.Lit
		if l.DType != dtype.Bool && l.DType != dtype.U8 {
			if !l.DType.IsInteger() {
				return nil, fmt.Errorf("tensors used as indices must be long, int, byte or bool tensors, got %v", l.DType)
			}
			out = append(out, l)
			continue
		}
		p := len(out)
		k := l.Rank()
		if p+k > x.Rank() {
			return nil, fmt.Errorf("too many indices for tensor of dimension %d", x.Rank())
		}
		for d := 0; d < k; d++ {
			if l.Shape[d] != x.Shape[p+d] {
				return nil, fmt.Errorf("the shape of the mask %v at index %d does not match the shape of the indexed tensor %v at index %d", l.Shape, d, x.Shape, p+d)
			}
		}
		strides := literal.Strides(l.Shape)
		var coords [][]int64 = make([][]int64, k)
		for i := 0; i < l.Len(); i++ {
			if l.Int64(i) == 0 {
				continue
			}
			rem := int64(i)
			for d := 0; d < k; d++ {
				coords[d] = append(coords[d], rem/strides[d])
				rem %= strides[d]
			}
		}
		for d := 0; d < k; d++ {
			t, err := literal.New(dtype.I64, []int64{int64(len(coords[d]))})
			if err != nil {
				return nil, err
			}
			for i, c := range coords[d] {
				t.SetInt64(i, c)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func hostIndexTensor(_ *HostCtx, a *Args) ([]Value, error) {
	x := a.Literal("self")
	list := a.Value("indices")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if list.Kind != KList {
		return nil, fmt.Errorf("index: indices must be a list, have %v", list)
	}
	idx, err := expandMasks(x, list.List)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if len(idx) > x.Rank() {
		return nil, fmt.Errorf("index: too many indices for tensor of dimension %d (got %d)", x.Rank(), len(idx))
	}
	var dims []int
	var shapes [][]int64
	for d, t := range idx {
		if t != nil {
			dims = append(dims, d)
			shapes = append(shapes, t.Shape)
		}
	}
	if len(dims) == 0 {
		return []Value{LiteralValue(x.Clone())}, nil
	}
	b, err := broadcastShapes(shapes...)
	if err != nil {
		return nil, fmt.Errorf("index: shape mismatch: indexing tensors could not be broadcast together: %w", err)
	}
	adjacent := dims[len(dims)-1]-dims[0] == len(dims)-1
	// Result dims: -1-j for batch dim j, else the x dim it copies.
	var res []int
	var shape []int64
	addRest := func(from, to int) {
		for d := from; d < to; d++ {
			if idx2(idx, d) == nil {
				res = append(res, d)
				shape = append(shape, x.Shape[d])
			}
		}
	}
	addBatch := func() {
		for j := range b {
			res = append(res, -1-j)
			shape = append(shape, b[j])
		}
	}
	if adjacent {
		addRest(0, dims[0])
		addBatch()
		addRest(dims[0], x.Rank())
	} else {
		addBatch()
		addRest(0, x.Rank())
	}
	out, err := literal.New(x.DType, shape)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	xs := literal.Strides(x.Shape)
	coord := make([]int64, len(shape))
	bc := make([]int64, len(b))
	for f := 0; f < out.Len(); f++ {
		rem := int64(f)
		for i := len(shape) - 1; i >= 0; i-- {
			coord[i] = rem % shape[i]
			rem /= shape[i]
		}
		src := int64(0)
		for i, r := range res {
			if r < 0 {
				bc[-1-r] = coord[i]
			} else {
				src += coord[i] * xs[r]
			}
		}
		bflat := int64(0)
		for j := range b {
			bflat = bflat*b[j] + bc[j]
		}
		for _, d := range dims {
			t := idx[d]
			v := t.Int64(int(broadcastIndex(bflat, b, t.Shape)))
			n := x.Shape[d]
			if v < -n || v >= n {
				return nil, fmt.Errorf("index: index %d is out of bounds for dimension %d with size %d", v, d, n)
			}
			if v < 0 {
				v += n
			}
			src += v * xs[d]
		}
		copyElem(out, f, x, int(src))
	}
	return []Value{LiteralValue(out)}, nil
}

func idx2(idx []*literal.Literal, d int) *literal.Literal {
	if d < len(idx) {
		return idx[d]
	}
	return nil
}
