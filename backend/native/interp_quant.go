package native

import "github.com/torchtpu/torchtpu/stablehlo"

// Which ops the interpreter sends through evalQuantized.

// movesData lists ops that only move or select stored elements: on
// quantized types they work on the storage values directly.
var movesData = map[string]bool{
	"stablehlo.constant": true, "stablehlo.uniform_quantize": true, "stablehlo.uniform_dequantize": true,
	"stablehlo.broadcast_in_dim": true, "stablehlo.reshape": true, "stablehlo.transpose": true,
	"stablehlo.slice": true, "stablehlo.concatenate": true, "stablehlo.reverse": true,
	"stablehlo.dynamic_slice": true, "stablehlo.dynamic_update_slice": true, "stablehlo.gather": true,
	"stablehlo.get_tuple_element": true, "stablehlo.tuple": true, "stablehlo.optimization_barrier": true,
	"stablehlo.while": true, "stablehlo.if": true, "stablehlo.case": true, "func.call": true,
	"stablehlo.dynamic_reshape": true, "stablehlo.dynamic_broadcast_in_dim": true,
	"stablehlo.get_dimension_size": true, "stablehlo.custom_call": true, "stablehlo.composite": true,
	"stablehlo.all_gather": true, "stablehlo.all_to_all": true, "stablehlo.collective_permute": true,
	"stablehlo.collective_broadcast": true, "stablehlo.send": true, "stablehlo.recv": true,
	"stablehlo.infeed": true, "stablehlo.outfeed": true, "stablehlo.bitcast_convert": true,
	"interpreter.run_parallel": true, "interpreter.probe": true, "interpreter.print": true,
	"stablehlo.async_start": true, "stablehlo.async_done": true,
}

// needsQuant reports whether op computes on quantized element types.
func needsQuant(op *stablehlo.Op) bool {
	if movesData[op.Name] || len(op.Name) > 6 && op.Name[:6] == "check." {
		return false
	}
	for _, v := range op.Operands {
		if v != nil && isQuantType(v.Type) {
			return true
		}
	}
	for _, v := range op.Results {
		if isQuantType(v.Type) {
			return true
		}
	}
	return false
}

func isQuantType(t stablehlo.Type) bool {
	switch t := t.(type) {
	case *stablehlo.TensorType:
		return t.Elem.IsQuantized()
	case stablehlo.ElemType:
		return t.IsQuantized()
	case *stablehlo.TupleType:
		for _, e := range t.Elems {
			if isQuantType(e) {
				return true
			}
		}
	}
	return false
}
