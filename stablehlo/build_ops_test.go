package stablehlo

import (
	"math"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// TestBuildEveryOp emits every op the builder offers, verifies the module,
// and round-trips it through the printer and the parser: the reparsed
// module must equal the built one and print identically.
func TestBuildEveryOp(t *testing.T) {
	m := everyOpModule(t)
	if err := roundTrip(m); err != nil {
		t.Fatal(err)
	}
	text := m.String()
	for _, want := range []string{
		`dense<[0x7FC0, 0x7F80, 0xFF80, -0.0e+00]> : tensor<4xbf16>`,
		`dense<18446744073709551615> : tensor<3xui64>`,
		`dense<"0x00000000ABAAAA3E`,
		`#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>`,
		`#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>`,
		`#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>`,
		`precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]`,
		`epsilon = 9.999999747378752e-06 : f32`,
		`-> (tensor<4x4xf32> {jax.result_info = ""})`,
		`%arg0: tensor<4x4xf32> {mhlo.sharding = "{replicated}"}`,
		`module @every_op attributes {mhlo.num_replicas = 1 : i32}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("printed module lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// everyOpModule builds a module using every builder method.
func everyOpModule(t testing.TB) *Module {
	b := NewBuilder("every_op")
	b.SetAttr("mhlo.num_replicas", I32(1))
	i32 := func(s ...int64) *TensorType { return Tensor(dtype.I32, s...) }
	fb := b.NewFunc("main", f32(4, 4), i32(4), f32(Dynamic, 4), Tensor(dtype.U64, 2))
	x, n, dyn, state := fb.Arg(0), fb.Arg(1), fb.Arg(2), fb.Arg(3)
	fb.SetArgAttr(0, "mhlo.sharding", StringAttr("{replicated}"))
	var keep []*Value
	use := func(vs ...*Value) { keep = append(keep, vs...) }

	for _, u := range []func(*Value) *Value{fb.Abs, fb.Neg, fb.Exp, fb.Expm1, fb.Log, fb.Log1p, fb.Sqrt, fb.Rsqrt,
		fb.Cbrt, fb.Tanh, fb.Tan, fb.Logistic, fb.Sin, fb.Cos, fb.Floor, fb.Ceil, fb.RoundNearestEven,
		fb.RoundNearestAfz, fb.Sign, fb.IsFinite} {
		use(u(x))
	}
	for _, u := range []func(*Value) *Value{fb.Not, fb.Popcnt, fb.CountLeadingZeros} {
		use(u(n))
	}
	for _, bin := range []func(a, b *Value) *Value{fb.Add, fb.Sub, fb.Mul, fb.Div, fb.Rem, fb.Max, fb.Min, fb.Pow, fb.Atan2} {
		use(bin(x, x))
	}
	for _, bin := range []func(a, b *Value) *Value{fb.And, fb.Or, fb.Xor, fb.ShiftLeft, fb.ShiftRightArithmetic, fb.ShiftRightLogical} {
		use(bin(n, n))
	}
	c := fb.Complex(x, x)
	use(fb.Real(c), fb.Imag(c), fb.Abs(c), fb.ReducePrecision(x, 5, 10))
	pred := fb.Compare(LT, x, x, CompareFloat)
	use(fb.Select(pred, x, x), fb.Clamp(fb.Scalar(dtype.F32, -1), x, fb.Scalar(dtype.F32, 1)))
	use(fb.Convert(n, dtype.F16), fb.BitcastConvert(x, dtype.I32), fb.BitcastConvert(fb.BitcastConvert(x, dtype.U8), dtype.F32))

	// Constants: a large one (hex), special floats, unsigned extremes.
	big, _ := literal.New(dtype.F32, []int64{4, 8})
	for i := 0; i < 32; i++ {
		big.SetFloat64(i, float64(i)/3)
	}
	special, _ := literal.New(dtype.BF16, []int64{4})
	for i, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)} {
		special.SetFloat64(i, v)
	}
	use(fb.Constant(big), fb.Constant(special), fb.FullInt(dtype.U64, []int64{3}, -1), fb.ScalarInt(dtype.Bool, 1))

	io := fb.Iota(i32(4, 4), 1)
	use(io, fb.BroadcastInDim(n, []int64{3, 4}, []int64{1}), fb.Reshape(x, 2, 8), fb.Transpose(x, 1, 0),
		fb.Slice(x, []int64{0, 1}, []int64{4, 4}, []int64{2, 1}), fb.Reverse(x, 0),
		fb.Pad(x, fb.Scalar(dtype.F32, 0), []int64{1, 0}, []int64{0, -1}, nil), fb.Concatenate(0, x, x))
	zero := fb.ScalarInt(dtype.I32, 0)
	use(fb.DynamicSlice(x, []*Value{zero, zero}, []int64{2, 2}),
		fb.DynamicUpdateSlice(x, fb.Full(dtype.F32, []int64{1, 4}, 2), []*Value{zero, zero}))
	size := fb.GetDimensionSize(dyn, 0)
	shape := fb.Concatenate(0, fb.Reshape(size, 1), fb.Reshape(fb.ScalarInt(dtype.I32, 4), 1))
	use(fb.DynamicBroadcastInDim(n, shape, i32(Dynamic, 4), []int64{1}), fb.DynamicReshape(dyn, shape, f32(Dynamic, 4)),
		fb.DynamicIota(shape, i32(Dynamic, 4), 0))
	use(fb.GetTupleElement(fb.Tuple(x, n), 1))

	use(fb.DotGeneral(x, x, DotDims{LhsContractingDims: []int64{1}, RhsContractingDims: []int64{0}}, PrecisionHighest, PrecisionHighest),
		fb.DotGeneralAs(dtype.F64, x, x, DotDims{LhsBatchingDims: []int64{0}, RhsBatchingDims: []int64{0}, LhsContractingDims: []int64{1}, RhsContractingDims: []int64{1}}))
	img := fb.Reshape(x, 1, 1, 4, 4)
	use(fb.Convolution(img, fb.Full(dtype.F32, []int64{2, 1, 3, 3}, 1), ConvConfig{
		Dims: ConvDims{InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: []int64{2, 3},
			KernelOutputFeatureDim: 0, KernelInputFeatureDim: 1, KernelSpatialDims: []int64{2, 3},
			OutputBatchDim: 0, OutputFeatureDim: 1, OutputSpatialDims: []int64{2, 3}},
		Padding: [][2]int64{{1, 1}, {1, 1}}, RhsDilation: []int64{1, 1}, Precision: []string{PrecisionDefault, PrecisionDefault}}))
	use(fb.Fft(c, FFT, 4), fb.Fft(x, RFFT, 4), fb.Cholesky(x, true), fb.TriangularSolve(x, x, true, true, false, "NO_TRANSPOSE"))
	v4 := fb.Full(dtype.F32, []int64{4}, 1)
	use(fb.BatchNormInference(x, v4, v4, v4, v4, 1e-5, 1))

	// Region ops.
	am := fb.Reduce([]*Value{x, io}, []*Value{fb.Scalar(dtype.F32, math.Inf(-1)), zero}, []int64{1},
		func(rb *FuncBuilder, a []*Value) []*Value {
			gt := rb.Compare(GT, a[2], a[0], CompareFloat)
			return []*Value{rb.Select(gt, a[2], a[0]), rb.Select(gt, a[3], a[1])}
		})
	use(am...)
	use(fb.ReduceWindow([]*Value{x}, []*Value{fb.Scalar(dtype.F32, 0)}, Window{Dimensions: []int64{2, 2}, Strides: []int64{2, 2}}, Combiner("add"))...)
	use(fb.SelectAndScatter(x, fb.Full(dtype.F32, []int64{2, 2}, 1), fb.Scalar(dtype.F32, 0), Window{Dimensions: []int64{2, 2}, Strides: []int64{2, 2}},
		func(rb *FuncBuilder, a []*Value) []*Value { return []*Value{rb.Compare(GE, a[0], a[1], CompareFloat)} },
		Combiner("add")))
	use(fb.Sort([]*Value{x}, 0, false, func(rb *FuncBuilder, a []*Value) []*Value {
		return []*Value{rb.Compare(GT, a[0], a[1], CompareTotalOrder)}
	})...)
	idx := fb.Reshape(n, 4, 1)
	use(fb.Gather(x, idx, GatherDims{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}, []int64{1, 4}, false))
	use(fb.Scatter([]*Value{x}, idx, []*Value{x}, ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0},
		ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}, false, false, Combiner("add"))...)
	use(fb.Scatter([]*Value{x}, idx, []*Value{x}, ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0},
		ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}, true, true, nil)...)
	use(fb.Case(zero, 1,
		func(rb *FuncBuilder, _ []*Value) []*Value { return []*Value{x} },
		func(rb *FuncBuilder, _ []*Value) []*Value { return []*Value{rb.Neg(x)} },
		func(rb *FuncBuilder, _ []*Value) []*Value { return []*Value{rb.Exp(x)} })...)
	st, bits := fb.RngBitGenerator(RngThreeFry, state, Tensor(dtype.U32, 4))
	use(st, bits, fb.Rng("UNIFORM", fb.Scalar(dtype.F32, 0), fb.Scalar(dtype.F32, 1), fb.Constant(i64Lit(2, 2)), f32(2, 2)))
	use(fb.OptimizationBarrier(x, n)...)
	use(fb.AfterAll())
	use(fb.CustomCall("my_target", []*Value{x}, []Type{f32(4, 4)}, NamedAttr{"api_version", I32(4)},
		NamedAttr{"has_side_effect", BoolAttr(true)}, NamedAttr{"backend_config", DictAttr{{"k", I64(1)}}})...)
	fb.CustomCall("check.expect_close", []*Value{x, x}, nil)
	fb.Return(keep[len(keep)-1])
	fb.SetResultAttr(0, "jax.result_info", StringAttr(""))

	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func i64Lit(vals ...int64) *literal.Literal {
	lit, _ := literal.New(dtype.I64, []int64{int64(len(vals))})
	for i, v := range vals {
		lit.SetInt64(i, v)
	}
	return lit
}
