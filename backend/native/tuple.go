package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// tuple and get_tuple_element (legacy HLO ABI ops).

func init() {
	register("stablehlo.tuple", kTuple)
	register("stablehlo.get_tuple_element", kGetTupleElement)
}

func kTuple(_ Env, _ *stablehlo.Op, in []Value) ([]Value, error) {
	return []Value{Tuple(append([]Value{}, in...))}, nil
}

func kGetTupleElement(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("%s: want 1 operand, got %d", op.Name, len(in))
	}
	t, ok := in[0].(Tuple)
	if !ok {
		return nil, fmt.Errorf("%s: operand is %T, want a tuple", op.Name, in[0])
	}
	i, err := mvInt(op, "index")
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(t)) {
		return nil, fmt.Errorf("%s: index %d out of range for a tuple of %d", op.Name, i, len(t))
	}
	return []Value{t[i]}, nil
}
