package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// adaptive_max_pool1d/2d/3d with indices. Each pooled dim is reduced bin
// by bin (innermost first) carrying (value, flat index) pairs; taking the
// first maximum per dim gives the row-major first maximum of each bin, as
// PyTorch's scan does; NaN wins over numbers, and among NaNs the last one
// in the scan (PyTorch takes a value when it is greater or NaN).

func init() {
	lower("aten::adaptive_max_pool1d", lowerAdaptiveMax(1))
	lower("aten::adaptive_max_pool2d", lowerAdaptiveMax(2))
	lower("aten::adaptive_max_pool3d", lowerAdaptiveMax(3))
}

// reduceMaxIndex reduces (v, idx) over dim d, keeping it as size 1.
func reduceMaxIndex(c *LowerCtx, v, idx *stablehlo.Value, d int) (*stablehlo.Value, *stablehlo.Value) {
	dt := c.DType(v)
	sv, si := stablehlo.Tensor(dt), stablehlo.Tensor(dtype.I64)
	// The order-independent rule of max pooling's large windows (NaN wins,
	// the last NaN among NaNs, the first of equal values): reduced one dim
	// after the other it still picks what PyTorch's row-major scan of the
	// whole bin picks.
	body := maxPoolIndexBody(dt.IsFloat())
	r := c.Region([]stablehlo.Type{sv, si, sv, si}, func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		return body(s, a[:2], a[2:])
	})
	op := c.OpRegions("stablehlo.reduce", []*stablehlo.Value{v, idx, lowestConst(c, dt), c.SplatInt(dtype.I64, nil, -1)},
		[]stablehlo.NamedAttr{I64s("dimensions", []int64{int64(d)})}, []*stablehlo.Region{r})
	if len(op.Results) != 2 {
		return v, idx
	}
	shape := c.Shape(v)
	return keepDims(c, op.Results[0], shape, []int64{int64(d)}), keepDims(c, op.Results[1], shape, []int64{int64(d)})
}

func lowerAdaptiveMax(n int) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		osize := a.Ints("output_size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		rank := len(shape)
		if (rank != n+1 && rank != n+2) || len(osize) != n {
			return nil, c.Errorf("adaptive_max_pool%dd: expected %dD or %dD input and %d output sizes, got %v and %v", n, n+1, n+2, n, shape, osize)
		}
		dt := c.DType(x)
		if dt == dtype.Bool || dt.IsComplex() {
			return nil, c.Errorf("adaptive_max_pool%dd: %v is not supported", n, dt.Torch())
		}
		lead := rank - n
		// Flat index within each plane of the pooled dims.
		var idx *stablehlo.Value
		stride := int64(1)
		for i := n - 1; i >= 0; i-- {
			term := c.Binary("multiply", c.Iota(dtype.I64, shape, lead+i), c.SplatInt(dtype.I64, shape, stride))
			if idx == nil {
				idx = term
			} else {
				idx = c.Binary("add", idx, term)
			}
			stride *= shape[lead+i]
		}
		v := x
		for i := n - 1; i >= 0; i-- {
			d := lead + i
			in, o := shape[d], osize[i]
			if o <= 0 || in <= 0 {
				return nil, c.Errorf("adaptive_max_pool%dd: invalid output size %v for input %v", n, osize, shape)
			}
			vs, is := make([]*stablehlo.Value, o), make([]*stablehlo.Value, o)
			for j := int64(0); j < o; j++ {
				st, en := adaptiveBin(j, in, o)
				vs[j], is[j] = reduceMaxIndex(c, sliceDim(c, v, d, st, en-st, 1), sliceDim(c, idx, d, st, en-st, 1), d)
			}
			v, idx = emitConcat(c, vs, d), emitConcat(c, is, d)
		}
		return []Value{TensorValue(v), TensorValue(idx)}, nil
	}
}
