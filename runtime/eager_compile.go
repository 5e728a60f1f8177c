package runtime

import (
	"context"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// CompileEager compiles a module of the eager device (one op, or a fused
// block of ops) for b through the compile cache keyed by its canonical
// text, counted in EagerMetrics. label names it in messages.
func CompileEager(ctx context.Context, b backend.Backend, m *stablehlo.Module, label string) (backend.Executable, error) {
	EagerMetrics()
	exe, _, err := compileCached(ctx, eagerSt, b, m, label)
	return exe, err
}

// EagerModule wraps block, returning outs, as a module's public @main.
func EagerModule(block *stablehlo.Block, outs []*stablehlo.Value) *stablehlo.Module {
	return oneFuncModule(block, outs)
}
