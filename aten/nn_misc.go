package aten

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// glu, prelu and resampling: upsample_nearest1d/2d/3d and
// upsample_linear1d / upsample_bilinear2d (both overload styles). With
// static shapes the source indices and interpolation weights are computed
// here, as PyTorch's CPU kernel computes them, and enter as constants.

func init() {
	lower("aten::glu", lowerGLU)
	lower("aten::prelu", lowerPReLU)
	lower("aten::_prelu_kernel", lowerPReLU)
	lower("aten::upsample_nearest1d.vec", lowerUpsample(1, "nearest", true))
	lower("aten::upsample_nearest2d.vec", lowerUpsample(2, "nearest", true))
	lower("aten::upsample_nearest3d.vec", lowerUpsample(3, "nearest", true))
	lower("aten::upsample_nearest1d", lowerUpsample(1, "nearest", false))
	lower("aten::upsample_nearest2d", lowerUpsample(2, "nearest", false))
	lower("aten::upsample_nearest3d", lowerUpsample(3, "nearest", false))
	lower("aten::upsample_linear1d.vec", lowerUpsample(1, "linear", true))
	lower("aten::upsample_bilinear2d.vec", lowerUpsample(2, "linear", true))
	lower("aten::upsample_linear1d", lowerUpsample(1, "linear", false))
	lower("aten::upsample_bilinear2d", lowerUpsample(2, "linear", false))
	lower("aten::upsample_trilinear3d.vec", lowerUpsample(3, "linear", true))
	lower("aten::upsample_trilinear3d", lowerUpsample(3, "linear", false))
	lower("aten::upsample_bicubic2d.vec", lowerUpsample(2, "cubic", true))
	lower("aten::upsample_bicubic2d", lowerUpsample(2, "cubic", false))
	lower("aten::_upsample_bilinear2d_aa.vec", lowerUpsample(2, "linear-aa", true))
	lower("aten::_upsample_bilinear2d_aa", lowerUpsample(2, "linear-aa", false))
	lower("aten::_upsample_bicubic2d_aa.vec", lowerUpsample(2, "cubic-aa", true))
	lower("aten::_upsample_bicubic2d_aa", lowerUpsample(2, "cubic-aa", false))
	for n := 1; n <= 3; n++ {
		name := fmt.Sprintf("aten::_upsample_nearest_exact%dd", n)
		lower(name+".vec", lowerUpsample(n, "nearest-exact", true))
		lower(name, lowerUpsample(n, "nearest-exact", false))
	}
}

func lowerGLU(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) == 0 {
		return nil, c.Errorf("glu does not support scalars because halving size must be even")
	}
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	if shape[d]%2 != 0 {
		return nil, c.Errorf("Halving dimension must be even, but dimension %d is size %d", d, shape[d])
	}
	dt := c.DType(x)
	if !dt.IsFloat() {
		return nil, c.Errorf("glu: %v is not supported", dt.Torch())
	}
	h := shape[d] / 2
	xc := c.Convert(x, OpMath(dt))
	first, second := sliceDim(c, xc, d, 0, h, 1), sliceDim(c, xc, d, h, h, 1)
	return one(c.Convert(c.Binary("multiply", first, c.Unary("logistic", second)), dt)), nil
}

func lowerPReLU(c *LowerCtx, a *Args) ([]Value, error) {
	x, w := a.Tensor("self"), a.Tensor("weight")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	dt := c.DType(x)
	if c.DType(w) != dt {
		return nil, c.Errorf("prelu: weight dtype %v differs from input dtype %v", c.DType(w).Torch(), dt.Torch())
	}
	n := numelOf(c.Shape(w))
	cdt := OpMath(dt)
	xc := c.Convert(x, cdt)
	wc := c.Reshape(c.Convert(w, cdt), []int64{n})
	var wb *stablehlo.Value
	switch {
	case n == 1:
		wb = c.BroadcastInDim(c.Reshape(wc, nil), shape, nil)
	case len(shape) >= 2 && shape[1] == n:
		wb = c.BroadcastInDim(wc, shape, []int64{1})
	case len(shape) == 1 && shape[0] == n:
		wb = wc
	default:
		return nil, c.Errorf("prelu: mismatch of parameter numbers (%d) and input channel size %v", n, shape)
	}
	pos := c.Compare("GT", xc, c.Like(xc, 0))
	return one(c.Convert(c.Select(pos, xc, c.Binary("multiply", wb, xc)), dt)), nil
}

// upsampleSizes resolves output sizes and per-dim user scales (0 = none).
func upsampleSizes(c *LowerCtx, a *Args, n int, vec bool, in []int64) (out []int64, scales []float64, err error) {
	scales = make([]float64, n)
	if vec {
		os, hasOS := a.OptInts("output_size")
		sf, hasSF := a.Value("scale_factors"), a.Has("scale_factors")
		if a.Err() != nil {
			return nil, nil, a.Err()
		}
		switch {
		case hasOS && hasSF:
			return nil, nil, c.Errorf("upsample: must specify exactly one of output_size and scale_factors")
		case hasOS:
			out = os
		case hasSF:
			if len(sf.List) != n {
				return nil, nil, c.Errorf("upsample: expected %d scale factors, got %v", n, sf)
			}
			out = make([]int64, n)
			for i, e := range sf.List {
				s, ok := scalarOf(e)
				if !ok {
					return nil, nil, c.Errorf("upsample: scale factor %v is not a number", e)
				}
				scales[i] = s.Float()
				out[i] = int64(math.Floor(float64(in[i]) * scales[i]))
			}
		default:
			return nil, nil, c.Errorf("upsample: must specify exactly one of output_size and scale_factors")
		}
	} else {
		out = a.Ints(a.Schema.Params[1].Name)
		for i, name := range upsampleScaleNames(n) {
			if s, ok := a.OptFloat(name); ok {
				scales[i] = s
			}
		}
		if a.Err() != nil {
			return nil, nil, a.Err()
		}
	}
	if len(out) != n {
		return nil, nil, c.Errorf("upsample: expected %d output sizes, got %v", n, out)
	}
	for _, o := range out {
		if o <= 0 {
			return nil, nil, c.Errorf("upsample: output sizes must be positive, got %v", out)
		}
	}
	return out, scales, nil
}

func upsampleScaleNames(n int) []string {
	switch n {
	case 1:
		return []string{"scales"}
	case 2:
		return []string{"scales_h", "scales_w"}
	}
	return []string{"scales_d", "scales_h", "scales_w"}
}

func lowerUpsample(n int, mode string, vec bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		var x *stablehlo.Value
		if vec {
			x = a.Tensor("input")
		} else {
			x = a.Tensor("self")
		}
		align := false
		if mode != "nearest" && mode != "nearest-exact" {
			align = a.Bool("align_corners")
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		if len(shape) != n+2 {
			return nil, c.Errorf("upsample: expected %dD input, got %v", n+2, shape)
		}
		out, scales, err := upsampleSizes(c, a, n, vec, shape[2:])
		if err != nil {
			return nil, err
		}
		dt := c.DType(x)
		if mode == "nearest" || mode == "nearest-exact" {
			for i := 0; i < n; i++ {
				in, o := shape[2+i], out[i]
				idx := make([]int64, o)
				for j := range idx {
					if mode == "nearest" {
						idx[j] = nearestSource(int64(j), in, o, scales[i])
					} else {
						idx[j] = nearestExactSource(int64(j), in, o, scales[i])
					}
				}
				x = takeAlong(c, x, 2+i, []int64{o}, idx)
			}
			return one(x), nil
		}
		if dt == dtype.U8 && n == 2 {
			if numelOf(shape) == 0 {
				return nil, c.Errorf("upsample_%s: input sizes should be greater than 0, but got %v", mode, shape)
			}
			return one(upsampleU8(c, x, out, scales, align, mode)), nil
		}
		if !dt.IsFloat() {
			return nil, c.Errorf("upsample_%s: %v is not supported", mode, dt.Torch())
		}
		cdt := OpMath(dt)
		f32 := cdt != dtype.F64
		v := c.Convert(x, cdt)
		// Innermost dim first, so the outer dim's weights apply last as in
		// PyTorch's h0λ·(w0λ·x00 + w1λ·x01) + h1λ·(...).
		for i := n - 1; i >= 0; i-- {
			d := 2 + i
			in, o := shape[d], out[i]
			var taps [][]int64
			var weights [][]float64
			if mode == "linear" {
				taps, weights = make([][]int64, 2), make([][]float64, 2)
				for t := range taps {
					taps[t], weights[t] = make([]int64, o), make([]float64, o)
				}
				for j := int64(0); j < o; j++ {
					taps[0][j], taps[1][j], weights[0][j], weights[1][j] = linearSource(j, in, o, align, scales[i], f32)
				}
			} else if mode == "cubic" {
				taps, weights = cubicTaps(in, o, align, scales[i], f32)
			} else {
				taps, weights = antialiasTaps(in, o, align, scales[i], f32, mode == "cubic-aa")
			}
			var acc *stablehlo.Value
			for t := range taps {
				xt := takeAlong(c, v, d, []int64{o}, taps[t])
				w := c.BroadcastInDim(constF(c, cdt, []int64{o}, weights[t]), c.Shape(xt), []int64{int64(d)})
				term := c.Binary("multiply", w, xt)
				if acc == nil {
					acc = term
				} else {
					acc = c.Binary("add", acc, term)
				}
			}
			v = acc
		}
		return one(c.Convert(v, dt)), nil
	}
}

// nearestExactSource is PyTorch's nearest_neighbor_exact_compute_source_index:
// min(floor((o + 0.5) * scale), in - 1) in float32.
func nearestExactSource(o, in, out int64, scale float64) int64 {
	s := float32(in) / float32(out)
	if scale > 0 {
		s = float32(1.0 / scale)
	}
	idx := int64(math.Floor(float64((float32(o) + 0.5) * s)))
	return min(idx, in-1)
}

// cubicTaps gives the four source indices (clamped to the input) and
// cubic-convolution weights (A = -0.75) of every output index, as
// PyTorch's upsample_bicubic2d computes them.
func cubicTaps(in, out int64, align bool, scale float64, f32 bool) ([][]int64, [][]float64) {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	var ratio float64
	switch {
	case align:
		if out > 1 {
			ratio = r(r(float64(in-1)) / r(float64(out-1)))
		}
	case scale > 0:
		ratio = r(1.0 / scale)
	default:
		ratio = r(r(float64(in)) / r(float64(out)))
	}
	const A = -0.75
	cc1 := func(x float64) float64 { return r(r(r(r(r((A+2)*x)-(A+3))*x)*x) + 1) }
	cc2 := func(x float64) float64 { return r(r(r(r(r(r(A*x)-5*A)*x)+8*A)*x) - 4*A) }
	taps := make([][]int64, 4)
	ws := make([][]float64, 4)
	for k := range taps {
		taps[k], ws[k] = make([]int64, out), make([]float64, out)
	}
	for o := int64(0); o < out; o++ {
		var real float64
		if align {
			real = r(ratio * float64(o))
		} else {
			real = r(r(ratio*r(float64(o)+0.5)) - 0.5)
		}
		i0 := int64(math.Floor(real))
		t := r(real - float64(i0))
		ws[0][o] = cc2(r(t + 1))
		ws[1][o] = cc1(t)
		ws[2][o] = cc1(r(1 - t))
		ws[3][o] = cc2(r(r(1-t) + 1))
		for k := int64(0); k < 4; k++ {
			taps[k][o] = min(max(i0-1+k, 0), in-1)
		}
	}
	return taps, ws
}

// antialiasTaps gives the source indices and weights of the antialiased
// bilinear / bicubic resampling (PyTorch's
// _compute_indices_min_size_weights_aa): a triangle or a = -0.5 cubic
// filter stretched by the scale when downsampling, normalised per output.
// Outputs with fewer taps than the widest get zero weights on an in-range
// index.
func antialiasTaps(in, out int64, align bool, scale float64, f32 bool, cubic bool) ([][]int64, [][]float64) {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	var ratio float64
	switch {
	case align:
		if out > 1 {
			ratio = r(r(float64(in-1)) / r(float64(out-1)))
		}
	case scale > 0:
		ratio = r(1.0 / scale)
	default:
		ratio = r(r(float64(in)) / r(float64(out)))
	}
	interp := 2.0
	if cubic {
		interp = 4
	}
	support := r(interp * 0.5)
	invscale := 1.0
	if ratio >= 1 {
		support = r(interp * 0.5 * ratio)
		invscale = r(1 / ratio)
	}
	filter := func(x float64) float64 {
		x = math.Abs(x)
		if !cubic {
			if x < 1 {
				return r(1 - x)
			}
			return 0
		}
		const A = -0.5
		if x < 1 {
			return r(r(r(r(r((A+2)*x)-(A+3))*x)*x) + 1)
		}
		if x < 2 {
			return r(r(r(r(r(r(A*x)-5*A)*x)+8*A)*x) - 4*A)
		}
		return 0
	}
	xmins := make([]int64, out)
	ws := make([][]float64, out)
	width := 0
	for o := int64(0); o < out; o++ {
		center := r(ratio * r(float64(o)+0.5))
		xmin := max(int64(r(r(center-support)+0.5)), 0)
		xsize := min(int64(r(r(center+support)+0.5)), in) - xmin
		w := make([]float64, max(xsize, 0))
		total := 0.0
		for j := range w {
			w[j] = filter(r(r(r(float64(int64(j)+xmin)-center)+0.5) * invscale))
			total = r(total + w[j])
		}
		if total != 0 {
			for j := range w {
				w[j] = r(w[j] / total)
			}
		}
		xmins[o], ws[o] = xmin, w
		width = max(width, len(w))
	}
	taps := make([][]int64, width)
	weights := make([][]float64, width)
	for t := 0; t < width; t++ {
		taps[t], weights[t] = make([]int64, out), make([]float64, out)
		for o := int64(0); o < out; o++ {
			taps[t][o] = min(xmins[o]+int64(t), in-1)
			if t < len(ws[o]) {
				weights[t][o] = ws[o][t]
			}
		}
	}
	return taps, weights
}
