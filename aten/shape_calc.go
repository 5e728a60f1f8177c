package aten

import (
	"fmt"
	"math"
)

// Shape arithmetic shared by the view, indexing and nn lowerings. These are
// pure functions of static shapes and PyTorch arguments; each reproduces the
// size computation PyTorch's own shape functions perform.

// canonDim maps a possibly negative dim into [0, rank). A 0-d tensor
// accepts dims -1 and 0, as PyTorch does (maybe_wrap_dim with
// wrap_scalar).
func canonDim(dim int64, rank int) (int, error) {
	r := int64(rank)
	if r == 0 {
		r = 1
	}
	if dim < -r || dim >= r {
		return 0, fmt.Errorf("dim %d out of range for a tensor of rank %d", dim, rank)
	}
	if dim < 0 {
		dim += r
	}
	return int(dim), nil
}

// canonDims canonicalises a list of dims and rejects repeats.
func canonDims(dims []int64, rank int) ([]int, error) {
	out := make([]int, len(dims))
	seen := map[int]bool{}
	for i, d := range dims {
		c, err := canonDim(d, rank)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, fmt.Errorf("dim %d appears more than once in %v", c, dims)
		}
		seen[c] = true
		out[i] = c
	}
	return out, nil
}

// inferViewShape resolves a view/reshape size list against numel: at most
// one -1, every other size non-negative, and the product must match.
func inferViewShape(numel int64, spec []int64) ([]int64, error) {
	out := append([]int64(nil), spec...)
	infer := -1
	prod := int64(1)
	for i, s := range spec {
		switch {
		case s == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("only one dimension can be inferred in shape %v", spec)
			}
			infer = i
		case s < 0:
			return nil, fmt.Errorf("invalid shape dimension %d in %v", s, spec)
		default:
			prod *= s
		}
	}
	if infer >= 0 {
		if prod == 0 {
			return nil, fmt.Errorf("cannot reshape a tensor of %d elements into shape %v: the unspecified dimension is ambiguous", numel, spec)
		}
		if numel%prod != 0 {
			return nil, fmt.Errorf("shape %v is invalid for input of size %d", spec, numel)
		}
		out[infer] = numel / prod
		return out, nil
	}
	if prod != numel {
		return nil, fmt.Errorf("shape %v is invalid for input of size %d", spec, numel)
	}
	return out, nil
}

// checkedNumel is the element count of a user-given size list: negative
// sizes and counts past what a constant may hold are errors.
func checkedNumel(size []int64) (int64, error) {
	n := int64(1)
	for _, s := range size {
		if s < 0 {
			return 0, fmt.Errorf("negative size %d in %v", s, size)
		}
		if s != 0 && n > (1<<31)/s {
			return 0, fmt.Errorf("size %v is too large", size)
		}
		n *= s
	}
	return n, nil
}

// numelOf is the product of a static shape.
func numelOf(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// sliceRange resolves aten.slice.Tensor bounds: negatives wrap once, then
// start and end clamp to [0, size]; the result is the first index and the
// number of elements taken with the given step.
func sliceRange(size, start, end, step int64) (first, count int64, err error) {
	if step <= 0 {
		return 0, 0, fmt.Errorf("slice step must be positive, got %d", step)
	}
	if start < 0 {
		start += size
	}
	if end < 0 {
		end += size
	}
	start = clampI64(start, 0, size)
	end = clampI64(end, 0, size)
	if end <= start {
		return start, 0, nil
	}
	return start, (end - start + step - 1) / step, nil
}

func clampI64(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// broadcastShapes applies NumPy broadcasting to several shapes.
func broadcastShapes(shapes ...[]int64) ([]int64, error) {
	rank := 0
	for _, s := range shapes {
		if len(s) > rank {
			rank = len(s)
		}
	}
	out := make([]int64, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			o := out[off+i]
			switch {
			case d == o || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("shapes %v are not broadcastable (dim %d: %d vs %d)", shapes, off+i, o, d)
			}
		}
	}
	return out, nil
}

// convOutSize is the output length of a (non-transposed) convolution.
func convOutSize(in, k, stride, pad, dil int64) int64 {
	return (in+2*pad-dil*(k-1)-1)/stride + 1
}

// convTransposeOutSize is the output length of a transposed convolution.
func convTransposeOutSize(in, k, stride, pad, dil, outPad int64) int64 {
	return (in-1)*stride - 2*pad + dil*(k-1) + outPad + 1
}

// poolOutSize is PyTorch's pooling_output_shape: floor or ceil division,
// and in ceil mode the last window must start inside the input or the left
// padding.
func poolOutSize(in, k, pad, stride, dil int64, ceil bool) int64 {
	num := in + 2*pad - dil*(k-1) - 1
	if ceil {
		num += stride - 1
	}
	out := floorDivI64(num, stride) + 1
	if ceil && (out-1)*stride >= in+pad {
		out--
	}
	return out
}

func floorDivI64(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// adaptiveBin is the input range [start, end) of output cell i of an
// adaptive pool mapping in → out.
func adaptiveBin(i, in, out int64) (start, end int64) {
	start = (i * in) / out
	end = ((i+1)*in + out - 1) / out
	return start, end
}

// expandList repeats a one-element int list to n entries (PyTorch's
// expand_param_if_needed); an empty list takes def.
func expandList(v []int64, n int, def int64, what string) ([]int64, error) {
	switch len(v) {
	case 0:
		out := make([]int64, n)
		for i := range out {
			out[i] = def
		}
		return out, nil
	case 1:
		out := make([]int64, n)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	case n:
		return append([]int64(nil), v...), nil
	}
	return nil, fmt.Errorf("%s must have 1 or %d elements, got %v", what, n, v)
}

// nearestSource is PyTorch's nearest_idx for upsample_nearest: the source
// index of output index o, computed in float32 as the CPU kernel does.
// scale is the user scale factor (0 when not given).
func nearestSource(o, in, out int64, scale float64) int64 {
	if out == in {
		return o
	}
	if out == 2*in {
		return o >> 1
	}
	s := float32(in) / float32(out)
	if scale > 0 {
		s = float32(1.0 / scale)
	}
	idx := int64(math.Floor(float64(float32(o) * s)))
	if idx > in-1 {
		idx = in - 1
	}
	return idx
}

// linearSource gives the two source indices and weights of output index o
// for linear interpolation (PyTorch's compute_source_index_and_lambda).
// The arithmetic is done in float32 when f32 is set (the opmath type of
// float, half and bfloat16 inputs) and in float64 otherwise. scale is the
// user scale factor (0 when not given).
func linearSource(o, in, out int64, alignCorners bool, scale float64, f32 bool) (i0, i1 int64, l0, l1 float64) {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	if out == in {
		return o, o, 1, 0
	}
	var ratio float64
	switch {
	case alignCorners:
		if out > 1 {
			ratio = r(r(float64(in-1)) / r(float64(out-1)))
		}
	case scale > 0:
		ratio = r(1.0 / scale)
	default:
		ratio = r(r(float64(in)) / r(float64(out)))
	}
	var real float64
	if alignCorners {
		real = r(ratio * float64(o))
	} else {
		real = r(r(ratio*r(float64(o)+0.5)) - 0.5)
		if real < 0 {
			real = 0
		}
	}
	i0 = int64(math.Floor(real))
	if i0 > in-1 {
		i0 = in - 1
	}
	lam := r(real - float64(i0))
	lam = math.Min(math.Max(lam, 0), 1)
	i1 = i0
	if i0 < in-1 {
		i1 = i0 + 1
	}
	return i0, i1, r(1 - lam), lam
}
