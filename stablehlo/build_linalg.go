package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

// Precision values for dot_general and convolution.
const (
	PrecisionDefault = "DEFAULT"
	PrecisionHigh    = "HIGH"
	PrecisionHighest = "HIGHEST"
)

func precisionAttr(p []string) []NamedAttr {
	if len(p) == 0 {
		return nil
	}
	arr := make(ArrayAttr, len(p))
	for i, s := range p {
		arr[i] = Enum("precision", s)
	}
	return []NamedAttr{{"precision_config", arr}}
}

// DotGeneral contracts lhs and rhs: result dims are the batching dims, then
// lhs free dims, then rhs free dims; the result has lhs's element type.
// precision is empty or one value per operand (PrecisionHighest...).
func (fb *FuncBuilder) DotGeneral(lhs, rhs *Value, dims DotDims, precision ...string) *Value {
	return fb.DotGeneralAs(dtype.Invalid, lhs, rhs, dims, precision...)
}

// DotGeneralAs is DotGeneral with a result element type (e.g. f32 for bf16
// operands, i32 for i8); dtype.Invalid keeps lhs's element type.
func (fb *FuncBuilder) DotGeneralAs(result dtype.DType, lhs, rhs *Value, dims DotDims, precision ...string) *Value {
	d := DotDims{ints(dims.LhsBatchingDims), ints(dims.RhsBatchingDims), ints(dims.LhsContractingDims), ints(dims.RhsContractingDims)}
	attrs := append([]NamedAttr{{"dot_dimension_numbers", &d}}, precisionAttr(precision)...)
	return fb.withResultElem("stablehlo.dot_general", []*Value{lhs, rhs}, result, attrs)
}

// withResultElem emits a single-result op whose result element type is
// optionally overridden: the shape is inferred first.
func (fb *FuncBuilder) withResultElem(name string, operands []*Value, result dtype.DType, attrs []NamedAttr) *Value {
	if result == dtype.Invalid {
		return fb.one(name, operands, attrs...)
	}
	if !fb.checkOperands(name, operands) {
		return nil
	}
	probe := NewOp(name, operands, nil, attrs)
	probe.Results = nil
	ts, err := InferResultTypes(probe)
	if err != nil {
		fb.b.fail(fmt.Errorf("stablehlo: build %s%w", locPrefix(fb.loc), err))
		return nil
	}
	t := AsTensor(ts[0])
	return fb.oneTyped(name, operands, withElem(t, Elem(result)), attrs...)
}

// ConvConfig holds the attributes of a convolution. Nil slices mean the
// defaults (strides and dilations 1, padding 0); zero group counts mean 1.
type ConvConfig struct {
	Dims              ConvDims
	Strides           []int64
	Padding           [][2]int64 // [low, high] per spatial dim
	LhsDilation       []int64    // input (base) dilation; transposed convs
	RhsDilation       []int64    // kernel dilation (torch dilation)
	FeatureGroupCount int64
	BatchGroupCount   int64
	Precision         []string
	Result            dtype.DType // result element type; Invalid keeps the input's
}

// PaddingAttr makes the dense<[[lo, hi], ...]> : tensor<Nx2xi64> attribute.
func PaddingAttr(p [][2]int64) *DenseAttr {
	flat := make([]int64, 0, 2*len(p))
	for _, q := range p {
		flat = append(flat, q[0], q[1])
	}
	return denseI64(flat, int64(len(p)), 2)
}

// Convolution emits stablehlo.convolution of input lhs and kernel rhs.
func (fb *FuncBuilder) Convolution(lhs, rhs *Value, c ConvConfig) *Value {
	n := len(c.Dims.InputSpatialDims)
	ones := filled(n, 1)
	or := func(v []int64) []int64 {
		if v == nil {
			return ones
		}
		return v
	}
	pad := c.Padding
	if pad == nil {
		pad = make([][2]int64, n)
	}
	fgc, bgc := c.FeatureGroupCount, c.BatchGroupCount
	if fgc == 0 {
		fgc = 1
	}
	if bgc == 0 {
		bgc = 1
	}
	dims := c.Dims
	dims.InputSpatialDims = ints(dims.InputSpatialDims)
	dims.KernelSpatialDims = ints(dims.KernelSpatialDims)
	dims.OutputSpatialDims = ints(dims.OutputSpatialDims)
	attrs := []NamedAttr{
		{"batch_group_count", I64(bgc)},
		{"dimension_numbers", &dims},
		{"feature_group_count", I64(fgc)},
		{"lhs_dilation", I64s(or(c.LhsDilation)...)},
		{"padding", PaddingAttr(pad)},
		{"rhs_dilation", I64s(or(c.RhsDilation)...)},
		{"window_strides", I64s(or(c.Strides)...)},
	}
	attrs = append(attrs, precisionAttr(c.Precision)...)
	return fb.withResultElem("stablehlo.convolution", []*Value{lhs, rhs}, c.Result, attrs)
}

// FFT types.
const (
	FFT   = "FFT"
	IFFT  = "IFFT"
	RFFT  = "RFFT"
	IRFFT = "IRFFT"
)

// Fft transforms the trailing len(length) dims of x.
func (fb *FuncBuilder) Fft(x *Value, kind string, length ...int64) *Value {
	return fb.one("stablehlo.fft", []*Value{x}, NamedAttr{"fft_length", I64s(length...)},
		NamedAttr{"fft_type", Enum("fft_type", kind)})
}

// Cholesky factors batched symmetric positive definite matrices.
func (fb *FuncBuilder) Cholesky(a *Value, lower bool) *Value {
	return fb.one("stablehlo.cholesky", []*Value{a}, NamedAttr{"lower", BoolAttr(lower)})
}

// TriangularSolve solves op(a) x = b (leftSide) or x op(a) = b; transposeA
// is "NO_TRANSPOSE", "TRANSPOSE" or "ADJOINT".
func (fb *FuncBuilder) TriangularSolve(a, b *Value, leftSide, lower, unitDiagonal bool, transposeA string) *Value {
	return fb.one("stablehlo.triangular_solve", []*Value{a, b}, NamedAttr{"left_side", BoolAttr(leftSide)},
		NamedAttr{"lower", BoolAttr(lower)}, NamedAttr{"transpose_a", Enum("transpose", transposeA)},
		NamedAttr{"unit_diagonal", BoolAttr(unitDiagonal)})
}

// BatchNormInference normalizes x with given statistics over featureIndex.
func (fb *FuncBuilder) BatchNormInference(x, scale, offset, mean, variance *Value, epsilon float32, featureIndex int64) *Value {
	return fb.one("stablehlo.batch_norm_inference", []*Value{x, scale, offset, mean, variance},
		NamedAttr{"epsilon", &FloatAttr{Value: float64(epsilon), Type: Elem(dtype.F32)}},
		NamedAttr{"feature_index", I64(featureIndex)})
}
