package capi

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
)

// Bound is a call of a program whose tensors' dtypes, shapes and strides
// were given once (tt_program_bind): a compiled graph with static shapes
// calls it again and again with new data pointers and extents only, and
// the engine neither reads descriptors nor allocates input literals per
// call. Every call still checks each pointer's extent against the bytes
// its descriptor addresses.
type Bound struct {
	mu    sync.Mutex
	prog  *Program
	ins   []TensorDesc
	outs  []TensorDesc
	lits  []literal.Literal // the input literals, rewritten by each call
	ptrs  []*literal.Literal
	shape [][]int64 // each input's shape (the literals keep their own copy)
	// gathered holds each strided input's row-major copy, reused by the
	// next call (the engine reads inputs during the call only)
	gathered [][]byte
}

// Bind makes a Bound call of program h with the descriptors of its inputs
// and outputs (their Data and Extent are ignored: each call gives them).
func Bind(h Handle, inputs, outs []TensorDesc) (Handle, error) {
	p, err := get[*Program](h, "program")
	if err != nil {
		return 0, err
	}
	b := &Bound{prog: p, ins: append([]TensorDesc(nil), inputs...), outs: append([]TensorDesc(nil), outs...),
		lits: make([]literal.Literal, len(inputs)), ptrs: make([]*literal.Literal, len(inputs)),
		gathered: make([][]byte, len(inputs))}
	for i := range b.ins {
		b.ins[i].Shape = append([]int64(nil), inputs[i].Shape...)
		b.ins[i].Strides = append([]int64(nil), inputs[i].Strides...)
		b.shape = append(b.shape, slices.Clone(inputs[i].Shape))
		if b.shape[i] == nil {
			b.shape[i] = []int64{}
		}
		b.ptrs[i] = &b.lits[i]
	}
	for i := range b.outs {
		b.outs[i].Shape = append([]int64(nil), outs[i].Shape...)
		b.outs[i].Strides = append([]int64(nil), outs[i].Strides...)
	}
	return put(b), nil
}

// BoundArity returns the numbers of inputs and outputs a Bound call binds.
func BoundArity(h Handle) (int, int, error) {
	b, err := get[*Bound](h, "bound call")
	if err != nil {
		return 0, 0, err
	}
	return len(b.ins), len(b.outs), nil
}

// RunBound runs a Bound call: inData/inExtents give each input's data
// pointer and byte extent, outData/outExtents each output's (an output
// whose descriptor has a negative dtype is skipped).
func RunBound(ctx context.Context, h Handle, inData []unsafe.Pointer, inExtents []int64, outData []unsafe.Pointer, outExtents []int64) error {
	b, err := get[*Bound](h, "bound call")
	if err != nil {
		return err
	}
	if len(inData) != len(b.ins) || len(inExtents) != len(b.ins) {
		return fmt.Errorf("the call binds %d inputs, %d pointers and %d extents given", len(b.ins), len(inData), len(inExtents))
	}
	if len(outData) != len(b.outs) || len(outExtents) != len(b.outs) {
		return fmt.Errorf("the call binds %d outputs, %d pointers and %d extents given", len(b.outs), len(outData), len(outExtents))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t0 := time.Now()
	gathered, bytes := 0, 0
	for i := range b.ins {
		d := &b.ins[i]
		d.Data, d.Extent = inData[i], inExtents[i]
		// the literal's shape is b.shape[i]: a literal the last call
		// handed on cannot have changed this call's descriptor
		if err := d.literalIntoBuf(&b.lits[i], b.shape[i], &b.gathered[i]); err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
		if l := &b.lits[i]; len(l.Data) > 0 && unsafe.Pointer(&l.Data[0]) != d.Data {
			gathered, bytes = gathered+1, bytes+len(l.Data)
		}
	}
	b.prog.steps.gathered(time.Since(t0), gathered, bytes)
	for i := range b.outs {
		b.outs[i].Data, b.outs[i].Extent = outData[i], outExtents[i]
	}
	err = b.prog.runInto(ctx, b.ptrs, b.outs)
	for i := range b.lits {
		b.lits[i].Data = nil // the caller's memory is read during the call only
	}
	return err
}
