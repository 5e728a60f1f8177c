package native

// stablehlo.fft: FFT, IFFT (normalised by 1/n), RFFT and IRFFT over the
// trailing len(fft_length) dims, computed in complex128 and rounded once.

import (
	"fmt"
	"math"
	"math/bits"
	"math/cmplx"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.fft", evalFFT)
}

func evalFFT(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	kind, ok := op.Enum("fft_type")
	if !ok {
		return nil, fmt.Errorf("%s: missing fft_type", op.Name)
	}
	lens, ok := op.Ints("fft_length")
	if !ok || len(lens) < 1 || len(lens) > 3 || len(lens) > x.Rank() {
		return nil, fmt.Errorf("%s: fft_length must list 1 to 3 sizes (at most the rank of %v)", op.Name, x)
	}
	r := x.Rank()
	first := r - len(lens)
	for i, n := range lens {
		if n < 0 {
			return nil, fmt.Errorf("%s: negative fft_length %v", op.Name, lens)
		}
		d := x.Shape[first+i]
		want := n
		if kind == "IRFFT" && i == len(lens)-1 {
			want = n/2 + 1
		}
		if d != want {
			return nil, fmt.Errorf("%s: %s of %v: dim %d has size %d, want %d for fft_length %v", op.Name, kind, x, first+i, d, want, lens)
		}
	}
	shape := append([]int64(nil), x.Shape...)
	var data []complex128
	var outDT dtype.DType
	switch kind {
	case "FFT", "IFFT":
		if !x.DType.IsComplex() {
			return nil, fmt.Errorf("%s: %s needs a complex operand, got %v", op.Name, kind, x)
		}
		data = decodeComplexes(x)
		for d := first; d < r; d++ {
			fftAlong(data, shape, d, kind == "IFFT")
		}
		outDT = x.DType
	case "RFFT":
		if !x.DType.IsFloat() {
			return nil, fmt.Errorf("%s: RFFT needs a float operand, got %v", op.Name, x)
		}
		outDT = dtype.ComplexOf(x.DType)
		if outDT == dtype.Invalid {
			outDT = dtype.C64
		}
		data = decodeComplexes(x)
		for d := first; d < r; d++ {
			fftAlong(data, shape, d, false)
		}
		// keep the non-redundant half of the last dim
		n := shape[r-1]
		keep := n/2 + 1
		if n == 0 {
			keep = 0
		}
		data = truncateLastDim(data, shape, keep)
		shape[r-1] = keep
	case "IRFFT":
		if !x.DType.IsComplex() {
			return nil, fmt.Errorf("%s: IRFFT needs a complex operand, got %v", op.Name, x)
		}
		outDT = x.DType.ComplexPart()
		data = decodeComplexes(x)
		for d := first; d < r-1; d++ {
			fftAlong(data, shape, d, true)
		}
		n := lens[len(lens)-1]
		data = hermitianExtend(data, shape, n)
		shape[r-1] = n
		fftAlong(data, shape, r-1, true)
	default:
		return nil, fmt.Errorf("%s: unknown fft_type %q", op.Name, kind)
	}
	if err := checkComputedShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := literal.New(computeResultDType(op, 0, outDT), shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	if out.DType.IsComplex() {
		encodeComplexes(out, data)
	} else {
		re := make([]float64, len(data))
		for i, v := range data {
			re[i] = real(v)
		}
		encodeFloats(out, re)
	}
	return []Value{out}, nil
}

// fftAlong transforms every line of data along dim d in place.
func fftAlong(data []complex128, shape []int64, d int, inverse bool) {
	n := int(shape[d])
	if n <= 1 || len(data) == 0 {
		return
	}
	stride := 1
	for i := d + 1; i < len(shape); i++ {
		stride *= int(shape[i])
	}
	plan := newDFTPlan(n, inverse)
	line := make([]complex128, n)
	outer := len(data) / (n * stride)
	for o := 0; o < outer; o++ {
		for s := 0; s < stride; s++ {
			base := o*n*stride + s
			for k := 0; k < n; k++ {
				line[k] = data[base+k*stride]
			}
			plan.run(line)
			for k := 0; k < n; k++ {
				data[base+k*stride] = line[k]
			}
		}
	}
}

// truncateLastDim keeps the first keep entries of the last dim.
func truncateLastDim(data []complex128, shape []int64, keep int64) []complex128 {
	n := int(shape[len(shape)-1])
	if n == 0 {
		return data
	}
	rows := len(data) / n
	out := make([]complex128, rows*int(keep))
	for r := 0; r < rows; r++ {
		copy(out[r*int(keep):(r+1)*int(keep)], data[r*n:r*n+int(keep)])
	}
	return out
}

// hermitianExtend widens the last dim from n/2+1 to n entries with
// X[n-k] = conj(X[k]).
func hermitianExtend(data []complex128, shape []int64, n int64) []complex128 {
	m := int(shape[len(shape)-1])
	rows := 0
	if m > 0 {
		rows = len(data) / m
	} else {
		rest := int64(1)
		for _, d := range shape[:len(shape)-1] {
			rest *= d
		}
		rows = int(rest)
	}
	out := make([]complex128, rows*int(n))
	for r := 0; r < rows; r++ {
		src := data[r*m : (r+1)*m]
		dst := out[r*int(n) : (r+1)*int(n)]
		for k := 0; k < int(n); k++ {
			switch {
			case k < m:
				dst[k] = src[k]
			case int(n)-k < m:
				dst[k] = cmplx.Conj(src[int(n)-k])
			}
		}
	}
	return out
}

// dftPlan computes a length-n DFT: radix-2 when n is a power of two, a
// direct sum for other small n, and Bluestein's chirp-z otherwise. The
// inverse includes the 1/n factor.
type dftPlan struct {
	n       int
	inverse bool
	tw      []complex128 // exp(∓2πi k/n), k < n
	// Bluestein
	m     int
	chirp []complex128 // exp(∓πi k²/n)
	bfft  []complex128 // FFT of the conjugate chirp, length m
	fwd   *dftPlan
	inv   *dftPlan
	buf   []complex128
	tmp   []complex128
}

func newDFTPlan(n int, inverse bool) *dftPlan {
	p := &dftPlan{n: n, inverse: inverse}
	sign := -1.0
	if inverse {
		sign = 1
	}
	p.tw = make([]complex128, n)
	for k := range p.tw {
		a := sign * 2 * math.Pi * float64(k) / float64(n)
		p.tw[k] = complex(math.Cos(a), math.Sin(a))
	}
	if n&(n-1) == 0 || n <= 64 {
		p.tmp = make([]complex128, n)
		return p
	}
	m := 1 << bits.Len(uint(2*n-2))
	p.m = m
	p.chirp = make([]complex128, n)
	for k := range p.chirp {
		kk := (int64(k) * int64(k)) % int64(2*n)
		a := sign * math.Pi * float64(kk) / float64(n)
		p.chirp[k] = complex(math.Cos(a), math.Sin(a))
	}
	p.fwd = newDFTPlan(m, false)
	p.inv = newDFTPlan(m, true)
	p.bfft = make([]complex128, m)
	p.bfft[0] = cmplx.Conj(p.chirp[0])
	for k := 1; k < n; k++ {
		c := cmplx.Conj(p.chirp[k])
		p.bfft[k] = c
		p.bfft[m-k] = c
	}
	p.fwd.run(p.bfft)
	p.buf = make([]complex128, m)
	return p
}

func (p *dftPlan) run(x []complex128) {
	n := p.n
	switch {
	case n&(n-1) == 0:
		p.radix2(x)
	case p.m == 0:
		for k := 0; k < n; k++ {
			var s complex128
			for j := 0; j < n; j++ {
				s += x[j] * p.tw[(j*k)%n]
			}
			p.tmp[k] = s
		}
		copy(x, p.tmp)
	default:
		for k := range p.buf {
			p.buf[k] = 0
		}
		for k := 0; k < n; k++ {
			p.buf[k] = x[k] * p.chirp[k]
		}
		p.fwd.run(p.buf)
		for k := range p.buf {
			p.buf[k] *= p.bfft[k]
		}
		p.inv.run(p.buf) // includes 1/m
		for k := 0; k < n; k++ {
			x[k] = p.buf[k] * p.chirp[k]
		}
	}
	if p.inverse {
		s := complex(1/float64(n), 0)
		for k := range x {
			x[k] *= s
		}
	}
}

// radix2 is an in-place iterative FFT without the 1/n factor.
func (p *dftPlan) radix2(x []complex128) {
	n := p.n
	shift := 64 - uint(bits.Len(uint(n-1)))
	if n > 1 {
		for i := 0; i < n; i++ {
			j := int(bits.Reverse64(uint64(i)) >> shift)
			if j > i {
				x[i], x[j] = x[j], x[i]
			}
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		step := n / size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				t := p.tw[k*step] * x[start+k+half]
				x[start+k+half] = x[start+k] - t
				x[start+k] += t
			}
		}
	}
}
