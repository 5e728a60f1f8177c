package pjrt

import "github.com/torchtpu/torchtpu/stablehlo"

// Donatable reports, per argument of f, whether the program lets the
// argument's device buffer be donated: the argument carries
// tf.aliasing_output (its buffer becomes that output, the way
// torch.export's mutated buffers and JAX's donate_argnums are lowered) or
// jax.buffer_donor = true. The runtime gives every run fresh device
// buffers for its host inputs, so donating them never invalidates
// anything the caller still holds.
func Donatable(f *stablehlo.Func) []bool {
	n := len(f.Type.Inputs)
	out := make([]bool, n)
	for i := 0; i < n && i < len(f.ArgAttrs); i++ {
		for _, a := range f.ArgAttrs[i] {
			switch a.Name {
			case "tf.aliasing_output":
				_, out[i] = a.Value.(*stablehlo.IntAttr)
			case "jax.buffer_donor":
				switch v := a.Value.(type) {
				case stablehlo.BoolAttr:
					out[i] = bool(v)
				case stablehlo.UnitAttr:
					out[i] = true
				}
			}
		}
	}
	return out
}
