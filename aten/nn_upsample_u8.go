package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Bilinear and bicubic resampling of uint8 images, antialiased or not, as
// PyTorch's CPU kernels compute it (UpSampleKernel.cpp: the separable
// kernel with int16 weights, _compute_index_ranges_int16_weights, shared by
// its AVX2 and generic loops): weights in float64 rounded to int16 fixed
// point with a common precision p, each pass sums src*w in int32 from
// 1 << (p-1), shifts right by p and clamps to [0, 255]. The width is
// resampled first, then the height, each pass only when its size changes,
// with a uint8 image in between.

// upsampleU8 resamples the two spatial dims of the uint8 x ([N, C, H, W]).
func upsampleU8(c *LowerCtx, x *stablehlo.Value, out []int64, scales []float64, align bool, mode string) *stablehlo.Value {
	shape := c.Shape(x)
	v := c.Convert(x, dtype.I32)
	for i := 1; i >= 0; i-- {
		d := 2 + i
		in, o := shape[d], out[i]
		if in == o {
			continue
		}
		taps, weights, prec := u8Weights(in, o, align, scales[i], mode)
		acc := c.SplatInt(dtype.I32, replaceDim(c.Shape(v), d, o), int64(1)<<(prec-1))
		for t := range taps {
			xt := takeAlong(c, v, d, []int64{o}, taps[t])
			w := c.BroadcastInDim(constI32(c, weights[t]), c.Shape(xt), []int64{int64(d)})
			acc = c.Binary("add", acc, c.Binary("multiply", w, xt))
		}
		s := c.Shape(acc)
		acc = c.Binary("shift_right_arithmetic", acc, c.SplatInt(dtype.I32, s, int64(prec)))
		v = c.Binary("maximum", c.Binary("minimum", acc, c.SplatInt(dtype.I32, s, 255)), c.SplatInt(dtype.I32, s, 0))
	}
	return c.Convert(v, dtype.U8)
}

func replaceDim(shape []int64, d int, n int64) []int64 {
	s := append([]int64(nil), shape...)
	s[d] = n
	return s
}

// constI32 emits a 1-d int32 constant.
func constI32(c *LowerCtx, data []int64) *stablehlo.Value {
	return c.Convert(constI64(c, []int64{int64(len(data))}, data), dtype.I32)
}

// u8Weights gives, per tap, the source index and int16 weight of every
// output index, and the weights' precision.
func u8Weights(in, out int64, align bool, scale float64, mode string) (taps, weights [][]int64, prec uint) {
	var ratio float64 // area_pixel_compute_scale<double>
	switch {
	case align:
		if out > 1 {
			ratio = float64(in-1) / float64(out-1)
		}
	case scale > 0:
		ratio = 1 / scale
	default:
		ratio = float64(in) / float64(out)
	}
	antialias := mode == "linear-aa" || mode == "cubic-aa"
	interp := 2
	a := -0.75
	if mode == "cubic" || mode == "cubic-aa" {
		interp = 4
	}
	if antialias {
		a = -0.5
	}
	filter := func(x float64) float64 {
		x = math.Abs(x)
		if interp == 2 {
			if x < 1 {
				return 1 - x
			}
			return 0
		}
		if x < 1 {
			return ((a+2)*x-(a+3))*x*x + 1
		}
		if x < 2 {
			return ((a*x-5*a)*x+8*a)*x - 4*a
		}
		return 0
	}
	width := interp
	support := float64(interp) * 0.5
	if antialias && ratio >= 1 {
		support = float64(interp) * 0.5 * ratio
	}
	if antialias {
		width = int(math.Ceil(support))*2 + 1
	}
	xmins := make([]int64, out)
	ws := make([][]float64, out)
	wtMax := 0.0
	for i := int64(0); i < out; i++ {
		w := make([]float64, width)
		var xmin, xsize int64
		if antialias {
			// _compute_indices_min_size_weights_aa
			center := ratio * (float64(i) + 0.5)
			invscale := 1.0
			if ratio >= 1 {
				invscale = 1 / ratio
			}
			xmin = max(int64(center-support+0.5), 0)
			xsize = min(int64(center+support+0.5), in) - xmin
			xsize = min(max(xsize, 0), int64(width))
			total := 0.0
			for j := int64(0); j < xsize; j++ {
				w[j] = filter((float64(j+xmin) - center + 0.5) * invscale)
				total += w[j]
			}
			if total != 0 {
				for j := int64(0); j < xsize; j++ {
					w[j] /= total
					wtMax = max(wtMax, w[j])
				}
			}
		} else {
			// _compute_indices_min_size_weights
			var real float64
			if align {
				real = ratio * float64(i)
			} else {
				real = ratio*(float64(i)+0.5) - 0.5
				if interp == 2 && real < 0 {
					real = 0
				}
			}
			idx := min(int64(math.Floor(float64(float32(real)))), in-1) // floorf
			lambda := min(max(real-float64(idx), 0), 1)
			sup := int64(width / 2)
			umin, umax := idx-sup+1, idx+sup+1
			xmin = max(umin, 0)
			xsize = min(max(min(umax, in)-xmin, 0), int64(width))
			wi := int64(0)
			for j := int64(0); j < int64(width); j++ {
				f := filter(float64(j+1-sup) - lambda)
				if umin+j <= 0 {
					wi = 0
				} else if umin+j >= in-1 {
					wi = xsize - 1
				}
				if wi >= 0 && wi < int64(width) {
					w[wi] += f
					wtMax = max(wtMax, w[wi])
				}
				wi++
			}
		}
		xmins[i], ws[i] = xmin, w[:max(xsize, 0)]
	}
	for prec = 0; prec < 22; prec++ {
		if int(0.5+wtMax*float64(int64(1)<<(prec+1))) >= 1<<15 {
			break
		}
	}
	prec = max(prec, 1)
	taps, weights = make([][]int64, width), make([][]int64, width)
	for t := 0; t < width; t++ {
		taps[t], weights[t] = make([]int64, out), make([]int64, out)
		for i := int64(0); i < out; i++ {
			taps[t][i] = min(max(xmins[i]+int64(t), 0), in-1)
			if t < len(ws[i]) {
				v := ws[i][t] * float64(int64(1)<<prec)
				if v < 0 {
					weights[t][i] = int64(int16(int32(-0.5 + v)))
				} else {
					weights[t][i] = int64(int16(int32(0.5 + v)))
				}
			}
		}
	}
	return taps, weights, prec
}
