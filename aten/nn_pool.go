package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Pooling: max_pool1d/2d/3d (with indices), avg_pool1d/2d/3d and the
// adaptive average pools. The pooled dims are the trailing n dims; inputs
// may be batched or not. Shapes are static, so window bounds, ceil-mode
// overhang and divisors are computed here and enter as constants.

func init() {
	lower("aten::max_pool1d", lowerMaxPool(1, false))
	lower("aten::max_pool2d", lowerMaxPool(2, false))
	lower("aten::max_pool3d", lowerMaxPool(3, false))
	lower("aten::max_pool2d_with_indices", lowerMaxPool(2, true))
	lower("aten::max_pool3d_with_indices", lowerMaxPool(3, true))
	lower("aten::max_pool1d_with_indices", lowerMaxPool(1, true))
	lower("aten::avg_pool1d", lowerAvgPool(1))
	lower("aten::avg_pool2d", lowerAvgPool(2))
	lower("aten::avg_pool3d", lowerAvgPool(3))
	lower("aten::adaptive_avg_pool1d", lowerAdaptiveAvg(1))
	lower("aten::adaptive_avg_pool2d", lowerAdaptiveAvg(2))
	lower("aten::adaptive_avg_pool3d", lowerAdaptiveAvg(3))
	lower("aten::_adaptive_avg_pool2d", lowerAdaptiveAvg(2))
	lower("aten::_adaptive_avg_pool3d", lowerAdaptiveAvg(3))
}

// poolGeom is the window geometry over the trailing n dims.
type poolGeom struct {
	n                   int
	in, k, s, p, d, out []int64
	hi                  []int64 // high padding (ceil mode may add overhang)
}

func poolGeometry(c *LowerCtx, x *stablehlo.Value, n int, kernel, stride, pad, dil []int64, ceil bool) (*poolGeom, error) {
	shape := c.Shape(x)
	if len(shape) != n+1 && len(shape) != n+2 {
		return nil, c.Errorf("pool%dd: expected %dD or %dD input, got %v", n, n+1, n+2, shape)
	}
	var err error
	g := &poolGeom{n: n, in: shape[len(shape)-n:]}
	if g.k, err = expandList(kernel, n, 0, "kernel_size"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	if len(stride) == 0 {
		stride = g.k
	}
	if g.s, err = expandList(stride, n, 1, "stride"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	if g.p, err = expandList(pad, n, 0, "padding"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	if g.d, err = expandList(dil, n, 1, "dilation"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	g.out, g.hi = make([]int64, n), make([]int64, n)
	for i := 0; i < n; i++ {
		if g.k[i] <= 0 || g.s[i] <= 0 || g.d[i] <= 0 {
			return nil, c.Errorf("pool: kernel size, stride and dilation must be positive, got %v %v %v", g.k, g.s, g.d)
		}
		if g.p[i] < 0 || 2*g.p[i] > g.k[i] {
			return nil, c.Errorf("pool: pad should be at most half of effective kernel size, but got pad=%d and kernel_size=%d", g.p[i], g.k[i])
		}
		g.out[i] = poolOutSize(g.in[i], g.k[i], g.p[i], g.s[i], g.d[i], ceil)
		if g.out[i] <= 0 {
			return nil, c.Errorf("pool: output size is too small (input %v, kernel %v)", g.in, g.k)
		}
		need := (g.out[i]-1)*g.s[i] + g.d[i]*(g.k[i]-1) + 1
		g.hi[i] = max(g.p[i], need-g.in[i]-g.p[i])
	}
	return g, nil
}

// window returns the reduce_window attributes over the full rank.
func (g *poolGeom) window(rank int) []stablehlo.NamedAttr {
	lead := rank - g.n
	win, str, dil := make([]int64, rank), make([]int64, rank), make([]int64, rank)
	lo, hi := make([]int64, rank), make([]int64, rank)
	for i := 0; i < rank; i++ {
		win[i], str[i], dil[i] = 1, 1, 1
		if i >= lead {
			j := i - lead
			win[i], str[i], dil[i], lo[i], hi[i] = g.k[j], g.s[j], g.d[j], g.p[j], g.hi[j]
		}
	}
	return []stablehlo.NamedAttr{
		I64s("window_dimensions", win), I64s("window_strides", str),
		I64s("base_dilations", onesI64(rank)), I64s("window_dilations", dil),
		Attr("padding", padAttr(lo, hi)),
	}
}

func onesI64(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// reduceWindow emits a reduce_window over (operands, inits) with a body.
func reduceWindow(c *LowerCtx, operands, inits []*stablehlo.Value, attrs []stablehlo.NamedAttr,
	body func(s *LowerCtx, acc, x []*stablehlo.Value) []*stablehlo.Value) []*stablehlo.Value {
	var ts []stablehlo.Type
	for _, v := range operands {
		ts = append(ts, stablehlo.Tensor(c.DType(v)))
	}
	r := c.Region(append(append([]stablehlo.Type(nil), ts...), ts...), func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		return body(s, a[:len(operands)], a[len(operands):])
	})
	op := c.OpRegions("stablehlo.reduce_window", append(append([]*stablehlo.Value(nil), operands...), inits...), attrs, []*stablehlo.Region{r})
	if len(op.Results) != len(operands) {
		return operands
	}
	return op.Results
}

func lowerMaxPool(n int, withIndices bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		kernel, stride, pad, dil := a.Ints("kernel_size"), a.Ints("stride"), a.Ints("padding"), a.Ints("dilation")
		ceil := a.Bool("ceil_mode")
		if a.Err() != nil {
			return nil, a.Err()
		}
		g, err := poolGeometry(c, x, n, kernel, stride, pad, dil, ceil)
		if err != nil {
			return nil, err
		}
		dt := c.DType(x)
		if dt == dtype.Bool || dt.IsComplex() {
			return nil, c.Errorf("max_pool: %v is not supported", dt.Torch())
		}
		rank := c.Rank(x)
		attrs := g.window(rank)
		vals := reduceWindow(c, []*stablehlo.Value{x}, []*stablehlo.Value{lowestConst(c, dt)}, attrs,
			func(s *LowerCtx, acc, v []*stablehlo.Value) []*stablehlo.Value {
				return []*stablehlo.Value{s.Binary("maximum", acc[0], v[0])}
			})[0]
		if !withIndices {
			return one(vals), nil
		}
		if numelOf(g.k) <= maxPoolFoldLimit && !(n == 2 && dt == dtype.F32) {
			return []Value{TensorValue(vals), TensorValue(maxPoolIndices(c, x, g))}, nil
		}
		// Large windows, and 2-D float32 pooling (whose variadic form the
		// native executor runs as one loop per plane, fast_window_argmax.go):
		// a variadic reduce_window over (value, flat index).
		shape := c.Shape(x)
		lead := rank - n
		strides := make([]int64, n)
		acc := int64(1)
		for i := n - 1; i >= 0; i-- {
			strides[i] = acc
			acc *= shape[lead+i]
		}
		var flat *stablehlo.Value
		for i := 0; i < n; i++ {
			term := c.Binary("multiply", c.Iota(dtype.I64, shape, lead+i), c.SplatInt(dtype.I64, shape, strides[i]))
			if flat == nil {
				flat = term
			} else {
				flat = c.Binary("add", flat, term)
			}
		}
		out := reduceWindow(c, []*stablehlo.Value{x, flat}, []*stablehlo.Value{lowestConst(c, dt), c.SplatInt(dtype.I64, nil, -1)}, attrs,
			maxPoolIndexBody(dt.IsFloat()))
		return []Value{TensorValue(vals), TensorValue(out[1])}, nil
	}
}

func lowerAvgPool(n int) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		kernel, stride, pad := a.Ints("kernel_size"), a.Ints("stride"), a.Ints("padding")
		ceil, inclPad := a.Bool("ceil_mode"), a.Bool("count_include_pad")
		var divisor int64
		hasDiv := false
		if a.Schema.Param("divisor_override") >= 0 {
			divisor, hasDiv = a.OptInt("divisor_override")
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		if hasDiv && divisor == 0 {
			return nil, c.Errorf("avg_pool: divisor must be not zero")
		}
		g, err := poolGeometry(c, x, n, kernel, stride, pad, nil, ceil)
		if err != nil {
			return nil, err
		}
		dt := c.DType(x)
		cdt := OpMath(dt)
		if dt.IsInteger() {
			cdt = dtype.I64
		}
		xc := c.Convert(x, cdt)
		rank := c.Rank(x)
		sum := reduceWindow(c, []*stablehlo.Value{xc}, []*stablehlo.Value{c.SplatInt(cdt, nil, 0)}, g.window(rank),
			func(s *LowerCtx, acc, v []*stablehlo.Value) []*stablehlo.Value {
				return []*stablehlo.Value{s.Binary("add", acc[0], v[0])}
			})[0]
		// Divisor per output position, as PyTorch's kernel computes it.
		total := numelOf(g.out)
		divs := make([]int64, total)
		for f := int64(0); f < total; f++ {
			rem := f
			pool, valid := int64(1), int64(1)
			for i := n - 1; i >= 0; i-- {
				o := rem % g.out[i]
				rem /= g.out[i]
				start := o*g.s[i] - g.p[i]
				end := min(start+g.k[i], g.in[i]+g.p[i])
				pool *= end - start
				valid *= min(end, g.in[i]) - max(start, 0)
			}
			switch {
			case hasDiv:
				divs[f] = divisor
			case inclPad:
				divs[f] = pool
			default:
				divs[f] = valid
			}
		}
		dv := c.Convert(constI64(c, g.out, divs), cdt)
		full := c.Shape(sum)
		dv = c.BroadcastInDim(dv, full, seqI64(n + rank - n)[rank-n:])
		out := c.Binary("divide", sum, dv)
		return one(c.Convert(out, dt)), nil
	}
}

func lowerAdaptiveAvg(n int) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		osize := a.Ints("output_size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		rank := len(shape)
		if rank != n+1 && rank != n+2 || len(osize) != n {
			return nil, c.Errorf("adaptive_avg_pool%dd: expected %dD or %dD input and %d output sizes, got %v and %v", n, n+1, n+2, n, shape, osize)
		}
		dt := c.DType(x)
		if !dt.IsFloat() {
			return nil, c.Errorf("adaptive_avg_pool%dd: %v is not supported", n, dt.Torch())
		}
		cdt := OpMath(dt)
		v := c.Convert(x, cdt)
		lead := rank - n
		counts := make([][]int64, n)
		for i := 0; i < n; i++ {
			d := lead + i
			in, out := shape[d], osize[i]
			if out <= 0 || in <= 0 {
				return nil, c.Errorf("adaptive_avg_pool: invalid output size %v for input %v", osize, shape)
			}
			counts[i] = make([]int64, out)
			if out > 0 && in%out == 0 {
				k := in / out
				for o := range counts[i] {
					counts[i][o] = k
				}
				if k == 1 {
					continue
				}
				win, str := onesI64(rank), onesI64(rank)
				win[d], str[d] = k, k
				v = reduceWindow(c, []*stablehlo.Value{v}, []*stablehlo.Value{c.Splat(cdt, nil, 0)},
					[]stablehlo.NamedAttr{I64s("window_dimensions", win), I64s("window_strides", str)},
					func(s *LowerCtx, acc, e []*stablehlo.Value) []*stablehlo.Value {
						return []*stablehlo.Value{s.Binary("add", acc[0], e[0])}
					})[0]
				continue
			}
			parts := make([]*stablehlo.Value, out)
			for o := int64(0); o < out; o++ {
				st, en := adaptiveBin(o, in, out)
				counts[i][o] = en - st
				parts[o] = keepDims(c, c.Reduce(sliceDim(c, v, d, st, en-st, 1), []int64{int64(d)}, "add", 0), c.Shape(sliceDim(c, v, d, st, en-st, 1)), []int64{int64(d)})
			}
			v = emitConcat(c, parts, d)
		}
		total := numelOf(osize)
		divs := make([]float64, total)
		for f := int64(0); f < total; f++ {
			rem, prod := f, int64(1)
			for i := n - 1; i >= 0; i-- {
				prod *= counts[i][rem%osize[i]]
				rem /= osize[i]
			}
			divs[f] = float64(prod)
		}
		dv := c.BroadcastInDim(constF(c, cdt, osize, divs), c.Shape(v), seqI64(rank)[lead:])
		return one(c.Convert(c.Binary("divide", v, dv), dt)), nil
	}
}
