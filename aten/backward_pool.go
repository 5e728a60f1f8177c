package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Pooling backward: max_pool2d_with_indices_backward scatters each output
// gradient to the input element its index names (adding where windows
// overlap, in PyTorch's scan order); avg_pool2d_backward spreads each
// output gradient, divided as the forward divided (count_include_pad,
// divisor_override, ceil-mode overhang), over its window; and
// _adaptive_avg_pool2d_backward does the same over adaptive bins.

func init() {
	lower("aten::max_pool2d_with_indices_backward", lowerMaxPool2dBackward)
	lower("aten::avg_pool2d_backward", lowerAvgPool2dBackward)
	lower("aten::_adaptive_avg_pool2d_backward", lowerAdaptiveAvgPool2dBackward)
}

// poolGradShapes checks grad_output against the pooled output shape.
func poolGradShapes(c *LowerCtx, what string, g, x *stablehlo.Value, out []int64) error {
	xs, gs := c.Shape(x), c.Shape(g)
	n := len(out)
	want := append(append([]int64(nil), xs[:len(xs)-n]...), out...)
	if !sameShape(gs, want) {
		return c.Errorf("%s: grad_output of shape %v, expected %v for input %v", what, gs, want, xs)
	}
	return nil
}

func lowerMaxPool2dBackward(c *LowerCtx, a *Args) ([]Value, error) {
	g, x, idx := a.Tensor("grad_output"), a.Tensor("self"), a.Tensor("indices")
	kernel, stride, pad, dil := a.Ints("kernel_size"), a.Ints("stride"), a.Ints("padding"), a.Ints("dilation")
	ceil := a.Bool("ceil_mode")
	if a.Err() != nil {
		return nil, a.Err()
	}
	geo, err := poolGeometry(c, x, 2, kernel, stride, pad, dil, ceil)
	if err != nil {
		return nil, err
	}
	if err := poolGradShapes(c, "max_pool2d_with_indices_backward", g, x, geo.out); err != nil {
		return nil, err
	}
	if !sameShape(c.Shape(idx), c.Shape(g)) || c.DType(idx) != dtype.I64 {
		return nil, c.Errorf("max_pool2d_with_indices_backward: indices %v must be int64 of grad_output's shape %v", c.Type(idx), c.Shape(g))
	}
	xs := c.Shape(x)
	return one(scatterPlaneIndices(c, g, idx, xs, len(xs)-2)), nil
}

func lowerAvgPool2dBackward(c *LowerCtx, a *Args) ([]Value, error) {
	g, x := a.Tensor("grad_output"), a.Tensor("self")
	kernel, stride, pad := a.Ints("kernel_size"), a.Ints("stride"), a.Ints("padding")
	ceil, inclPad := a.Bool("ceil_mode"), a.Bool("count_include_pad")
	divisor, hasDiv := a.OptInt("divisor_override")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if hasDiv && divisor == 0 {
		return nil, c.Errorf("avg_pool2d_backward: divisor must be not zero")
	}
	geo, err := poolGeometry(c, x, 2, kernel, stride, pad, nil, ceil)
	if err != nil {
		return nil, err
	}
	if err := poolGradShapes(c, "avg_pool2d_backward", g, x, geo.out); err != nil {
		return nil, err
	}
	dt := c.DType(x)
	if !dt.IsFloat() {
		return nil, c.Errorf("avg_pool2d_backward: %v is not supported", dt.Torch())
	}
	cdt := OpMath(dt)
	n := 2
	// The forward's divisor per output position.
	total := prod(geo.out)
	divs := make([]float64, total)
	for f := int64(0); f < total; f++ {
		rem := f
		pool, valid := int64(1), int64(1)
		for i := n - 1; i >= 0; i-- {
			o := rem % geo.out[i]
			rem /= geo.out[i]
			start := o*geo.s[i] - geo.p[i]
			end := min(start+geo.k[i], geo.in[i]+geo.p[i])
			pool *= end - start
			valid *= min(end, geo.in[i]) - max(start, 0)
		}
		switch {
		case hasDiv:
			divs[f] = float64(divisor)
		case inclPad:
			divs[f] = float64(pool)
		default:
			divs[f] = float64(valid)
		}
	}
	gs := c.Shape(g)
	rank := len(gs)
	lead := rank - n
	gc := c.Convert(g, cdt)
	gc = c.Binary("divide", gc, c.BroadcastInDim(constF(c, cdt, geo.out, divs), gs, []int64{int64(lead), int64(lead + 1)}))
	spread := windowSpread(c, gc, lead, geo.in, geo.out, geo.k, geo.s, geo.p)
	return one(c.Convert(spread, dt)), nil
}

// windowSpread returns, for every input position i of the trailing dims,
// the sum of v over the outputs o whose window [o*s - p, o*s - p + k)
// covers i: v dilated by the stride, padded, summed over k-windows.
func windowSpread(c *LowerCtx, v *stablehlo.Value, lead int, in, out, k, s, p []int64) *stablehlo.Value {
	rank := c.Rank(v)
	lo, hi, interior := make([]int64, rank), make([]int64, rank), make([]int64, rank)
	win := onesI64(rank)
	for i := range in {
		d := lead + i
		lo[d] = k[i] - 1
		hi[d] = max(0, p[i]+in[i]-(out[i]-1)*s[i]-1)
		interior[d] = s[i] - 1
		win[d] = k[i]
	}
	dt := c.DType(v)
	padded := c.Op1("stablehlo.pad", []*stablehlo.Value{v, c.Splat(dt, nil, 0)}, []stablehlo.NamedAttr{
		I64s("edge_padding_low", lo), I64s("edge_padding_high", hi), I64s("interior_padding", interior)})
	sum := reduceWindow(c, []*stablehlo.Value{padded}, []*stablehlo.Value{c.Splat(dt, nil, 0)},
		[]stablehlo.NamedAttr{I64s("window_dimensions", win), I64s("window_strides", onesI64(rank))},
		func(sub *LowerCtx, acc, e []*stablehlo.Value) []*stablehlo.Value {
			return []*stablehlo.Value{sub.Binary("add", acc[0], e[0])}
		})[0]
	start := make([]int64, rank)
	limit := append([]int64(nil), c.Shape(sum)...)
	for i := range in {
		start[lead+i] = p[i]
		limit[lead+i] = p[i] + in[i]
	}
	return emitSlice(c, sum, start, limit, nil)
}

func lowerAdaptiveAvgPool2dBackward(c *LowerCtx, a *Args) ([]Value, error) {
	g, x := a.Tensor("grad_output"), a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, gs := c.Shape(x), c.Shape(g)
	if (len(xs) != 3 && len(xs) != 4) || len(gs) != len(xs) || !sameShape(gs[:len(gs)-2], xs[:len(xs)-2]) {
		return nil, c.Errorf("_adaptive_avg_pool2d_backward: grad_output %v does not fit input %v", gs, xs)
	}
	dt := c.DType(x)
	if !dt.IsFloat() {
		return nil, c.Errorf("_adaptive_avg_pool2d_backward: %v is not supported", dt.Torch())
	}
	cdt := OpMath(dt)
	lead := len(xs) - 2
	planes := prod(xs[:lead])
	v := c.Reshape(c.Convert(g, cdt), append([]int64{planes}, gs[lead:]...))
	// Contract each pooled dim with its [out, in] bin matrix (1/bin size
	// where the bin covers the input position); the contracted dim moves
	// to the end, so after both the order is [planes, H, W] again.
	for i := 0; i < 2; i++ {
		in, out := xs[lead+i], gs[lead+i]
		if out <= 0 || in <= 0 {
			return nil, c.Errorf("_adaptive_avg_pool2d_backward: empty dims in input %v or grad_output %v", xs, gs)
		}
		m := make([]float64, out*in)
		for o := int64(0); o < out; o++ {
			st, en := adaptiveBin(o, in, out)
			for j := st; j < en; j++ {
				m[o*in+j] = 1 / float64(en-st)
			}
		}
		v = dotGeneral(c, v, constF(c, cdt, []int64{out, in}, m), nil, nil, []int64{1}, []int64{0})
	}
	return one(c.Convert(c.Reshape(v, xs), dt)), nil
}

func init() {
	Register(Entry{Name: "aten::max_pool3d_with_indices_backward", Kind: Lowered,
		Schema: "max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor",
		Lower:  lowerIndexPoolBackward("max_pool3d_with_indices_backward", 3)})
	Register(Entry{Name: "aten::adaptive_max_pool2d_backward", Kind: Lowered,
		Schema: "adaptive_max_pool2d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
		Lower:  lowerIndexPoolBackward("adaptive_max_pool2d_backward", 2)})
	Register(Entry{Name: "aten::adaptive_max_pool3d_backward", Kind: Lowered,
		Schema: "adaptive_max_pool3d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
		Lower:  lowerIndexPoolBackward("adaptive_max_pool3d_backward", 3)})
}

// lowerIndexPoolBackward is the backward of a max pooling over n spatial
// dims that saved the flat index of each output's maximum within its
// input plane (max_pool3d, adaptive_max_pool2d/3d): each output gradient
// is added to the input element its index names. The pooling geometry is
// not needed: the indices carry it.
func lowerIndexPoolBackward(op string, n int) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		g, x, idx := a.Tensor("grad_output"), a.Tensor("self"), a.Tensor("indices")
		if a.Err() != nil {
			return nil, a.Err()
		}
		xs, gs := c.Shape(x), c.Shape(g)
		if len(xs) != n+1 && len(xs) != n+2 {
			return nil, c.Errorf("%s: input must be %d-D or %d-D, got %v", op, n+1, n+2, xs)
		}
		lead := len(xs) - n
		if len(gs) != len(xs) || !sameShape(gs[:lead], xs[:lead]) {
			return nil, c.Errorf("%s: grad_output of shape %v does not match input %v", op, gs, xs)
		}
		if !sameShape(c.Shape(idx), gs) || c.DType(idx) != dtype.I64 {
			return nil, c.Errorf("%s: indices %v must be int64 of grad_output's shape %v", op, c.Type(idx), gs)
		}
		if c.DType(g) != c.DType(x) {
			return nil, c.Errorf("%s: grad_output %s and input %s differ in dtype", op, c.DType(g).Torch(), c.DType(x).Torch())
		}
		return one(scatterPlaneIndices(c, g, idx, xs, lead)), nil
	}
}

// scatterPlaneIndices adds g into zeros of shape xs at the flat in-plane
// positions idx names; the trailing dims from lead on are the plane.
func scatterPlaneIndices(c *LowerCtx, g, idx *stablehlo.Value, xs []int64, lead int) *stablehlo.Value {
	planes, plane := prod(xs[:lead]), prod(xs[lead:])
	o := prod(c.Shape(g)[lead:])
	ps := []int64{planes, o}
	i2 := c.Reshape(idx, ps)
	base := c.Binary("multiply", c.Iota(dtype.I64, ps, 0), c.SplatInt(dtype.I64, ps, plane))
	flat := c.Reshape(c.Binary("add", i2, base), []int64{planes * o})
	upd := c.Reshape(g, []int64{planes * o})
	out := rowScatter(c, c.Splat(c.DType(g), []int64{planes * plane}, 0), flat, upd, addCombine)
	return c.Reshape(out, xs)
}
