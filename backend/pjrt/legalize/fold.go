package legalize

import (
	"context"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// evalOp folds one op with the native backend's kernels.
func evalOp(ctx context.Context, op *stablehlo.Op, in []*literal.Literal) ([]*literal.Literal, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return native.EvalOp(ctx, op, in)
}
