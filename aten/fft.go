package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// _fft_r2c and _fft_c2r over stablehlo.fft. The transformed dims move to
// the end (in the order given, the last one the halved one), one RFFT /
// IRFFT (or a full complex FFT for a two-sided r2c) runs over them, and
// the dims move back. normalization is PyTorch's fft_norm_mode: 0 none,
// 1 by 1/sqrt(n), 2 by 1/n, with n the signal size (the product of the
// transformed dims' sizes, of the real side). stablehlo's inverse
// transforms divide by n themselves, which is undone first.

func init() {
	lower("aten::_fft_r2c", lowerFFTR2C)
	lower("aten::_fft_c2r", lowerFFTC2R)
}

// fftLayout checks dims and returns the permutation that moves them to
// the end, and its inverse.
func fftLayout(c *LowerCtx, what string, rank int, dims []int64) (perm, inv []int64, err error) {
	if len(dims) == 0 {
		return nil, nil, c.Errorf("%s: dim must not be empty", what)
	}
	seen := make([]bool, rank)
	fd := make([]int64, len(dims))
	for i, d := range dims {
		if d < 0 {
			d += int64(rank)
		}
		if d < 0 || d >= int64(rank) || seen[d] {
			return nil, nil, c.Errorf("%s: invalid or repeated dim %v for rank %d", what, dims, rank)
		}
		seen[d] = true
		fd[i] = d
	}
	for d := 0; d < rank; d++ {
		if !seen[d] {
			perm = append(perm, int64(d))
		}
	}
	perm = append(perm, fd...)
	inv = make([]int64, rank)
	for i, p := range perm {
		inv[p] = int64(i)
	}
	return perm, inv, nil
}

// fftScale multiplies v by f (a no-op for 1).
func fftScale(c *LowerCtx, v *stablehlo.Value, f float64) *stablehlo.Value {
	if f == 1 {
		return v
	}
	return c.Binary("multiply", v, c.Like(v, f))
}

// normFactor is the factor normalization mode m applies to a transform
// of signal size n.
func normFactor(c *LowerCtx, m, n int64) float64 {
	switch m {
	case 0:
		return 1
	case 1:
		return 1 / math.Sqrt(float64(n))
	case 2:
		return 1 / float64(n)
	}
	c.Errorf("fft: invalid normalization mode %d", m)
	return 1
}

func emitFFT(c *LowerCtx, v *stablehlo.Value, kind string, length []int64) *stablehlo.Value {
	return c.Op1("stablehlo.fft", []*stablehlo.Value{v}, []stablehlo.NamedAttr{
		Attr("fft_type", &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "fft_type", Value: kind}),
		I64s("fft_length", length)})
}

func lowerFFTR2C(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dims := a.Ints("dim")
	norm := a.Int("normalization")
	onesided := a.Bool("onesided")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	if dt != dtype.F32 && dt != dtype.F64 {
		return nil, c.Errorf("_fft_r2c: expected a float32 or float64 input, got %v", dt.Torch())
	}
	perm, inv, err := fftLayout(c, "_fft_r2c", c.Rank(x), dims)
	if err != nil {
		return nil, err
	}
	v := emitTranspose(c, x, perm)
	shape := c.Shape(v)
	length := append([]int64(nil), shape[len(shape)-len(dims):]...)
	n := prod(length)
	if n == 0 {
		return nil, c.Errorf("_fft_r2c: invalid number of data points (0) specified")
	}
	if onesided {
		v = emitFFT(c, v, "RFFT", length)
	} else {
		v = emitFFT(c, c.Binary("complex", v, c.Like(v, 0)), "FFT", length)
	}
	v = fftScale(c, v, normFactor(c, norm, n))
	return one(emitTranspose(c, v, inv)), nil
}

func lowerFFTC2R(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dims := a.Ints("dim")
	norm := a.Int("normalization")
	last := a.Int("last_dim_size")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	if dt != dtype.C64 && dt != dtype.C128 {
		return nil, c.Errorf("_fft_c2r: expected a complex64 or complex128 input, got %v", dt.Torch())
	}
	if last <= 0 {
		return nil, c.Errorf("_fft_c2r: invalid number of data points (%d) specified", last)
	}
	perm, inv, err := fftLayout(c, "_fft_c2r", c.Rank(x), dims)
	if err != nil {
		return nil, err
	}
	v := emitTranspose(c, x, perm)
	shape := c.Shape(v)
	r := len(shape)
	// The halved dim holds last/2+1 frequencies: crop or zero-pad to it.
	half := last/2 + 1
	if have := shape[r-1]; have > half {
		v = sliceDim(c, v, r-1, 0, half, 1)
	} else if have < half {
		hi := make([]int64, r)
		hi[r-1] = half - have
		v = emitPad(c, v, c.Splat(dt, nil, 0), make([]int64, r), hi)
	}
	length := append([]int64(nil), shape[r-len(dims):]...)
	length[len(length)-1] = last
	n := prod(length)
	out := emitFFT(c, v, "IRFFT", length)
	// IRFFT divided by n; PyTorch's mode 0 does not.
	out = fftScale(c, out, float64(n)*normFactor(c, norm, n))
	return one(emitTranspose(c, out, inv)), nil
}

func init() {
	lower("aten::_fft_c2c", lowerFFTC2C)
}

func lowerFFTC2C(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dims := a.Ints("dim")
	norm := a.Int("normalization")
	forward := a.Bool("forward")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	if dt != dtype.C64 && dt != dtype.C128 {
		return nil, c.Errorf("_fft_c2c: expected a complex64 or complex128 input, got %v", dt.Torch())
	}
	if norm < 0 || norm > 2 {
		return nil, c.Errorf("_fft_c2c: invalid normalization mode %d", norm)
	}
	perm, inv, err := fftLayout(c, "_fft_c2c", c.Rank(x), dims)
	if err != nil {
		return nil, err
	}
	v := emitTranspose(c, x, perm)
	shape := c.Shape(v)
	length := append([]int64(nil), shape[len(shape)-len(dims):]...)
	n := prod(length)
	if n == 0 {
		return nil, c.Errorf("_fft_c2c: invalid number of data points (0) specified")
	}
	f := normFactor(c, norm, n)
	if forward {
		v = emitFFT(c, v, "FFT", length)
	} else {
		// IFFT divides by n; PyTorch's mode 0 does not.
		v = emitFFT(c, v, "IFFT", length)
		f *= float64(n)
	}
	return one(emitTranspose(c, fftScale(c, v, f), inv)), nil
}
