package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Convolutions: conv1d/2d/3d (int and 'same'/'valid' string padding),
// convolution, conv_transpose1d/2d/3d. Layout is PyTorch's NC(D)HW with
// OI(D)HW kernels; half types compute in float32 and round once; integer
// convolutions are exact in their own type.

func init() {
	for _, n := range []string{"aten::conv1d", "aten::conv2d", "aten::conv3d"} {
		lower(n, lowerConvN)
		lower(n+".padding", lowerConvN)
	}
	lower("aten::convolution", lowerConvolution)
	lower("aten::_convolution", lowerConvolution)
	lower("aten::conv_transpose1d", lowerConvTransposeN)
	lower("aten::conv_transpose2d.input", lowerConvTransposeN)
	lower("aten::conv_transpose3d.input", lowerConvTransposeN)
}

// convSpec is one convolution call, normalised.
type convSpec struct {
	stride, pad, dil, outPad []int64
	padLo, padHi             []int64 // explicit (asymmetric) padding, overrides pad
	transposed               bool
	groups                   int64
}

func padAttr(lo, hi []int64) stablehlo.Attr {
	lit, _ := literal.New(dtype.I64, []int64{int64(len(lo)), 2})
	for i := range lo {
		lit.SetInt64(2*i, lo[i])
		lit.SetInt64(2*i+1, hi[i])
	}
	return &stablehlo.DenseAttr{Type: stablehlo.Tensor(dtype.I64, int64(len(lo)), 2), Value: lit}
}

// convolve runs one convolution of x [N, C, *sp] with w and adds bias.
func convolve(c *LowerCtx, x, w, b *stablehlo.Value, s convSpec) (*stablehlo.Value, error) {
	if c.DType(x).IsComplex() && c.DType(w) == c.DType(x) {
		return complexConvolve(c, x, w, b, s)
	}
	xs, ws := c.Shape(x), c.Shape(w)
	n := len(ws) - 2
	if n < 1 {
		return nil, c.Errorf("convolution: weight must have at least 3 dims, got %v", ws)
	}
	unbatched := len(xs) == n+1
	if unbatched {
		x = c.Reshape(x, append([]int64{1}, xs...))
		xs = c.Shape(x)
	}
	if len(xs) != n+2 {
		return nil, c.Errorf("convolution: expected %dD (unbatched) or %dD (batched) input for %dD weight, got %v", n+1, n+2, n+2, xs)
	}
	var err error
	if s.stride, err = expandList(s.stride, n, 1, "stride"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	if s.dil, err = expandList(s.dil, n, 1, "dilation"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	if s.pad, err = expandList(s.pad, n, 0, "padding"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	if s.outPad, err = expandList(s.outPad, n, 0, "output_padding"); err != nil {
		return nil, c.Errorf("%w", err)
	}
	g := s.groups
	if g <= 0 {
		return nil, c.Errorf("convolution: non-positive groups is not supported")
	}
	dt := c.DType(x)
	if c.DType(w) != dt {
		return nil, c.Errorf("convolution: input type (%v) and weight type (%v) should be the same", dt.Torch(), c.DType(w).Torch())
	}
	if dt == dtype.Bool {
		return nil, c.Errorf("convolution: %v is not supported: %w", dt.Torch(), ErrUnsupported)
	}
	cdt := OpMath(dt)
	x, w = c.Convert(x, cdt), c.Convert(w, cdt)
	C := xs[1]
	lo, hi := make([]int64, n), make([]int64, n)
	lhsDil := make([]int64, n)
	for i := range lhsDil {
		lhsDil[i] = 1
	}
	strides := s.stride
	kernIO := false // a transposed convolution's weight read as it is
	if s.transposed {
		if ws[0] != C || C%g != 0 {
			return nil, c.Errorf("conv_transpose: expected weight [%d, C_out/groups, ...], got %v", C, ws)
		}
		k := ws[2:]
		if g == 1 {
			// the weight [C_in, C_out, k...] as it is: kernel dims [i, o,
			// ...] and window reversal, no transposed, reversed copy
			kernIO = true
		} else {
			// [C_in, C_out/g, k...] → [C_out, C_in/g, k...], spatially reversed.
			cin, coutg := ws[0], ws[1]
			mid := append([]int64{g, cin / g, coutg}, k...)
			perm := append([]int64{0, 2, 1}, seqI64(n)...)
			for i := 3; i < len(perm); i++ {
				perm[i] = int64(i)
			}
			w = emitTranspose(c, c.Reshape(w, mid), perm)
			w = c.Reshape(w, append([]int64{g * coutg, cin / g}, k...))
			sp := make([]int64, n)
			for i := range sp {
				sp[i] = int64(2 + i)
			}
			w = emitReverse(c, w, sp)
		}
		for i := 0; i < n; i++ {
			ext := s.dil[i] * (k[i] - 1)
			lo[i] = ext - s.pad[i]
			hi[i] = ext - s.pad[i] + s.outPad[i]
			lhsDil[i] = s.stride[i]
		}
		strides = make([]int64, n)
		for i := range strides {
			strides[i] = 1
		}
	} else {
		if C != ws[1]*g || ws[0]%g != 0 {
			return nil, c.Errorf("convolution: given groups=%d, weight of size %v, expected input %v to have %d channels, but got %d channels instead", g, ws, xs, ws[1]*g, C)
		}
		for i := 0; i < n; i++ {
			if s.padLo != nil {
				lo[i], hi[i] = s.padLo[i], s.padHi[i]
			} else {
				lo[i], hi[i] = s.pad[i], s.pad[i]
			}
			if xs[2+i]+lo[i]+hi[i] < s.dil[i]*(ws[2+i]-1)+1 {
				return nil, c.Errorf("convolution: calculated padded input size per channel (%d) is smaller than the kernel size (%d)", xs[2+i]+lo[i]+hi[i], s.dil[i]*(ws[2+i]-1)+1)
			}
		}
	}
	sp := make([]int64, n)
	for i := range sp {
		sp[i] = int64(2 + i)
	}
	dims := &stablehlo.ConvDims{
		InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: sp,
		KernelOutputFeatureDim: 0, KernelInputFeatureDim: 1, KernelSpatialDims: sp,
		OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: sp,
	}
	hiP := &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "precision", Value: "HIGHEST"}
	attrs := []stablehlo.NamedAttr{
		I64s("window_strides", strides),
		Attr("padding", padAttr(lo, hi)),
		I64s("lhs_dilation", lhsDil),
		I64s("rhs_dilation", s.dil),
		Attr("dimension_numbers", dims),
		Attr("feature_group_count", &stablehlo.IntAttr{Value: g}),
		Attr("batch_group_count", &stablehlo.IntAttr{Value: 1}),
		Attr("precision_config", stablehlo.ArrayAttr{hiP, hiP}),
	}
	if kernIO {
		dims.KernelOutputFeatureDim, dims.KernelInputFeatureDim = 1, 0
		rev := make([]int64, n)
		for i := range rev {
			rev[i] = 1
		}
		attrs = append(attrs, Attr("window_reversal", &stablehlo.DenseArrayAttr{Elem: "i1", Ints: rev}))
	}
	out := c.Op1("stablehlo.convolution", []*stablehlo.Value{x, w}, attrs)
	if b != nil {
		os := c.Shape(out)
		if c.Rank(b) != 1 || c.Shape(b)[0] != os[1] {
			return nil, c.Errorf("convolution: bias of shape %v does not match %d output channels", c.Shape(b), os[1])
		}
		out = c.Binary("add", out, c.BroadcastInDim(c.Convert(b, cdt), os, []int64{1}))
	}
	out = c.Convert(out, dt)
	if unbatched {
		out = c.Reshape(out, c.Shape(out)[1:])
	}
	return out, nil
}

func lowerConvN(c *LowerCtx, a *Args) ([]Value, error) {
	x, w := a.Tensor("input"), a.Tensor("weight")
	b := a.OptTensor("bias")
	s := convSpec{stride: a.Ints("stride"), dil: a.Ints("dilation"), groups: a.Int("groups")}
	mode := ""
	if a.Schema.Overload == "padding" {
		mode = a.Str("padding")
	} else {
		s.pad = a.Ints("padding")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	if mode != "" {
		n := c.Rank(w) - 2
		if n < 1 {
			return nil, c.Errorf("convolution: weight must have at least 3 dims")
		}
		switch mode {
		case "valid":
			s.pad = make([]int64, n)
		case "same":
			stride, err := expandList(s.stride, n, 1, "stride")
			if err != nil {
				return nil, c.Errorf("%w", err)
			}
			dil, err := expandList(s.dil, n, 1, "dilation")
			if err != nil {
				return nil, c.Errorf("%w", err)
			}
			ws := c.Shape(w)
			s.padLo, s.padHi = make([]int64, n), make([]int64, n)
			for i := 0; i < n; i++ {
				if stride[i] != 1 {
					return nil, c.Errorf("padding='same' is not supported for strided convolutions")
				}
				total := dil[i] * (ws[2+i] - 1)
				s.padLo[i] = total / 2
				s.padHi[i] = total - total/2
			}
		default:
			return nil, c.Errorf("invalid padding string: %q", mode)
		}
	}
	out, err := convolve(c, x, w, b, s)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerConvolution(c *LowerCtx, a *Args) ([]Value, error) {
	x, w := a.Tensor("input"), a.Tensor("weight")
	b := a.OptTensor("bias")
	s := convSpec{stride: a.Ints("stride"), pad: a.Ints("padding"), dil: a.Ints("dilation"),
		transposed: a.Bool("transposed"), outPad: a.Ints("output_padding"), groups: a.Int("groups")}
	if a.Err() != nil {
		return nil, a.Err()
	}
	out, err := convolve(c, x, w, b, s)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerConvTransposeN(c *LowerCtx, a *Args) ([]Value, error) {
	x, w := a.Tensor("input"), a.Tensor("weight")
	b := a.OptTensor("bias")
	s := convSpec{stride: a.Ints("stride"), pad: a.Ints("padding"), outPad: a.Ints("output_padding"),
		groups: a.Int("groups"), dil: a.Ints("dilation"), transposed: true}
	if a.Err() != nil {
		return nil, a.Err()
	}
	out, err := convolve(c, x, w, b, s)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

// complexConvolve computes a complex convolution with three real ones,
// PyTorch's Gauss trick: a = conv(xr, wr) + br, b = conv(xi, wi),
// c = conv(xr + xi, wr + wi) + (br + bi); the result is a - b + i(c - a - b).
func complexConvolve(c *LowerCtx, x, w, b *stablehlo.Value, s convSpec) (*stablehlo.Value, error) {
	re := func(v *stablehlo.Value) *stablehlo.Value { return c.Unary("real", v) }
	im := func(v *stablehlo.Value) *stablehlo.Value { return c.Unary("imag", v) }
	xr, xi, wr, wi := re(x), im(x), re(w), im(w)
	var br, bsum *stablehlo.Value
	if b != nil {
		br, bsum = re(b), c.Binary("add", re(b), im(b))
	}
	if c.DType(xr) == dtype.F32 && !c.NoF64 {
		// The three real convolutions in float64: the trick's
		// cancellation then costs nothing at float32.
		up := func(v *stablehlo.Value) *stablehlo.Value {
			if v == nil {
				return nil
			}
			return c.Convert(v, dtype.F64)
		}
		xr, xi, wr, wi, br, bsum = up(xr), up(xi), up(wr), up(wi), up(br), up(bsum)
	}
	ca, err := convolve(c, xr, wr, br, s)
	if err != nil {
		return nil, err
	}
	cb, err := convolve(c, xi, wi, nil, s)
	if err != nil {
		return nil, err
	}
	cc, err := convolve(c, c.Binary("add", xr, xi), c.Binary("add", wr, wi), bsum, s)
	if err != nil {
		return nil, err
	}
	real := c.Binary("subtract", ca, cb)
	imag := c.Binary("subtract", c.Binary("subtract", cc, ca), cb)
	pt := realPart(c.DType(x))
	return c.Op1("stablehlo.complex", []*stablehlo.Value{c.Convert(real, pt), c.Convert(imag, pt)}, nil), nil
}
