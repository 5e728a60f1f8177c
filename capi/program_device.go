package capi

import (
	"context"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/eager"
	"github.com/torchtpu/torchtpu/literal"
)

// A program on the eager tpu device's buffers (torch.compile of a model
// whose tensors live on the device): the program is an eager.Program,
// which the device runs as one task of its queue on its buffers' bytes
// and whose outputs become new buffers.

// Name labels the program's runs.
func (p *Program) Name() string { return p.name }

// Outputs returns the output specs when every user output is a tensor of
// static shape or None (then the device queues the run), else ok false.
func (p *Program) Outputs() ([]*eager.OutputSpec, bool) {
	p.outsOnce.Do(func() {
		g := p.src.Graph
		p.static = true
		for _, s := range g.UserOutputs() {
			if s.Arg.IsNone() {
				p.outs = append(p.outs, nil)
				continue
			}
			names := s.Arg.ValueNames()
			if len(names) != 1 {
				p.static = false
				return
			}
			tm, ok := g.Tensors[names[0]]
			if !ok || !tm.IsStatic() {
				p.static = false
				return
			}
			spec := &eager.OutputSpec{DType: tm.DType, Shape: make([]int64, len(tm.Shape))}
			for i, d := range tm.Shape {
				spec.Shape[i] = d.Static
			}
			p.outs = append(p.outs, spec)
		}
	})
	return p.outs, p.static
}

// Run runs the program on literals (eager.Program): outputs that share
// memory with the program's weights are copied (the device owns its
// buffers' bytes and may write them).
func (p *Program) Run(ctx context.Context, ins []*literal.Literal) ([]*literal.Literal, error) {
	mark := heapMark()
	p.mu.Lock()
	outs, _, err := p.prog.Run(ctx, ins)
	p.mu.Unlock()
	defer tuneHeap(mark)
	if err != nil {
		return nil, err
	}
	weights := make([]*literal.Literal, 0, len(p.prog.Weights))
	for _, w := range p.prog.Weights {
		weights = append(weights, w)
	}
	for i, o := range outs {
		if o != nil && aliases(o, weights) {
			outs[i] = &literal.Literal{DType: o.DType, Shape: o.Shape, Data: append([]byte(nil), o.Data...)}
		}
	}
	return outs, nil
}

// sameBackend reports whether a program compiled for device (an Options
// device: "cpu", "xla-cpu", "tpu", "tpu:0", ...) runs where the eager
// device's backend does.
func sameBackend(device, backend string) bool {
	device = strings.TrimSuffix(device, ":0")
	return device == backend
}

// RunOnDevice runs program h on tensors of the eager tpu device (words:
// one item per program input, see eager.Device.RunProgram) and writes the
// returns to out; it returns the number of words written. The program
// must have been compiled for the backend that serves the device.
func RunOnDevice(ctx context.Context, h Handle, words, out []int64) (int, error) {
	p, err := get[*Program](h, "program")
	if err != nil {
		return 0, err
	}
	d, err := EagerDevice()
	if err != nil {
		return 0, err
	}
	if b := d.Backend(); !sameBackend(p.device, b) {
		return 0, fmt.Errorf("%s was compiled for device %q and its inputs are on the tpu device, whose backend is %q: "+
			"compile for the device's backend (torch.compile options device=%q, or leave it unset) or move the tensors",
			p.name, p.device, b, b)
	}
	return d.RunProgram(ctx, p, words, out)
}
