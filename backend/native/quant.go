package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// evalQuantized evaluates an op whose operands or results have quantized
// element types (other than the quantize/dequantize ops themselves): per
// the spec, dequantize the operands, apply the float op, quantize the
// results. The interpreter calls it instead of k for such ops.
func evalQuantized(env Env, op *stablehlo.Op, in []Value, k Kernel) ([]Value, error) {
	return nil, fmt.Errorf("%s on quantized types: %w", op.Name, backend.ErrNotImplemented)
}
