package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Padding: constant_pad_nd and pad (constant, reflect, replicate,
// circular), and the reflection/replication pad ops. Pad lists run from
// the last dim backwards: [left_last, right_last, left_prev, ...].

func init() {
	lower("aten::constant_pad_nd", lowerConstantPad)
	lower("aten::pad", lowerPad)
	for _, n := range []string{"aten::reflection_pad1d", "aten::reflection_pad2d", "aten::reflection_pad3d"} {
		lower(n, lowerModePad("reflect"))
	}
	for _, n := range []string{"aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d"} {
		lower(n, lowerModePad("replicate"))
	}
	lower("aten::_pad_circular", lowerModePad("circular"))
}

// padPairsFor turns a torch pad list into per-dim (lo, hi) for rank r.
func padPairsFor(c *LowerCtx, pad []int64, r int) (lo, hi []int64, err error) {
	if len(pad)%2 != 0 || len(pad)/2 > r {
		return nil, nil, c.Errorf("padding length %d must be divisible by 2 and at most twice the rank %d", len(pad), r)
	}
	lo, hi = make([]int64, r), make([]int64, r)
	for i := 0; i < len(pad)/2; i++ {
		d := r - 1 - i
		lo[d], hi[d] = pad[2*i], pad[2*i+1]
	}
	return lo, hi, nil
}

func constantPad(c *LowerCtx, x *stablehlo.Value, pad []int64, value Scalar) (*stablehlo.Value, error) {
	lo, hi, err := padPairsFor(c, pad, c.Rank(x))
	if err != nil {
		return nil, err
	}
	for d, s := range c.Shape(x) {
		if s+lo[d]+hi[d] < 0 {
			return nil, c.Errorf("constant_pad_nd: the input size %d, plus negative padding %d and %d resulted in a negative output size", s, lo[d], hi[d])
		}
	}
	return emitPad(c, x, c.ScalarConst(value, c.DType(x)), lo, hi), nil
}

func lowerConstantPad(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	pad := a.Ints("pad")
	v := a.Scalar("value")
	if a.Err() != nil {
		return nil, a.Err()
	}
	out, err := constantPad(c, x, pad, v)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerPad(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	pad := a.Ints("pad")
	mode := a.Str("mode")
	val, hasVal := a.OptFloat("value")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if mode == "constant" {
		s := Scalar{Kind: KFloat, F: val}
		if !hasVal {
			s = Scalar{Kind: KInt}
		}
		out, err := constantPad(c, x, pad, s)
		if err != nil {
			return nil, err
		}
		return one(out), nil
	}
	if hasVal && val != 0 {
		return nil, c.Errorf("padding mode %q doesn't take in value argument", mode)
	}
	out, err := modePad(c, x, pad, mode)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerModePad(mode string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		pad := a.Ints(a.Schema.Params[1].Name)
		if a.Err() != nil {
			return nil, a.Err()
		}
		out, err := modePad(c, x, pad, mode)
		if err != nil {
			return nil, err
		}
		return one(out), nil
	}
}

// modePad pads by reflecting, replicating or wrapping around each padded
// dim, innermost pair first as PyTorch lists them.
func modePad(c *LowerCtx, x *stablehlo.Value, pad []int64, mode string) (*stablehlo.Value, error) {
	lo, hi, err := padPairsFor(c, pad, c.Rank(x))
	if err != nil {
		return nil, err
	}
	for d := range lo {
		l, r := lo[d], hi[d]
		if l == 0 && r == 0 {
			continue
		}
		n := c.Shape(x)[d]
		if mode == "replicate" {
			// Output j reads input clamp(j - l, 0, n-1): replicating the
			// original edges even where negative amounts crop past them.
			size := n + l + r
			if size < 0 || n == 0 && size > 0 {
				return nil, c.Errorf("replication padding (%d, %d) of a dimension of size %d gives no valid output size", l, r, n)
			}
			idx := make([]int64, size)
			for j := range idx {
				idx[j] = clampI64(int64(j)-l, 0, n-1)
			}
			x = takeAlong(c, x, d, []int64{size}, idx)
			continue
		}
		if l < 0 || r < 0 {
			// Negative amounts crop; do that first, then pad the rest.
			start, end := max(-l, 0), n-max(-r, 0)
			if end < start {
				return nil, c.Errorf("pad: negative padding %d, %d exceeds dim size %d", l, r, n)
			}
			x = sliceDim(c, x, d, start, end-start, 1)
			n = end - start
			l, r = max(l, 0), max(r, 0)
		}
		var left, right *stablehlo.Value
		switch mode {
		case "reflect":
			if l >= n || r >= n {
				return nil, c.Errorf("reflection padding: argument padding (%d, %d) should be less than the corresponding input dimension %d", l, r, n)
			}
			if l > 0 {
				left = emitReverse(c, sliceDim(c, x, d, 1, l, 1), []int64{int64(d)})
			}
			if r > 0 {
				right = emitReverse(c, sliceDim(c, x, d, n-1-r, r, 1), []int64{int64(d)})
			}
		case "replicate":
			if n == 0 {
				return nil, c.Errorf("replication padding of an empty dimension")
			}
			edge := func(i, k int64) *stablehlo.Value {
				s := sliceDim(c, x, d, i, 1, 1)
				shape := append([]int64(nil), c.Shape(s)...)
				shape[d] = k
				return c.BroadcastInDim(s, shape, seqI64(len(shape)))
			}
			if l > 0 {
				left = edge(0, l)
			}
			if r > 0 {
				right = edge(n-1, r)
			}
		case "circular":
			if l > n || r > n {
				return nil, c.Errorf("circular padding (%d, %d) may not exceed the dimension size %d", l, r, n)
			}
			if l > 0 {
				left = sliceDim(c, x, d, n-l, l, 1)
			}
			if r > 0 {
				right = sliceDim(c, x, d, 0, r, 1)
			}
		default:
			return nil, c.Errorf("unsupported padding mode %q", mode)
		}
		parts := []*stablehlo.Value{}
		if left != nil {
			parts = append(parts, left)
		}
		parts = append(parts, x)
		if right != nil {
			parts = append(parts, right)
		}
		x = emitConcat(c, parts, d)
	}
	return x, nil
}
