package aten

// Odds and ends: shape queries without a family of their own.

func init() {
	lower("aten::sym_is_contiguous.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return []Value{BoolValue(true)}, nil // the runtime's tensors are dense row-major
	})
}
