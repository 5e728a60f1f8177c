package native

import (
	"context"
	"errors"
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// EvalOp evaluates one op without regions on host literals, with the
// kernels the native backend executes it with: a compiler folding
// constants (backend/pjrt/legalize's shape refinement) gets the spec's
// answer, bit for bit the executor's. Ops with regions, quantized types,
// collectives and the interpreter's own ops are refused; a kernel panic
// is an error.
func EvalOp(ctx context.Context, op *stablehlo.Op, in []*literal.Literal) (out []*literal.Literal, err error) {
	if op == nil {
		return nil, errors.New("native: EvalOp: nil op")
	}
	if len(op.Regions) > 0 {
		return nil, fmt.Errorf("native: EvalOp: %s has regions", op.Name)
	}
	if needsQuant(op) {
		return nil, fmt.Errorf("native: EvalOp: %s has quantized types", op.Name)
	}
	k, ok := kernels[op.Name]
	if !ok {
		return nil, fmt.Errorf("native: EvalOp: no kernel for %s", op.Name)
	}
	if len(in) != len(op.Operands) {
		return nil, fmt.Errorf("native: EvalOp: %s takes %d operands, got %d", op.Name, len(op.Operands), len(in))
	}
	vals := make([]Value, len(in))
	for i, l := range in {
		if l == nil {
			return nil, fmt.Errorf("native: EvalOp: %s: operand %d is nil", op.Name, i)
		}
		vals[i] = l
	}
	defer func() {
		if rec := recover(); rec != nil {
			out, err = nil, fmt.Errorf("native: EvalOp: %s: panicked: %v", op.Name, rec)
		}
	}()
	res, err := k(foldEnv{ctx}, op, vals)
	if err != nil {
		return nil, fmt.Errorf("native: EvalOp: %w", err)
	}
	if err := checkResults(op, res); err != nil {
		return nil, fmt.Errorf("native: EvalOp: %w", err)
	}
	out = make([]*literal.Literal, len(res))
	for i, v := range res {
		l, ok := v.(*literal.Literal)
		if !ok {
			return nil, fmt.Errorf("native: EvalOp: %s: result %d is %T, not a tensor", op.Name, i, v)
		}
		out[i] = l
	}
	return out, nil
}

// foldEnv is the Env of EvalOp: one process, no regions, no functions.
type foldEnv struct{ ctx context.Context }

func (e foldEnv) Context() context.Context { return e.ctx }
func (foldEnv) CallRegion(*stablehlo.Region, []Value) ([]Value, error) {
	return nil, errors.New("no regions while folding")
}
func (foldEnv) CallFunc(string, []Value) ([]Value, error) {
	return nil, errors.New("no functions while folding")
}
func (foldEnv) Replica() int       { return 0 }
func (foldEnv) Partition() int     { return 0 }
func (foldEnv) NumReplicas() int   { return 1 }
func (foldEnv) NumPartitions() int { return 1 }
func (foldEnv) Collective(*stablehlo.Op, string, []int, Value) ([]Value, error) {
	return nil, errors.New("no collectives while folding")
}
