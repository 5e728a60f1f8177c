package eager

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Fused mode records ops instead of running them. A block is the ops
// recorded since the last flush; a flush (a read, synchronize, an event, a
// host kernel, a write from the host, a resize, or the size bound) lowers
// the whole block into one module, compiles it, and queues one run.
//
// Inside a block every buffer it touches is a slot with a current value:
// the whole buffer's contents as one tensor. An op reads a view of a slot
// from that value (a reshape, transpose, slice or broadcast, or a gather
// for other strides) and writes through a view by replacing the value
// (a whole write) or scattering into it. Slots the block reads before
// writing are the module's arguments (the buffer's bytes, no copy); slots
// written and still alive at the flush are its results.
//
// Compiled blocks are cached by structure: the op signatures in order, how
// their arguments and results connect (slots and views, not buffers), and
// which slots are results. A training loop records the same structure
// every step and compiles once; Python numbers stay module arguments, so
// a changing learning rate does not recompile... unless the op takes it
// as an attribute (a Scalar argument), which is part of its signature.
type fusion struct {
	gen    uint64 // the block's number: a buffer's fgen when it has a slot here
	calls  []fusedCall
	slots  []fslot
	inputs []finput
	inIdx  map[inKey]int // inputs of a slot's bytes as a second dtype (fslot.in: the first)
	key    []byte

	// Slabs the calls' words, argument references and results are cut
	// from: a few allocations per block instead of three per op. A slab
	// that fills is replaced, never grown: cut slices keep pointing at
	// the one they came from.
	wordSlab []int64
	refSlab  []fref
	outSlab  []fout
	valSlab  []int32

	// Replay (replay.go): rp is the block this one is expected to
	// repeat, nil once a call departs from it; cur counts its calls
	// matched so far. While replaying, key is not written: it is rp's
	// up to cur, written out when the block departs.
	rp  *fusedBlock
	cur int
	// scratch for a call's arguments and results while replaying
	insScratch  []fref
	outsScratch []fout
}

// scratch returns (*s)[:n], growing it.
func scratch[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	return *s
}

// slabLen is the capacity of a new word slab, in elements (reference and
// result slabs hold a quarter as many).
const slabLen = 1024

// cut returns n elements of *slab, replacing it with a new one of at
// least c elements when it is full.
func cut[T any](slab *[]T, n, c int) []T {
	if len(*slab)+n > cap(*slab) {
		*slab = make([]T, 0, max(c, n))
	}
	k := len(*slab)
	*slab = (*slab)[:k+n]
	return (*slab)[k : k+n : k+n]
}

// words returns n words of the block's slab.
func (f *fusion) words(n int) []int64 { return cut(&f.wordSlab, n, slabLen) }

// fslot is one buffer of a block.
type fslot struct {
	buf     *Buffer
	nb      int64
	written bool        // the block has produced a value for it
	dt      dtype.DType // the dtype of its current value
	base    int         // input holding its contents before the block (-1: none)
	// in is 1 + the input holding its bytes as dtype inDT (0: none yet);
	// its bytes seen as other dtypes are in fusion.inIdx
	in   int
	inDT dtype.DType
}

// fref is where an op's argument comes from: a module input, or a view of
// a slot's current value.
type fref struct {
	input int // >= 0: module input
	slot  int
	view  View
}

// fout is where an op's result goes: a new buffer's slot, or a view of a
// written argument's slot.
type fout struct {
	slot  int
	view  View
	whole bool
	fresh bool // a new buffer (else an argument written)
}

type fusedCall struct {
	p    *plan
	ins  []fref
	outs []fout

	// For replay: the call's op and argument words, the positions of
	// the words that are values (decoder.vals), and the length of the
	// block's key once the call was recorded.
	op     int32
	words  []int64
	vals   []int32
	keyEnd int
}

// finput is a module input: a slot's whole bytes seen with dtype dt, a
// gathered view of a slot, or a literal (a CPU scalar or tensor).
type finput struct {
	kind int // inWhole, inView, inLit
	slot int
	dt   dtype.DType
	view View
	lit  *literal.Literal
}

const (
	inWhole = iota
	inView
	inLit
)

type inKey struct {
	slot int
	dt   dtype.DType
}

// fusedBlock is a compiled block, cached by structure.
type fusedBlock struct {
	exe     backend.Executable
	results []int // slot of each module result

	// What replay checks a block against: the calls recorded when it
	// was compiled and its key.
	tape []fusedCall
	key  string
	// its slots and module inputs: the sizes a replay of it needs
	slots, inputs int
}

// fusionGen numbers blocks (fusion.gen) across devices; a buffer's slot
// fields name the block they belong to.
var fusionGen atomic.Uint64

func newFusion() *fusion {
	return &fusion{gen: fusionGen.Add(1)}
}

// slotIn returns b's slot in the block, if it has one.
func (f *fusion) slotIn(b *Buffer) (int, bool) {
	if b.fgen == f.gen {
		return int(b.fslot), true
	}
	return 0, false
}

func (f *fusion) keyInt(v int64) { f.key = binary.AppendVarint(f.key, v) }

func (f *fusion) keyView(v *View) {
	f.keyInt(int64(v.DType))
	f.keyInt(v.Offset)
	f.keyInt(int64(len(v.Shape)))
	for i := range v.Shape {
		f.keyInt(v.Shape[i])
		f.keyInt(v.Strides[i])
	}
}

// slotOf returns the slot of b, adding it.
func (f *fusion) slotOf(b *Buffer) int {
	if s, ok := f.slotIn(b); ok {
		return s
	}
	s := len(f.slots)
	b.fslot, b.fgen = int32(s), f.gen
	f.slots = append(f.slots, fslot{buf: b, nb: b.nbytes, base: -1})
	return s
}

// wholeInput returns the input holding slot s's bytes as dtype dt.
func (f *fusion) wholeInput(s int, dt dtype.DType) int {
	if i, ok := f.inputOf(s, dt); ok {
		return i
	}
	i := len(f.inputs)
	f.inputs = append(f.inputs, finput{kind: inWhole, slot: s, dt: dt})
	if sl := &f.slots[s]; sl.in == 0 {
		sl.in, sl.inDT = i+1, dt
	} else {
		if f.inIdx == nil {
			f.inIdx = map[inKey]int{}
		}
		f.inIdx[inKey{s, dt}] = i
	}
	return i
}

// inputOf returns the input holding slot s's bytes as dtype dt, if any.
func (f *fusion) inputOf(s int, dt dtype.DType) (int, bool) {
	if sl := &f.slots[s]; sl.in > 0 && sl.inDT == dt {
		return sl.in - 1, true
	}
	i, ok := f.inIdx[inKey{s, dt}]
	return i, ok
}

// recordable reports whether the view can be read or written inside a
// block: the slot's value must have the view's dtype, and the bytes must
// be a whole number of elements.
func (f *fusion) recordable(b *Buffer, v *View) bool {
	size := int64(v.DType.Size())
	if size == 0 || b.nbytes%size != 0 {
		return false
	}
	s, ok := f.slotIn(b)
	return !ok || !f.slots[s].written || f.slots[s].dt == v.DType
}

// record adds a call of plan p to the block, making its new buffers, or
// returns false when the call must run outside a block (the caller
// flushes and runs it eagerly). d.mu is held.
func (d *Device) record(p *plan, args []earg, results []*Buffer, targets []input) bool {
	f := d.fuse
	// Check first, so that a refused call leaves the block unchanged.
	for _, pr := range p.params {
		a := at(args, pr.arg, pr.item)
		if a.tag == tagTensor && !f.recordable(a.buf, &a.view) {
			return false
		}
	}
	for k := range targets {
		if t := &targets[k]; t.buf != nil && !f.recordable(t.buf, &t.view) {
			return false
		}
	}
	c := fusedCall{p: p, op: d.call.op, words: d.call.words, vals: d.call.vals}
	inScratch := f.rp != nil
	if inScratch {
		// likely a replayed call: arguments and results built in
		// scratch, and the recorded call's kept where they are the same
		// (fusion.replayed)
		c.ins, c.outs = scratch(&f.insScratch, len(p.params)), scratch(&f.outsScratch, len(p.outs))
	} else {
		c.ins, c.outs = cut(&f.refSlab, len(p.params), slabLen/4), cut(&f.outSlab, len(p.outs), slabLen/4)
	}
	for k, pr := range p.params {
		a := at(args, pr.arg, pr.item)
		switch a.tag {
		case tagTensor:
			s := f.slotOf(a.buf)
			c.ins[k] = fref{input: -1, slot: s, view: a.view}
			if !f.slots[s].written {
				c.ins[k].input = f.wholeInput(s, a.view.DType)
			}
		default:
			var lit *literal.Literal
			if a.tag == tagScalar {
				var err error
				if lit, err = scalarLiteral(a, pr.dt); err != nil {
					return false
				}
			} else {
				lit = a.lit
			}
			c.ins[k] = fref{input: len(f.inputs), slot: -1}
			f.inputs = append(f.inputs, finput{kind: inLit, lit: lit})
		}
	}
	for k := range p.outs {
		if b := results[k]; b != nil {
			s := f.slotOf(b)
			f.slots[s].written, f.slots[s].dt = true, p.outs[k].dt
			c.outs[k] = fout{slot: s, whole: true, fresh: true, view: View{DType: p.outs[k].dt, Shape: p.outs[k].shape}}
			continue
		}
		t := &targets[k]
		if t.buf == nil {
			c.outs[k] = fout{slot: -1}
			continue
		}
		s := f.slotOf(t.buf)
		sl := &f.slots[s]
		whole := t.view.whole(sl.nb)
		if !whole && !sl.written {
			sl.base = f.wholeInput(s, t.view.DType)
		}
		sl.written, sl.dt = true, t.view.DType
		c.outs[k] = fout{slot: s, view: t.view, whole: whole}
	}
	if !f.replayed(&c, &d.call) {
		if inScratch {
			// departed here: the call's own copies
			ins, outs := cut(&f.refSlab, len(c.ins), slabLen/4), cut(&f.outSlab, len(c.outs), slabLen/4)
			copy(ins, c.ins)
			copy(outs, c.outs)
			c.ins, c.outs = ins, outs
		}
		f.keyCall(&c)
	}
	f.calls = append(f.calls, c)
	d.stats.BlockOps++
	return true
}

// keyCall appends c's part of the block's key: its plan, and for each
// argument and result the slot, module input and view it reads or
// writes.
func (f *fusion) keyCall(c *fusedCall) {
	f.keyInt(int64(c.p.id))
	for k := range c.ins {
		in := &c.ins[k]
		if in.slot < 0 {
			f.keyInt(-2) // a literal: a module input of its own
			continue
		}
		f.keyInt(int64(in.slot))
		f.keyInt(int64(in.input))
		f.keyView(&in.view)
	}
	for k := range c.outs {
		o := &c.outs[k]
		f.keyInt(int64(o.slot))
		if o.slot >= 0 && !o.fresh {
			f.keyView(&o.view)
		}
	}
	c.keyEnd = len(f.key)
}

// flushIfTouched flushes the block when it holds b: work on b queued
// outside the block must come after the block's. Work on other buffers may
// go first (the block runs when it is flushed, later). d.mu is held.
func (d *Device) flushIfTouched(b *Buffer, why string) error {
	if d.fuse == nil {
		return nil
	}
	if _, ok := d.fuse.slotIn(b); !ok {
		return nil
	}
	return d.flush(why)
}

// flush is flushLocked, counting why (reported in the device's stats).
func (d *Device) flush(why string) error {
	if d.fuse != nil && len(d.fuse.calls) > 0 {
		d.flushes[why]++
	}
	return d.flushLocked()
}

// flushLocked runs the recorded block of fused mode, if any. d.mu is held.
func (d *Device) flushLocked() error {
	f := d.fuse
	if f == nil || len(f.calls) == 0 {
		return nil
	}
	d.fuse = newFusion()
	// The results: written slots whose buffers are still alive.
	var results []int
	for s := range f.slots {
		if f.slots[s].written && !f.slots[s].buf.freed {
			results = append(results, s)
		}
	}
	d.stats.Blocks++
	blk := f.replayedBlock(results)
	if blk != nil {
		d.stats.ReplayedBlocks++
	} else {
		f.keyInt(-3)
		for _, s := range results {
			f.keyInt(int64(s))
		}
		key := string(f.key)
		if blk = d.blocks[key]; blk == nil {
			exe, err := d.compileBlock(f, results)
			if err != nil {
				return fmt.Errorf("fused block of %d ops: %w", len(f.calls), err)
			}
			blk = &fusedBlock{exe: exe, results: results, tape: f.calls, key: key, slots: len(f.slots), inputs: len(f.inputs)}
			d.blocks[key] = blk
			d.stats.BlockCompiles++
		}
	}
	d.expectAfter(blk)
	return d.runBlock(f, blk)
}

// compileBlock lowers the block's ops into one module returning the
// result slots' final values, and compiles it.
func (d *Device) compileBlock(f *fusion, results []int) (backend.Executable, error) {
	block := &stablehlo.Block{}
	c := aten.NewLowerCtx(block)
	args := make([]*stablehlo.Value, len(f.inputs))
	for i, in := range f.inputs {
		var t *stablehlo.TensorType
		if in.kind == inLit {
			t = stablehlo.Tensor(in.lit.DType, in.lit.Shape...)
		} else {
			t = stablehlo.Tensor(in.dt, f.slots[in.slot].nb/int64(in.dt.Size()))
		}
		args[i] = &stablehlo.Value{Type: t, Index: i}
		block.Args = append(block.Args, args[i])
	}
	cur := make([]*stablehlo.Value, len(f.slots))
	for n, call := range f.calls {
		params := make([]*stablehlo.Value, len(call.ins))
		for k, in := range call.ins {
			switch {
			case in.input >= 0 && f.inputs[in.input].kind == inLit:
				params[k] = args[in.input]
			case in.input >= 0:
				params[k] = viewOf(c, args[in.input], &in.view)
			default:
				params[k] = viewOf(c, cur[in.slot], &in.view)
			}
		}
		outs, err := call.p.emit(c, params)
		if err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", n, call.p.op.name, err)
		}
		for k, o := range call.outs {
			switch {
			case o.slot < 0:
			case o.whole:
				cur[o.slot] = outs[k]
			default:
				base := cur[o.slot]
				if base == nil {
					i, _ := f.inputOf(o.slot, o.view.DType)
					base = args[i]
				}
				cur[o.slot] = scatterInto(c, base, outs[k], &o.view)
			}
		}
		if err := c.Err(); err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", n, call.p.op.name, err)
		}
	}
	outs := make([]*stablehlo.Value, len(results))
	for i, s := range results {
		outs[i] = cur[s]
	}
	m := runtime.EagerModule(block, outs)
	if dir := os.Getenv("TORCHTPU_DUMP_BLOCKS"); dir != "" {
		dumpBlock(dir, m, f)
	}
	return runtime.CompileEager(context.Background(), d.b, m, fmt.Sprintf("fused block of %d ops", len(f.calls)))
}

// dumpBlock writes a compiled block's module and its ops to dir (for
// looking at what fused mode compiles; $TORCHTPU_DUMP_BLOCKS).
func dumpBlock(dir string, m *stablehlo.Module, f *fusion) {
	var sb strings.Builder
	for _, c := range f.calls {
		sb.WriteString("// " + c.p.op.name + "\n")
	}
	if err := stablehlo.Print(&sb, m); err != nil {
		return
	}
	name := filepath.Join(dir, fmt.Sprintf("block-%d-%d.mlir", os.Getpid(), len(f.calls)))
	_ = os.WriteFile(name, []byte(sb.String()), 0o644)
}

// runBlock queues one run of a compiled block on the buffers of f.
func (d *Device) runBlock(f *fusion, blk *fusedBlock) error {
	ins := make([]input, len(f.inputs))
	for i, in := range f.inputs {
		if in.kind == inLit {
			ins[i] = input{lit: in.lit}
			continue
		}
		sl := &f.slots[in.slot]
		n := sl.nb / int64(in.dt.Size())
		ins[i] = input{buf: sl.buf, nb: sl.nb, view: View{DType: in.dt, Shape: []int64{n}, Strides: []int64{1}}}
	}
	outBufs := make([]*Buffer, len(blk.results))
	outNB := make([]int64, len(blk.results))
	for i, s := range blk.results {
		outBufs[i], outNB[i] = f.slots[s].buf, f.slots[s].nb
	}
	exe := blk.exe
	label := fmt.Sprintf("fused block of %d ops (%s … %s)", len(f.calls), f.calls[0].p.op.name, f.calls[len(f.calls)-1].p.op.name)
	defer func() {
		for s := range f.slots {
			d.touched(f.slots[s].buf)
		}
	}()
	return d.enqueueWork(label, func() error {
		lits := make([]*literal.Literal, len(ins))
		for k := range ins {
			lits[k] = ins[k].literal()
		}
		pool := &d.pool
		dests := make([][]byte, len(outNB))
		pool.take(dests, outNB, 0, d.q)
		ctx := backend.WithResultBuffers(context.Background(), dests)
		start := time.Now()
		outs, err := exe.Run(ctx, lits)
		el := int64(time.Since(start))
		d.runNanos.Add(el)
		d.blockNanos.Add(el)
		if err != nil {
			pool.giveBack(dests, nil)
			return err
		}
		if len(outs) != len(outBufs) {
			return fmt.Errorf("the block returned %d results, want %d", len(outs), len(outBufs))
		}
		kept := make([][]byte, 0, len(outs))
		for k, o := range outs {
			data := o.Data
			if int64(len(data)) != outNB[k] {
				return fmt.Errorf("result %d has %d bytes for a buffer of %d", k, len(data), outNB[k])
			}
			if overlapsAny(data, lits) || overlapsOut(data, outs[:k]) {
				data = append([]byte(nil), data...)
			}
			kept = append(kept, outBufs[k].store(pool, data, dests[k]))
		}
		pool.giveBack(dests, kept)
		return nil
	})
}
