package runtime

import (
	"context"
	"fmt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
)

// RunBuffers is Run on device buffers: the inputs are buffers of the
// program's device (backend.Upload, or outputs of an earlier run) and the
// outputs stay there, as buffers the caller owns and releases. Nothing
// crosses the host unless a host fallback needs it (or, with a bucketing
// policy, for the padding). The caller keeps its input buffers: they are
// neither released nor donated.
func (p *Program) RunBuffers(ctx context.Context, inputs []backend.Buffer) ([]backend.Buffer, *Stats, error) {
	io := newDeviceIO(ctx, p)
	lits := make([]*literal.Literal, len(inputs))
	for i, b := range inputs {
		if b == nil {
			return nil, nil, fmt.Errorf("input %d is nil", i)
		}
		lits[i] = io.input(b)
	}
	outs, stats, err := p.call(ctx, lits, io)
	var bufs []backend.Buffer
	if err == nil {
		bufs = make([]backend.Buffer, len(outs))
		for i, o := range outs {
			if bufs[i], err = io.output(o); err != nil {
				backend.ReleaseAll(bufs[:i])
				err = fmt.Errorf("output %d: %w", i, err)
				break
			}
		}
	}
	if _, stats, err = p.endCall(io, outs, stats, err); err != nil {
		backend.ReleaseAll(bufs)
		return nil, stats, err
	}
	return bufs, stats, nil
}
