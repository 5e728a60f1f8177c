package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// stft and istft as SpectralOps.cpp composes them: frames cut out of the
// signal every hop_length samples (an index_select with a constant index),
// multiplied by the window (zero-padded on both sides to n_fft when
// win_length is shorter; all ones when absent), one FFT per frame, and the
// frequency dim moved before the frame dim. istft inverts it: one inverse
// FFT per frame, the window applied again, overlap-add of the frames (an
// index_add) divided by the overlap-added squared window, then the center
// padding cropped away. stft.default has no center argument: torch.stft's
// reflect padding is already in the exported graph.

func init() {
	decomp("aten::stft", lowerSTFT)
	decomp("aten::istft", lowerISTFT)
}

// stftParams holds the resolved hop, win_length and the n_fft-long window.
type stftParams struct {
	nFFT, hop int64
	window    *stablehlo.Value // [n_fft] or nil for all ones
}

func stftResolve(c *LowerCtx, a *Args, what string) (stftParams, error) {
	p := stftParams{nFFT: a.Int("n_fft")}
	hop, hasHop := a.OptInt("hop_length")
	win, hasWin := a.OptInt("win_length")
	w := a.OptTensor("window")
	if a.Err() != nil {
		return p, a.Err()
	}
	if p.nFFT <= 0 {
		return p, c.Errorf("%s: expected 0 < n_fft, got n_fft=%d", what, p.nFFT)
	}
	p.hop = p.nFFT / 4
	if hasHop {
		p.hop = hop
	}
	if !hasWin {
		win = p.nFFT
	}
	if p.hop <= 0 {
		return p, c.Errorf("%s: expected hop_length > 0, got %d", what, p.hop)
	}
	if win <= 0 || win > p.nFFT {
		return p, c.Errorf("%s: expected 0 < win_length <= n_fft, got win_length=%d", what, win)
	}
	if w != nil {
		if c.Rank(w) != 1 || c.Shape(w)[0] != win {
			return p, c.Errorf("%s: expected a 1D window tensor of size equal to win_length=%d, but got window with size %v", what, win, c.Shape(w))
		}
		if dt := c.DType(w); !dt.IsFloat() && !dt.IsComplex() {
			return p, c.Errorf("%s: window must be floating point or complex, got %v", what, dt.Torch())
		}
	}
	if win < p.nFFT {
		left := (p.nFFT - win) / 2
		if w == nil {
			w = c.Splat(dtype.F32, []int64{win}, 1)
		}
		w = emitPad(c, w, c.Splat(c.DType(w), nil, 0), []int64{left}, []int64{p.nFFT - win - left})
	}
	p.window = w
	return p, nil
}

// frameIndex is the flat [frames·n_fft] index f·hop + k of frame f's k-th
// sample.
func frameIndex(c *LowerCtx, frames, nFFT, hop int64) *stablehlo.Value {
	sh := []int64{frames, nFFT}
	f := c.Binary("multiply", c.Iota(dtype.I64, sh, 0), c.SplatInt(dtype.I64, sh, hop))
	return c.Reshape(c.Binary("add", f, c.Iota(dtype.I64, sh, 1)), []int64{frames * nFFT})
}

// windowed multiplies frames [..., n_fft] by the window (promoted).
func windowed(c *LowerCtx, fr, w *stablehlo.Value) *stablehlo.Value {
	if w == nil {
		return fr
	}
	dt := c.DType(fr)
	if c.DType(w).IsComplex() && !dt.IsComplex() {
		dt = dtype.C64
		if c.DType(fr) == dtype.F64 || c.DType(w) == dtype.C128 {
			dt = dtype.C128
		}
		fr = c.Convert(fr, dt)
	}
	wv := c.Convert(w, dt)
	if !c.DType(w).IsComplex() && dt.IsComplex() {
		wv = c.Binary("complex", c.Convert(w, dt.ComplexPart()), c.Splat(dt.ComplexPart(), c.Shape(w), 0))
	}
	return c.Binary("multiply", fr, c.BroadcastInDim(wv, c.Shape(fr), []int64{int64(c.Rank(fr) - 1)}))
}

func lowerSTFT(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	normalized := a.Bool("normalized")
	onesided, hasOnesided := a.OptBool("onesided")
	retComplex, hasRet := a.OptBool("return_complex")
	align, _ := a.OptBool("align_to_window")
	if a.Err() != nil {
		return nil, a.Err()
	}
	p, err := stftResolve(c, a, "stft")
	if err != nil {
		return nil, err
	}
	if align {
		return nil, c.Errorf("stft: align_to_window=True is not supported")
	}
	dt := c.DType(x)
	if dt != dtype.F32 && dt != dtype.F64 && dt != dtype.C64 && dt != dtype.C128 {
		return nil, c.Errorf("stft: expected a float32, float64, complex64 or complex128 input, got %v", dt.Torch())
	}
	complexIn := dt.IsComplex() || (p.window != nil && c.DType(p.window).IsComplex())
	if !hasRet {
		if !complexIn {
			return nil, c.Errorf("stft requires the return_complex parameter be given for real inputs")
		}
		retComplex = true
	}
	if !hasOnesided {
		onesided = !complexIn
	} else if onesided && complexIn {
		return nil, c.Errorf("stft: cannot have onesided output if window or input is complex")
	}
	batched := c.Rank(x) == 2
	if c.Rank(x) == 1 {
		x = c.Unsqueeze(x, 0)
	} else if !batched {
		return nil, c.Errorf("stft: expected a 1D or 2D tensor, got shape %v", c.Shape(x))
	}
	B, L := c.Shape(x)[0], c.Shape(x)[1]
	if p.nFFT > L {
		return nil, c.Errorf("stft: expected 0 < n_fft <= %d, but got n_fft=%d", L, p.nFFT)
	}
	frames := 1 + (L-p.nFFT)/p.hop
	idx := frameIndex(c, frames, p.nFFT, p.hop)
	fr, err := fftPrim(c, "aten::index_select", TensorValue(x), IntValue(1), TensorValue(idx))
	if err != nil {
		return nil, err
	}
	fr = windowed(c, c.Reshape(fr, []int64{B, frames, p.nFFT}), p.window)
	norm := int64(0)
	if normalized {
		norm = 1
	}
	var y *stablehlo.Value
	if c.DType(fr).IsComplex() {
		y, err = fftPrim(c, "aten::_fft_c2c", TensorValue(fr), IntsValue([]int64{2}), IntValue(norm), BoolValue(true))
	} else {
		y, err = fftPrim(c, "aten::_fft_r2c", TensorValue(fr), IntsValue([]int64{2}), IntValue(norm), BoolValue(onesided))
	}
	if err != nil {
		return nil, err
	}
	y = c.Op1("stablehlo.transpose", []*stablehlo.Value{y}, []stablehlo.NamedAttr{I64s("permutation", []int64{0, 2, 1})},
		stablehlo.Tensor(c.DType(y), B, c.Shape(y)[2], frames))
	if !batched {
		y = c.Reshape(y, c.Shape(y)[1:])
	}
	if !retComplex {
		return c.Call("aten::view_as_real", []Value{TensorValue(y)}, nil)
	}
	return one(y), nil
}

func lowerISTFT(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	center, normalized := a.Bool("center"), a.Bool("normalized")
	onesided, hasOnesided := a.OptBool("onesided")
	length, hasLength := a.OptInt("length")
	retComplex := a.Bool("return_complex")
	if a.Err() != nil {
		return nil, a.Err()
	}
	p, err := stftResolve(c, a, "istft")
	if err != nil {
		return nil, err
	}
	dt := c.DType(x)
	if dt != dtype.C64 && dt != dtype.C128 {
		return nil, c.Errorf("istft requires a complex-valued input tensor, got %v", dt.Torch())
	}
	batched := c.Rank(x) == 3
	if c.Rank(x) == 2 {
		x = c.Unsqueeze(x, 0)
	} else if !batched {
		return nil, c.Errorf("istft: expected a tensor of shape [n_fft, frames] or [batch, n_fft, frames], got %v", c.Shape(x))
	}
	B, nFreq, frames := c.Shape(x)[0], c.Shape(x)[1], c.Shape(x)[2]
	if !hasOnesided {
		onesided = nFreq != p.nFFT
	}
	if onesided {
		if p.nFFT/2+1 != nFreq {
			return nil, c.Errorf("istft: expected the frequency dimension (%d) of the input to equal n_fft / 2 + 1 (%d) when onesided=True", nFreq, p.nFFT/2+1)
		}
	} else if nFreq != p.nFFT {
		return nil, c.Errorf("istft: expected the frequency dimension (%d) of the input to equal n_fft (%d) when onesided=False", nFreq, p.nFFT)
	}
	if frames < 1 {
		return nil, c.Errorf("istft: input has no frames")
	}
	if retComplex && onesided {
		return nil, c.Errorf("istft: cannot have onesided output if window or input is complex")
	}
	if !retComplex && p.window != nil && c.DType(p.window).IsComplex() {
		return nil, c.Errorf("istft: complex windows require return_complex=True")
	}
	norm := int64(2)
	if normalized {
		norm = 1
	}
	xt := c.Op1("stablehlo.transpose", []*stablehlo.Value{x}, []stablehlo.NamedAttr{I64s("permutation", []int64{0, 2, 1})},
		stablehlo.Tensor(dt, B, frames, nFreq))
	// A real result is irfft's: a two-sided input is cut to its first
	// n_fft/2+1 bins first (their conjugate symmetry is assumed).
	var fr *stablehlo.Value
	if retComplex {
		fr, err = fftPrim(c, "aten::_fft_c2c", TensorValue(xt), IntsValue([]int64{2}), IntValue(norm), BoolValue(false))
	} else {
		if !onesided {
			xt = sliceDim(c, xt, 2, 0, p.nFFT/2+1, 1)
		}
		fr, err = fftPrim(c, "aten::_fft_c2r", TensorValue(xt), IntsValue([]int64{2}), IntValue(norm), IntValue(p.nFFT))
	}
	if err != nil {
		return nil, err
	}
	fr = windowed(c, fr, p.window)
	total := p.nFFT + p.hop*(frames-1)
	idx := frameIndex(c, frames, p.nFFT, p.hop)
	ola := func(src *stablehlo.Value) (*stablehlo.Value, error) {
		sh := c.Shape(src)
		flat := c.Reshape(src, append(append([]int64{}, sh[:len(sh)-2]...), frames*p.nFFT))
		zs := append(append([]int64{}, sh[:len(sh)-2]...), total)
		return fftPrim(c, "aten::index_add", TensorValue(c.Splat(c.DType(src), zs, 0)), IntValue(int64(len(zs)-1)), TensorValue(idx), TensorValue(flat))
	}
	y, err := ola(fr)
	if err != nil {
		return nil, err
	}
	rdt := c.DType(y)
	if rdt.IsComplex() {
		rdt = rdt.ComplexPart()
	}
	var wsq *stablehlo.Value
	if p.window == nil {
		wsq = c.Splat(rdt, []int64{frames, p.nFFT}, 1)
	} else {
		w := p.window
		if c.DType(w).IsComplex() {
			w = c.Unary("abs", w)
		}
		w = c.Convert(w, rdt)
		wsq = c.BroadcastInDim(c.Binary("multiply", w, w), []int64{frames, p.nFFT}, []int64{1})
	}
	env, err := ola(wsq)
	if err != nil {
		return nil, err
	}
	start, end := int64(0), total
	if center {
		start, end = p.nFFT/2, total-p.nFFT/2
	}
	if hasLength {
		if length < 0 {
			return nil, c.Errorf("istft: length must be non-negative, got %d", length)
		}
		end = start + length
	}
	cut := min(end, total)
	if cut < start {
		cut = start
	}
	y = sliceDim(c, y, 1, start, cut-start, 1)
	env = sliceDim(c, env, 0, start, cut-start, 1)
	envB := c.BroadcastInDim(env, c.Shape(y), []int64{1})
	if c.DType(y).IsComplex() {
		envB = c.Binary("complex", envB, c.Splat(rdt, c.Shape(y), 0))
	}
	y = c.Binary("divide", y, envB)
	if end > cut {
		y = emitPad(c, y, c.Splat(c.DType(y), nil, 0), []int64{0, 0}, []int64{0, end - cut})
	}
	if !batched {
		y = c.Reshape(y, c.Shape(y)[1:])
	}
	return one(y), nil
}
