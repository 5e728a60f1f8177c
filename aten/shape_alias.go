package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Shape ops PyTorch defines in terms of others (CompositeImplicit), kept
// by a default torch.export: broadcast_to, view_as / reshape_as, ravel,
// mT / mH / matrix_H / adjoint, fliplr / flipud, linalg_diagonal,
// unsafe_chunk / unsafe_split, sum_to_size, rot90, and the atleast_Nd
// forms over a list. Each is a table row: the op, then what it calls.

func init() {
	for name, target := range map[string]string{
		"aten::broadcast_to":        "aten::expand",
		"aten::unsafe_chunk":        "aten::chunk",
		"aten::unsafe_split.Tensor": "aten::split.Tensor",
		"aten::linalg_diagonal":     "aten::diagonal",
		"aten::adjoint":             "aten::mH",
		"aten::matrix_H":            "aten::mH",
	} {
		decomp(name, renamed(target, map[string]string{"A": "self"}))
	}
	decomp("aten::view_as", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::view", []Value{a.Value("self"), IntsValue(c.Shape(a.Tensor("other")))}, nil)
	})
	decomp("aten::reshape_as", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::reshape", []Value{a.Value("self"), IntsValue(c.Shape(a.Tensor("other")))}, nil)
	})
	decomp("aten::ravel", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::reshape", []Value{a.Value("self"), IntsValue([]int64{-1})}, nil)
	})
	decomp("aten::mT", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() == nil && c.Rank(x) < 2 {
			return nil, c.Errorf("tensor.mT is only supported on matrices or batches of matrices. Got %d-D tensor.", c.Rank(x))
		}
		return c.Call("aten::transpose.int", []Value{TensorValue(x), IntValue(-2), IntValue(-1)}, nil)
	})
	decomp("aten::mH", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() == nil && c.Rank(x) < 2 {
			return nil, c.Errorf("tensor.mH is only supported on matrices or batches of matrices. Got %d-D tensor.", c.Rank(x))
		}
		t := c.Call1("aten::transpose.int", TensorValue(x), IntValue(-2), IntValue(-1))
		if c.DType(t).IsComplex() {
			t = c.Call1("aten::conj_physical", TensorValue(t))
		}
		return one(t), nil
	})
	flipDim := func(op string, dim int64, minRank int) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if a.Err() == nil && c.Rank(x) < minRank {
				return nil, c.Errorf("%s: input tensor must be >= %d-d, got %d-d", op, minRank, c.Rank(x))
			}
			return c.Call("aten::flip", []Value{TensorValue(x), IntsValue([]int64{dim})}, nil)
		}
	}
	decomp("aten::fliplr", flipDim("fliplr", 1, 2))
	decomp("aten::flipud", flipDim("flipud", 0, 1))
	decomp("aten::sum_to_size", lowerSumToSize)
	decomp("aten::rot90", lowerRot90)
	for seq, single := range map[string]string{
		"aten::atleast_1d.Sequence": "aten::atleast_1d",
		"aten::atleast_2d.Sequence": "aten::atleast_2d",
		"aten::atleast_3d.Sequence": "aten::atleast_3d",
	} {
		decomp(seq, func(c *LowerCtx, a *Args) ([]Value, error) {
			xs := a.Tensors("tensors")
			out := make([]*stablehlo.Value, len(xs))
			for i, x := range xs {
				out[i] = c.Call1(single, TensorValue(x))
			}
			return []Value{TensorsValue(out)}, nil
		})
	}
}

// renamed forwards every argument by name to target, renaming those in
// rename (the alias's name → the target's).
func renamed(target string, rename map[string]string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		kw := map[string]Value{}
		for i, p := range a.Schema.Params {
			n := p.Name
			if r, ok := rename[n]; ok {
				n = r
			}
			kw[n] = a.Values[i]
		}
		return c.Call(target, nil, kw)
	}
}

// lowerSumToSize sums x down to size (which must expand to x's shape):
// over the leading dims x has in excess and over every dim where size
// has 1 and x does not.
func lowerSumToSize(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	size := a.Ints("size")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(size) == 0 {
		// at::sum_to: an empty target size sums everything.
		return c.Call("aten::sum.default", []Value{TensorValue(x)}, nil)
	}
	shape := c.Shape(x)
	lead := len(shape) - len(size)
	if lead < 0 {
		return nil, c.Errorf("size {%v} is not expandable to size {%v}.", size, shape)
	}
	var dims []int64
	for i := range shape {
		if i < lead {
			dims = append(dims, int64(i))
			continue
		}
		s := size[i-lead]
		switch {
		case s == shape[i]:
		case s == 1:
			dims = append(dims, int64(i))
		default:
			return nil, c.Errorf("size {%v} is not expandable to size {%v}.", size, shape)
		}
	}
	if len(dims) == 0 {
		return one(x), nil
	}
	s := c.Call1("aten::sum.dim_IntList", TensorValue(x), IntsValue(dims), BoolValue(true))
	return one(c.Reshape(s, size)), nil
}

func lowerRot90(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	k, dims := a.Int("k"), a.Ints("dims")
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := c.Rank(x)
	if len(dims) != 2 {
		return nil, c.Errorf("expected total rotation dims == 2, but got dims = %d", len(dims))
	}
	if r < 2 {
		return nil, c.Errorf("expected total dims >= 2, but got total dims = %d", r)
	}
	d0, err0 := canonDim(dims[0], r)
	d1, err1 := canonDim(dims[1], r)
	if err0 != nil || err1 != nil || d0 == d1 {
		return nil, c.Errorf("rot90: bad dims %v for a %d-d tensor", dims, r)
	}
	flip := func(v *stablehlo.Value, ds ...int) *stablehlo.Value {
		ds64 := make([]int64, len(ds))
		for i, d := range ds {
			ds64[i] = int64(d)
		}
		return emitReverse(c, v, ds64)
	}
	switch ((k % 4) + 4) % 4 {
	case 1:
		t, err := transposeDims(c, flip(x, d1), int64(d0), int64(d1))
		return one(t), err
	case 2:
		return one(flip(x, d0, d1)), nil
	case 3:
		t, err := transposeDims(c, flip(x, d0), int64(d0), int64(d1))
		return one(t), err
	}
	return one(x), nil
}
