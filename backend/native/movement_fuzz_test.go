package native

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Random attributes, shapes and result types (as when the verifier was
// skipped): the data-movement kernels must answer with a result or an
// error, never panic.
func TestMovementRandomInputsNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	small := func() int64 { return int64(rng.Intn(7) - 2) }
	list := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = small()
		}
		return out
	}
	shape := func() []int64 {
		s := make([]int64, rng.Intn(4))
		for i := range s {
			s[i] = int64(rng.Intn(4))
		}
		return s
	}
	tensor := func() *literal.Literal {
		return mvRand(rng, []dtype.DType{dtype.F32, dtype.I8, dtype.I64}[rng.Intn(3)], shape()...)
	}
	index := func() *literal.Literal { return mvRandIdx(rng, dtype.I32, -3, 6, shape()...) }
	gdims := func() *stablehlo.GatherDims {
		return &stablehlo.GatherDims{OffsetDims: list(rng.Intn(3)), CollapsedSliceDims: list(rng.Intn(2)), OperandBatchingDims: list(rng.Intn(2)),
			StartIndicesBatchingDims: list(rng.Intn(2)), StartIndexMap: list(rng.Intn(3)), IndexVectorDim: small()}
	}
	sdims := func() *stablehlo.ScatterDims {
		return &stablehlo.ScatterDims{UpdateWindowDims: list(rng.Intn(3)), InsertedWindowDims: list(rng.Intn(2)), InputBatchingDims: list(rng.Intn(2)),
			ScatterIndicesBatchingDims: list(rng.Intn(2)), ScatterDimsToOperandDims: list(rng.Intn(3)), IndexVectorDim: small()}
	}
	intAttr := func() stablehlo.Attr { return &stablehlo.IntAttr{Value: small()} }
	arr := func() stablehlo.Attr { return mvI64s(list(rng.Intn(4))...) }
	type gen func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region)
	add := mvBinaryRegion(dtype.F32, "stablehlo.add", nil)
	ops := map[string]gen{
		"stablehlo.broadcast_in_dim": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"broadcast_dimensions": arr()}, []Value{tensor()}, nil
		},
		"stablehlo.transpose": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"permutation": arr()}, []Value{tensor()}, nil
		},
		"stablehlo.reverse": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"dimensions": arr()}, []Value{tensor()}, nil
		},
		"stablehlo.slice": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"start_indices": arr(), "limit_indices": arr(), "strides": arr()}, []Value{tensor()}, nil
		},
		"stablehlo.pad": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"edge_padding_low": arr(), "edge_padding_high": arr(), "interior_padding": arr()}, []Value{tensor(), tensor()}, nil
		},
		"stablehlo.concatenate": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"dimension": intAttr()}, []Value{tensor(), tensor()}, nil
		},
		"stablehlo.dynamic_slice": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"slice_sizes": arr()}, []Value{tensor(), index(), index()}, nil
		},
		"stablehlo.dynamic_update_slice": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return nil, []Value{tensor(), tensor(), index(), index()}, nil
		},
		"stablehlo.iota": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"iota_dimension": intAttr()}, nil, nil
		},
		"stablehlo.dynamic_reshape": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return nil, []Value{tensor(), index()}, nil
		},
		"stablehlo.gather": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"dimension_numbers": gdims(), "slice_sizes": arr()}, []Value{tensor(), index()}, nil
		},
		"stablehlo.scatter": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"scatter_dimension_numbers": sdims()}, []Value{tensor(), index(), tensor()}, []*stablehlo.Region{add}
		},
		"stablehlo.sort": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"dimension": intAttr()}, []Value{tensor()}, []*stablehlo.Region{add}
		},
		"chlo.top_k": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"k": intAttr()}, []Value{tensor()}, nil
		},
		"stablehlo.torch_index_select": func() (map[string]stablehlo.Attr, []Value, []*stablehlo.Region) {
			return map[string]stablehlo.Attr{"dim": intAttr(), "batch_dims": intAttr()}, []Value{tensor(), index()}, nil
		},
	}
	for name, g := range ops {
		for n := 0; n < 300; n++ {
			attrs, in, regions := g()
			res := []stablehlo.Type{mvT(dtype.F32, shape()...), mvT(dtype.I32, shape()...)}
			op := mvOp(name, res, attrs, regions...)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s panicked on %s with inputs %v: %v", name, fmt.Sprint(attrs), in, r)
					}
				}()
				_, _ = kernels[name](mvEnv{}, op, in)
			}()
		}
	}
}
