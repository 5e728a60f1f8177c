package eager

import (
	"context"
	"fmt"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// takeTransposed makes the run take the arguments that read a whole
// buffer through a 2-D transposed view as the buffers themselves, with
// the executable that transposes them (plan.compileTransposed), instead
// of gathering them. d.mu is held.
func (r *opRun) takeTransposed(p *plan) error {
	var mask uint64
	for k := range r.ins {
		if in := &r.ins[k]; k < 64 && in.buf != nil && transposedWhole(&in.view, in.nb) {
			mask |= 1 << k
		}
	}
	if mask == 0 {
		return nil
	}
	exe, err := p.compileTransposed(context.Background(), r.dev, mask)
	if err != nil {
		return err
	}
	for k := range r.ins {
		if mask&(1<<k) != 0 {
			v := &r.ins[k].view // the buffer, row-major: the view's shape reversed
			v.Shape, v.Strides = []int64{v.Shape[1], v.Shape[0]}, []int64{v.Shape[0], 1}
		}
	}
	r.exe = exe
	return nil
}

// compileTransposed returns the executable taking module argument k,
// for each bit k of mask, as the row-major buffer its 2-D transposed view
// reads: the module transposes it (the native backend's products read it
// in place), where otherwise the run would gather the view element by
// element (a 1024×1024 weight: ~5 ms).
func (p *plan) compileTransposed(ctx context.Context, d *Device, mask uint64) (backend.Executable, error) {
	if exe := p.transposed[mask]; exe != nil {
		return exe, nil
	}
	block := &stablehlo.Block{}
	c := aten.NewLowerCtx(block)
	params := make([]*stablehlo.Value, len(p.params))
	for k := range params {
		t := p.paramType(k)
		tt := stablehlo.AsTensor(t)
		if mask&(1<<k) == 0 || tt == nil || len(tt.Shape) != 2 {
			params[k] = &stablehlo.Value{Type: t, Index: k}
			block.Args = append(block.Args, params[k])
			continue
		}
		rows, cols := tt.Shape[0], tt.Shape[1]
		base := &stablehlo.Value{Type: stablehlo.Tensor(tt.Elem.DType, cols, rows), Index: k}
		block.Args = append(block.Args, base)
		params[k] = viewOf(c, base, &View{DType: tt.Elem.DType, Shape: []int64{rows, cols}, Strides: []int64{1, rows}})
	}
	outs, err := p.emit(c, params)
	if err == nil {
		err = c.Err()
	}
	if err != nil {
		return nil, err
	}
	exe, err := runtime.CompileEager(ctx, d.b, runtime.EagerModule(block, outs), "eager "+p.op.name+" (transposed arguments)")
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	if p.transposed == nil {
		p.transposed = map[uint64]backend.Executable{}
	}
	p.transposed[mask] = exe
	return exe, nil
}

// transposedWhole reports whether v reads the whole of a buffer of nb
// bytes as the transpose of a row-major matrix (PyTorch's .t() of a 2-D
// tensor): shape [r, c], strides [1, r], offset 0.
func transposedWhole(v *View, nb int64) bool {
	return len(v.Shape) == 2 && v.Offset == 0 && v.Shape[0] > 1 && v.Shape[1] > 1 &&
		v.Strides[0] == 1 && v.Strides[1] == v.Shape[0] && v.Shape[0]*v.Shape[1]*int64(v.DType.Size()) == nb
}
