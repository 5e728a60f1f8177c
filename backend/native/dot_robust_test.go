package native

import (
	"context"
	"errors"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// stubEnv is an Env whose regions and collectives fail.
type stubEnv struct{}

func (stubEnv) Context() context.Context { return context.Background() }
func (stubEnv) CallRegion(*stablehlo.Region, []Value) ([]Value, error) {
	return nil, errors.New("no regions here")
}
func (stubEnv) CallFunc(string, []Value) ([]Value, error) { return nil, errors.New("no funcs") }
func (stubEnv) Replica() int                              { return 0 }
func (stubEnv) Partition() int                            { return 0 }
func (stubEnv) NumReplicas() int                          { return 1 }
func (stubEnv) NumPartitions() int                        { return 1 }
func (stubEnv) Collective(*stablehlo.Op, string, []int, Value) ([]Value, error) {
	return nil, errors.New("no collectives")
}

// computeKernelNames are the ops whose kernels live in the dot, conv,
// reduce, window, fft, linalg, rng, chlo and quant files.
var computeKernelNames = []string{
	"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.dynamic_conv",
	"stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.select_and_scatter", "stablehlo.fft",
	"stablehlo.triangular_solve", "stablehlo.cholesky", "stablehlo.rng_bit_generator", "stablehlo.rng",
	"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize", "stablehlo.batch_norm_training", "stablehlo.batch_norm_grad", "stablehlo.einsum",
	"chlo.lgamma", "chlo.next_after", "chlo.mulhi", "chlo.ragged_dot", "chlo.scan", "chlo.zeta",
}

// TestComputeKernelsRejectBadInput feeds every compute kernel operands and
// attributes that do not fit: each call must return an error or a value,
// never panic.
func TestComputeKernelsRejectBadInput(t *testing.T) {
	lit := func(d dtype.DType, shape ...int64) *literal.Literal {
		l, err := literal.New(d, shape)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < l.Len(); i++ {
			l.SetInt64(i, int64(i%5)-2)
		}
		return l
	}
	operandSets := [][]Value{
		nil,
		{lit(dtype.F32)},
		{lit(dtype.F32, 2, 3), lit(dtype.F32, 4, 5)},
		{lit(dtype.F32, 2, 3), lit(dtype.I32, 3), lit(dtype.I64, 2)},
		{lit(dtype.C64, 3, 3), lit(dtype.C64, 3, 3), lit(dtype.C64)},
		{lit(dtype.I8, 0, 4), lit(dtype.I8, 4, 0), lit(dtype.I8), lit(dtype.I8)},
		{Tuple{}, Token{}},
	}
	attrSets := [][]stablehlo.NamedAttr{
		nil,
		{
			{Name: "dot_dimension_numbers", Value: &stablehlo.DotDims{LhsContractingDims: []int64{5}, RhsContractingDims: []int64{-1}}},
			{Name: "dimension_numbers", Value: &stablehlo.ConvDims{InputSpatialDims: []int64{7}, KernelSpatialDims: []int64{0}, OutputSpatialDims: []int64{1}}},
			{Name: "dimensions", Value: &stablehlo.DenseArrayAttr{Elem: "i64", Ints: []int64{3, 3}}},
			{Name: "window_dimensions", Value: &stablehlo.DenseArrayAttr{Elem: "i64", Ints: []int64{0}}},
			{Name: "fft_type", Value: &stablehlo.EnumAttr{Value: "IRFFT"}},
			{Name: "fft_length", Value: &stablehlo.DenseArrayAttr{Elem: "i64", Ints: []int64{9, 9, 9, 9}}},
			{Name: "rng_algorithm", Value: &stablehlo.EnumAttr{Value: "PHILOX"}},
			{Name: "rng_distribution", Value: &stablehlo.EnumAttr{Value: "NORMAL"}},
			{Name: "transpose_a", Value: &stablehlo.EnumAttr{Value: "ADJOINT"}},
			{Name: "operandSegmentSizes", Value: &stablehlo.DenseArrayAttr{Elem: "i32", Ints: []int64{5, 1}}},
			{Name: "feature_group_count", Value: &stablehlo.IntAttr{Value: 0}},
		},
	}
	resultTypes := [][]stablehlo.Type{
		nil,
		{stablehlo.Tensor(dtype.F32, 2, 2)},
		{stablehlo.Tensor(dtype.U64, 2), stablehlo.Tensor(dtype.U32, 3, 3)},
	}
	for _, name := range computeKernelNames {
		k, ok := kernels[name]
		if !ok {
			t.Errorf("%s: no kernel registered", name)
			continue
		}
		for oi, ops := range operandSets {
			for ai, attrs := range attrSets {
				for ri, rt := range resultTypes {
					operands := make([]*stablehlo.Value, len(ops))
					for i, v := range ops {
						if l, ok := v.(*literal.Literal); ok {
							operands[i] = &stablehlo.Value{Type: stablehlo.Tensor(l.DType, l.Shape...)}
						} else {
							operands[i] = &stablehlo.Value{Type: stablehlo.TokenType{}}
						}
					}
					op := stablehlo.NewOp(name, operands, rt, attrs, &stablehlo.Region{})
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Errorf("%s with operand set %d, attrs %d, results %d: panic: %v", name, oi, ai, ri, r)
							}
						}()
						_, _ = k(stubEnv{}, op, ops)
					}()
				}
			}
		}
	}
}
