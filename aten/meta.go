package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Meta infers what one call produces — dtypes and shapes, and the Python
// scalars of shape queries — without running anything: the lowering is
// applied to abstract tensors in a scratch block and its results' types
// are read back. One rule per op thus serves execution and inference alike
// (PyTorch's "meta" tensors), and every lowering error (bad dtype, shapes
// that do not broadcast) surfaces here too.
//
// Tensor arguments are given with MetaTensor; the returned tensor Values
// carry only a type (their T has no defining op in any real program).
func Meta(name string, positional []Value, kwargs map[string]Value) ([]Value, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("op %s is not supported (no lowering registered)", CanonicalName(name))
	}
	if e.Kind == HostFallback && e.Lower == nil {
		return nil, fmt.Errorf("%s: %w", e.Name, ErrHostOnly)
	}
	s, err := e.parsed()
	if err != nil {
		return nil, err
	}
	args, err := Bind(s, positional, kwargs)
	if err != nil {
		return nil, err
	}
	c := NewLowerCtx(&stablehlo.Block{})
	return e.Call(c, args)
}

// MetaTensor is an abstract tensor argument for Meta.
func MetaTensor(d dtype.DType, shape ...int64) Value {
	return TensorValue(&stablehlo.Value{Type: stablehlo.Tensor(d, shape...)})
}
