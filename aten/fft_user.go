package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The torch.fft user ops (fft_fft, fft_rfft2, fft_hfftn, fft_fftshift,
// fft_fftfreq, ...) as ATen's SpectralOps.cpp builds them from the
// _fft_c2c / _fft_r2c / _fft_c2r prims: promote the input (integers to
// float32; float16 and bfloat16 are rejected as on CPU), crop or
// zero-pad the transformed dims to the requested sizes, pick the prim's
// normalization mode from norm and the direction, and conjugate where
// PyTorch does (ifft/ihfft of real input, hfft).

// fftNormMode is ATen's norm_from_string: 0 none, 1 by 1/sqrt(n), 2 by 1/n.
func fftNormMode(c *LowerCtx, a *Args, forward bool) (int64, error) {
	s, ok := a.OptStr("norm")
	if a.Err() != nil {
		return 0, a.Err()
	}
	if !ok || s == "backward" {
		if forward {
			return 0, nil
		}
		return 2, nil
	}
	switch s {
	case "forward":
		if forward {
			return 2, nil
		}
		return 0, nil
	case "ortho":
		return 1, nil
	}
	return 0, c.Errorf("Invalid normalization mode: %q", s)
}

// fftPromote is ATen's promote_tensor_fft on CPU.
func fftPromote(c *LowerCtx, what string, x *stablehlo.Value, requireComplex bool) (*stablehlo.Value, error) {
	dt := c.DType(x)
	switch {
	case dt == dtype.C64 || dt == dtype.C128:
		return x, nil
	case dt.IsComplex():
		return nil, c.Errorf("%s: unsupported dtype %v", what, dt.Torch())
	case dt == dtype.Bool || dt.IsInteger():
		x = c.Convert(x, dtype.F32)
	case dt != dtype.F32 && dt != dtype.F64:
		return nil, c.Errorf("%s: unsupported dtype %v (float32 and float64 only, as on CPU)", what, dt.Torch())
	}
	if requireComplex {
		x = c.Binary("complex", x, c.Like(x, 0))
	}
	return x, nil
}

// fftResize crops or zero-pads each of dims to its size in sizes.
func fftResize(c *LowerCtx, x *stablehlo.Value, dims []int64, sizes []int64) *stablehlo.Value {
	for i, d := range dims {
		have, want := c.Shape(x)[d], sizes[i]
		switch {
		case have > want:
			x = sliceDim(c, x, int(d), 0, want, 1)
		case have < want:
			r := c.Rank(x)
			hi := make([]int64, r)
			hi[d] = want - have
			x = emitPad(c, x, c.Splat(c.DType(x), nil, 0), make([]int64, r), hi)
		}
	}
	return x
}

// fftPrim calls one of the _fft prims.
func fftPrim(c *LowerCtx, name string, args ...Value) (*stablehlo.Value, error) {
	out, err := c.Call(name, args, nil)
	if err != nil {
		return nil, err
	}
	return out[0].T, nil
}

func fftConj(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return c.Binary("complex", c.Unary("real", x), c.Unary("negate", c.Unary("imag", x)))
}

// fft1D is fft_c2c / fft_r2c / fft_c2r of SpectralOps.cpp: kind is "c2c",
// "r2c" or "c2r"; for "auto" a complex input takes c2c and a real one r2c.
func fft1D(what, kind string, forward, onesided bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		n, hasN := a.OptInt("n")
		dim := a.Int("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		norm, err := fftNormMode(c, a, forward)
		if err != nil {
			return nil, err
		}
		complexIn := c.DType(x).IsComplex()
		k := kind
		if k == "auto" {
			k = "r2c"
			if complexIn {
				k = "c2c"
			}
		}
		if c.Rank(x) == 0 {
			return nil, c.Errorf("%s: expected a tensor of at least one dimension", what)
		}
		d, err := canonDim(dim, c.Rank(x))
		if err != nil {
			return nil, c.Errorf("%s: %w", what, err)
		}
		size := c.Shape(x)[d]
		dims := IntsValue([]int64{int64(d)})
		switch k {
		case "c2c", "r2c":
			if k == "r2c" && complexIn {
				return nil, c.Errorf("%s expects a real input tensor, but got %v", what, c.DType(x).Torch())
			}
			if x, err = fftPromote(c, what, x, false); err != nil {
				return nil, err
			}
			if hasN {
				size = n
			}
			if size < 1 {
				return nil, c.Errorf("%s: Invalid number of data points (%d) specified", what, size)
			}
			if hasN {
				x = fftResize(c, x, []int64{int64(d)}, []int64{n})
			}
			var out *stablehlo.Value
			if k == "c2c" {
				out, err = fftPrim(c, "aten::_fft_c2c", TensorValue(x), dims, IntValue(norm), BoolValue(forward))
			} else {
				out, err = fftPrim(c, "aten::_fft_r2c", TensorValue(x), dims, IntValue(norm), BoolValue(onesided))
				if err == nil && !forward {
					out = fftConj(c, out)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			return one(out), nil
		}
		// c2r
		if x, err = fftPromote(c, what, x, true); err != nil {
			return nil, err
		}
		last := 2 * (size - 1)
		if hasN {
			last = n
		}
		if last < 1 {
			return nil, c.Errorf("%s: Invalid number of data points (%d) specified", what, last)
		}
		if hasN {
			x = fftResize(c, x, []int64{int64(d)}, []int64{last/2 + 1})
		}
		if forward {
			x = fftConj(c, x)
		}
		out, err := fftPrim(c, "aten::_fft_c2r", TensorValue(x), dims, IntValue(norm), IntValue(last))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return one(out), nil
	}
}

// fftShapeDims is ATen's canonicalize_fft_shape_and_dim_args.
func fftShapeDims(c *LowerCtx, a *Args, what string, x *stablehlo.Value) (shape, dims []int64, sGiven []int64, err error) {
	rank := c.Rank(x)
	in := c.Shape(x)
	s, hasS := a.OptInts("s")
	dl, hasDim := a.OptInts("dim")
	if a.Err() != nil {
		return nil, nil, nil, a.Err()
	}
	if hasDim {
		seen := map[int64]bool{}
		for _, d := range dl {
			if rank == 0 {
				return nil, nil, nil, c.Errorf("%s: dim %d out of range for a 0-dim tensor", what, d)
			}
			cd, err := canonDim(d, rank)
			if err != nil {
				return nil, nil, nil, c.Errorf("%s: %w", what, err)
			}
			if seen[int64(cd)] {
				return nil, nil, nil, c.Errorf("%s: FFT dims must be unique", what)
			}
			seen[int64(cd)] = true
			dims = append(dims, int64(cd))
		}
	}
	switch {
	case hasS:
		if hasDim && len(dl) != len(s) {
			return nil, nil, nil, c.Errorf("%s: When given, dim and shape arguments must have the same length", what)
		}
		if len(s) > rank {
			return nil, nil, nil, c.Errorf("%s: Got shape with %d values but input tensor only has %d dimensions.", what, len(s), rank)
		}
		if !hasDim {
			for i := rank - len(s); i < rank; i++ {
				dims = append(dims, int64(i))
			}
		}
		for i, n := range s {
			if n == -1 {
				n = in[dims[i]]
			}
			shape = append(shape, n)
		}
		sGiven = s
	case !hasDim:
		for i := 0; i < rank; i++ {
			dims = append(dims, int64(i))
			shape = append(shape, in[i])
		}
	default:
		for _, d := range dims {
			shape = append(shape, in[d])
		}
	}
	for _, n := range shape {
		if n <= 0 {
			return nil, nil, nil, c.Errorf("%s: Invalid number of data points (%d) specified", what, n)
		}
	}
	return shape, dims, sGiven, nil
}

// fftN is fftn/ifftn, rfftn, irfftn, hfftn and ihfftn (and their 2-D forms).
func fftN(what, kind string, forward bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		norm, err := fftNormMode(c, a, forward)
		if err != nil {
			return nil, err
		}
		if (kind == "r2c" || kind == "ihfft") && c.DType(x).IsComplex() {
			return nil, c.Errorf("%s expects a real-valued input tensor, but got %v", what, c.DType(x).Torch())
		}
		shape, dims, s, err := fftShapeDims(c, a, what, x)
		if err != nil {
			return nil, err
		}
		if kind != "c2c" && len(shape) == 0 {
			return nil, c.Errorf("%s must transform at least one axis", what)
		}
		wrap := func(v *stablehlo.Value, err error) ([]Value, error) {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			return one(v), nil
		}
		switch kind {
		case "c2c":
			if x, err = fftPromote(c, what, x, true); err != nil {
				return nil, err
			}
			if len(dims) == 0 {
				return one(x), nil
			}
			x = fftResize(c, x, dims, shape)
			return wrap(fftPrim(c, "aten::_fft_c2c", TensorValue(x), IntsValue(dims), IntValue(norm), BoolValue(forward)))
		case "r2c":
			if x, err = fftPromote(c, what, x, false); err != nil {
				return nil, err
			}
			x = fftResize(c, x, dims, shape)
			return wrap(fftPrim(c, "aten::_fft_r2c", TensorValue(x), IntsValue(dims), IntValue(norm), BoolValue(true)))
		case "ihfft":
			if x, err = fftPromote(c, what, x, false); err != nil {
				return nil, err
			}
			x = fftResize(c, x, dims, shape)
			last := dims[len(dims)-1:]
			tmp, err := fftPrim(c, "aten::_fft_r2c", TensorValue(x), IntsValue(last), IntValue(norm), BoolValue(true))
			if err != nil {
				return wrap(nil, err)
			}
			tmp = fftConj(c, tmp)
			if len(dims) == 1 {
				return one(tmp), nil
			}
			// conj(r2c) is the inverse transform of the last dim; the others
			// take an inverse c2c.
			return wrap(fftPrim(c, "aten::_fft_c2c", TensorValue(tmp), IntsValue(dims[:len(dims)-1]), IntValue(norm), BoolValue(false)))
		}
		// c2r and hfft: the last dim is the Hermitian one.
		lastSize := shape[len(shape)-1]
		if s == nil || s[len(s)-1] == -1 {
			lastSize = 2 * (c.Shape(x)[dims[len(dims)-1]] - 1)
		}
		if lastSize < 1 {
			return nil, c.Errorf("%s: Invalid number of data points (%d) specified", what, lastSize)
		}
		shape[len(shape)-1] = lastSize/2 + 1
		if x, err = fftPromote(c, what, x, true); err != nil {
			return nil, err
		}
		x = fftResize(c, x, dims, shape)
		if kind == "c2r" {
			return wrap(fftPrim(c, "aten::_fft_c2r", TensorValue(x), IntsValue(dims), IntValue(norm), IntValue(lastSize)))
		}
		if len(dims) > 1 {
			if x, err = fftPrim(c, "aten::_fft_c2c", TensorValue(x), IntsValue(dims[:len(dims)-1]), IntValue(norm), BoolValue(true)); err != nil {
				return wrap(nil, err)
			}
		}
		x = fftConj(c, x)
		return wrap(fftPrim(c, "aten::_fft_c2r", TensorValue(x), IntsValue(dims[len(dims)-1:]), IntValue(norm), IntValue(lastSize)))
	}
}

// fftShift is fftshift (shift by size/2) and ifftshift (by (size+1)/2)
// over dims (all dims when not given) as a roll.
func fftShift(what string, inverse bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dl, hasDim := a.OptInts("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		rank := c.Rank(x)
		if !hasDim {
			for i := 0; i < rank; i++ {
				dl = append(dl, int64(i))
			}
		}
		if len(dl) == 0 {
			return one(x), nil
		}
		shifts := make([]int64, len(dl))
		for i, d := range dl {
			cd, err := canonDim(d, rank)
			if err != nil || rank == 0 {
				return nil, c.Errorf("%s: dim %d out of range for a tensor of rank %d", what, d, rank)
			}
			n := c.Shape(x)[cd]
			shifts[i] = n / 2
			if inverse {
				shifts[i] = (n + 1) / 2
			}
		}
		out, err := c.Call("aten::roll", []Value{TensorValue(x), IntsValue(shifts), IntsValue(dl)}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return out, nil
	}
}

// fftFreq is fftfreq (k/(n·d) for k = 0..(n-1)/2, then -(n/2)..-1) and
// rfftfreq (k = 0..n/2). As in ATen the integer sequence is multiplied by
// 1/(n·d) rounded to the result dtype.
func fftFreq(what string, onesided bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		n := a.Int("n")
		d := a.Float("d")
		dt, ok := a.OptDType("dtype")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if !ok {
			dt = dtype.F32
		}
		if !dt.IsFloat() && !dt.IsComplex() {
			return nil, c.Errorf("%s requires a floating point or complex dtype, got %v", what, dt.Torch())
		}
		if n < 0 {
			return nil, c.Errorf("%s: n must be non-negative, got %d", what, n)
		}
		m := n
		if onesided {
			m = n/2 + 1
		}
		k := c.Iota(dtype.I64, []int64{m}, 0)
		if !onesided {
			right := c.Compare("GE", k, c.SplatInt(dtype.I64, []int64{m}, (n+1)/2))
			k = c.Select(right, c.Binary("subtract", k, c.SplatInt(dtype.I64, []int64{m}, n)), k)
		}
		v := c.Convert(k, dt)
		return one(c.Binary("multiply", v, c.Splat(dt, []int64{m}, 1/(float64(n)*d)))), nil
	}
}

func init() {
	for _, o := range []struct {
		name, kind        string
		forward, onesided bool
	}{
		{"fft", "auto", true, false}, {"ifft", "auto", false, false},
		{"rfft", "r2c", true, true}, {"irfft", "c2r", false, false},
		{"hfft", "c2r", true, false}, {"ihfft", "r2c", false, true},
	} {
		decomp("aten::fft_"+o.name, fft1D(o.name, o.kind, o.forward, o.onesided))
	}
	for _, o := range []struct {
		name, kind string
		forward    bool
	}{
		{"fft", "c2c", true}, {"ifft", "c2c", false},
		{"rfft", "r2c", true}, {"irfft", "c2r", false},
		{"hfft", "hfft", true}, {"ihfft", "ihfft", false},
	} {
		decomp("aten::fft_"+o.name+"n", fftN(o.name+"n", o.kind, o.forward))
		decomp("aten::fft_"+o.name+"2", fftN(o.name+"2", o.kind, o.forward))
	}
	decomp("aten::fft_fftshift", fftShift("fftshift", false))
	decomp("aten::fft_ifftshift", fftShift("ifftshift", true))
	lower("aten::fft_fftfreq", fftFreq("fftfreq", false))
	lower("aten::fft_rfftfreq", fftFreq("rfftfreq", true))
}
