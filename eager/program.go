package eager

import (
	"context"
	"fmt"
	"time"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Program is a whole compiled graph (torch.compile's forward or backward,
// a runtime.Program behind the C ABI) that the device runs on its buffers
// as one task of its queue: the graph's inputs are the buffers' bytes,
// read in place, and its outputs become new buffers, with no copy to or
// from the caller's memory.
type Program interface {
	// Name labels the program's runs (errors, the profiler).
	Name() string
	// Outputs returns each output's dtype and shape when every output is a
	// tensor of static shape (nil elements for None outputs), else ok is
	// false: the shapes are known only once the program has run.
	Outputs() (outs []*OutputSpec, ok bool)
	// Run runs the program on input literals. Its results must not share
	// memory with anything but the inputs (the device copies those).
	Run(ctx context.Context, ins []*literal.Literal) ([]*literal.Literal, error)
}

// OutputSpec is the dtype and shape of a program output.
type OutputSpec struct {
	DType dtype.DType
	Shape []int64
}

// RunProgram runs prog on the items of words, one per program input in
// order (tagTensor: a device tensor read in place; tagHostTensor and
// tagScalar: CPU memory copied during the call), and writes the returns
// to out as Call does: per output [retNew handle dtype ndim sizes...] or
// [retNone]. It returns the number of words written.
//
// With static output shapes the run is queued like an op (the new
// buffers' handles are returned at once, and an error surfaces at the
// next synchronisation); otherwise the device runs everything queued
// before it and then the program, on the calling thread.
func (d *Device) RunProgram(ctx context.Context, prog Program, words []int64, out []int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	own := append([]int64(nil), words...) // views slice the words; queued runs outlive the call
	d.dec.w, d.dec.pos, d.dec.err, d.dec.vals = own, 0, nil, d.dec.vals[:0]
	var ins []input
	for d.dec.pos < len(own) && d.dec.err == nil {
		a := d.dec.item()
		if d.dec.err != nil {
			break
		}
		k := len(ins)
		switch a.tag {
		case tagTensor:
			if _, err := a.view.check(a.buf.nbytes); err != nil {
				return 0, fmt.Errorf("%s: input %d: %w", prog.Name(), k, err)
			}
			if err := d.flushIfTouched(a.buf, "compiled program"); err != nil {
				return 0, err
			}
			ins = append(ins, input{buf: a.buf, nb: a.buf.nbytes, view: a.view})
		case tagHostTensor:
			ins = append(ins, input{lit: a.lit})
		case tagScalar:
			l, err := scalarLiteral(&a, a.dt)
			if err != nil {
				return 0, fmt.Errorf("%s: input %d: %w", prog.Name(), k, err)
			}
			ins = append(ins, input{lit: l})
		default:
			return 0, fmt.Errorf("%s: input %d: a program input is a tensor, not an item of tag %d", prog.Name(), k, a.tag)
		}
	}
	if d.dec.err != nil {
		return 0, fmt.Errorf("%s: %w", prog.Name(), d.dec.err)
	}
	d.stats.Programs++
	if d.q.prof.on.Load() {
		d.q.prof.kinds.LoadOrStore(prog.Name(), KindProgram)
	}
	specs, static := prog.Outputs()
	if !static {
		return d.runProgramNow(ctx, prog, ins, out)
	}
	wr := writer{out: out}
	results := make([]*Buffer, len(specs))
	for k, s := range specs {
		if s == nil {
			wr.put(retNone)
			continue
		}
		m := outMeta{dt: s.DType, shape: s.Shape}
		results[k] = d.newResult(m)
		wr.tensor(d.host.Handle(results[k]), m)
	}
	if wr.err != nil {
		return 0, wr.err
	}
	run := &programRun{dev: d, prog: prog, ins: ins, results: results}
	if err := d.enqueueRun(prog.Name(), run, true); err != nil {
		return 0, err
	}
	for k := range ins {
		d.touched(ins[k].buf)
	}
	d.touched(results...)
	return wr.n, nil
}

// programRun is one queued run of a program.
type programRun struct {
	dev     *Device
	prog    Program
	ins     []input
	results []*Buffer // nil for a None output
}

func (r *programRun) Run() error {
	lits := make([]*literal.Literal, len(r.ins))
	for k := range r.ins {
		lits[k] = r.ins[k].literal()
	}
	start := time.Now()
	outs, err := r.prog.Run(context.Background(), lits)
	r.dev.runNanos.Add(int64(time.Since(start)))
	if err != nil {
		return err
	}
	if len(outs) != len(r.results) {
		return fmt.Errorf("the program returned %d outputs, want %d", len(outs), len(r.results))
	}
	for k, o := range outs {
		b := r.results[k]
		if b == nil {
			continue
		}
		if o == nil {
			return fmt.Errorf("output %d: the program returned None for a tensor", k)
		}
		if int64(len(o.Data)) != b.nbytes {
			return fmt.Errorf("output %d: %d bytes (%v%v) for a buffer of %d", k, len(o.Data), o.DType, o.Shape, b.nbytes)
		}
		b.data = ownData(o.Data, lits, outs[:k])
		b.pooled = false
	}
	return nil
}

// ownData returns data, or a copy of it when it shares memory with an
// input (a graph returning an input: the bytes are a buffer's) or an
// earlier output (a graph returning one value twice).
func ownData(data []byte, ins, earlier []*literal.Literal) []byte {
	if overlapsAny(data, ins) || overlapsOut(data, earlier) {
		return append([]byte(nil), data...)
	}
	return data
}

// runProgramNow runs a program whose output shapes depend on its inputs:
// after the queued work, on the calling thread. d.mu is held.
func (d *Device) runProgramNow(ctx context.Context, prog Program, ins []input, out []int64) (int, error) {
	if err := d.flush("compiled program"); err != nil {
		return 0, err
	}
	if err := d.q.sync(ctx); err != nil {
		return 0, err
	}
	lits := make([]*literal.Literal, len(ins))
	for k := range ins {
		lits[k] = ins[k].literal()
	}
	var outs []*literal.Literal
	err := d.q.timed(prog.Name(), func() error {
		start := time.Now()
		var err error
		outs, err = prog.Run(ctx, lits)
		d.runNanos.Add(int64(time.Since(start)))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", prog.Name(), err)
	}
	wr := writer{out: out}
	for k, o := range outs {
		if o == nil {
			wr.put(retNone)
			continue
		}
		b := d.alloc(int64(len(o.Data)))
		b.data = ownData(o.Data, lits, outs[:k])
		b.pooled = false
		wr.tensor(d.host.Handle(b), outMeta{dt: o.DType, shape: o.Shape})
	}
	return wr.n, wr.err
}
