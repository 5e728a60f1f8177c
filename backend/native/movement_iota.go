package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// iota and dynamic_iota: element i along iota_dimension holds i converted
// to the result type, broadcast along the other dims.

func init() {
	register("stablehlo.iota", kIota)
	register("stablehlo.dynamic_iota", kDynamicIota)
}

func kIota(_ Env, op *stablehlo.Op, _ []Value) ([]Value, error) {
	shape, err := mvStaticResultShape(op, 0)
	if err != nil {
		return nil, err
	}
	return mvIota(op, shape)
}

func kDynamicIota(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	shape, err := mvDynamicShape(op, in, 0, "output_shape")
	if err != nil {
		return nil, err
	}
	return mvIota(op, shape)
}

func mvIota(op *stablehlo.Op, shape []int64) ([]Value, error) {
	dim, err := mvInt(op, "iota_dimension")
	if err != nil {
		return nil, err
	}
	if err := mvAxis(op, "iota_dimension", dim, len(shape)); err != nil {
		return nil, err
	}
	dt := mvResultDType(op, 0, 0)
	if dt.Size() == 0 {
		return nil, fmt.Errorf("%s: result has no element type", op.Name)
	}
	row, err := mvNew(op, dt, []int64{shape[dim]})
	if err != nil {
		return nil, err
	}
	for i := 0; i < row.Len(); i++ {
		row.SetInt64(i, int64(i))
	}
	out, err := mvNew(op, dt, shape)
	if err != nil {
		return nil, err
	}
	src := make([]int64, len(shape))
	src[dim] = 1
	copyBox(dt.Size(), shape, out.Data, 0, literal.Strides(shape), row.Data, 0, src)
	return []Value{out}, nil
}
