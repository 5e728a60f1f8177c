package eager

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Status of Call, as the ABI returns it.
const (
	// StatusOK: the op is queued (or done); out holds its returns.
	StatusOK = 0
	// StatusMiss: the signature is new; the caller checks the call with
	// PyTorch's meta kernels (for PyTorch's own errors) and calls again
	// with FlagCompile.
	StatusMiss = 1
	// StatusDecline: the device cannot run this call; the message says
	// why and the caller runs the op its own way (CPU fallback) or fails.
	StatusDecline = 2
	// StatusResize: out holds [n, (arg, ndim, sizes...)×n]: out= arguments
	// to resize before calling again.
	StatusResize = 3
)

// Call flags.
const (
	// FlagCompile lets Call lower and compile a new signature.
	FlagCompile = 1
	// FlagExpect (with FlagCompile): out holds what PyTorch's meta kernel
	// returned, [n, (dtype ndim sizes...)×n] over the returned tensors; a
	// plan whose results differ is declined before anything runs.
	FlagExpect = 2
)

// Call runs op (a number from OpID) on the argument words. The returns are
// written to out as, per PyTorch return: [0] None, [1 handle dtype ndim
// sizes...] a new tensor (contiguous), [2 arg] the written argument arg,
// [3 n items...] a list of new tensors.
func (d *Device) Call(ctx context.Context, op int32, words []int64, flags int64, out []int64) (status int, msg string, n int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if op < 0 || int(op) >= len(d.ops) {
		return 0, "", 0, fmt.Errorf("op number %d was not interned", op)
	}
	o := d.ops[op]
	// The views of the call outlive it (queued runs): they slice a Go copy
	// of the words, taken once.
	var own []int64
	if d.fuse != nil {
		own = d.fuse.words(len(words)) // lives as long as the block
	} else {
		own = make([]int64, len(words))
	}
	copy(own, words)
	if f := d.fuse; f != nil && d.mode == Fused {
		if t := f.expect(op, words); t != nil {
			return d.replay(o, t, own, out)
		}
		// Not the expected call: it may not be recorded at all (a first
		// try that resizes an out= argument), so the replay goes on
		// until a recorded call departs from it (fusion.replayed).
	}
	args, err := d.dec.decode(op, own, d.args[:0])
	d.args = args
	if errors.Is(err, errDType) {
		// a dtype the engine does not compute with (complex32, ...): the
		// caller's fallback runs the op
		o.declined++
		return StatusDecline, err.Error(), 0, nil
	}
	if err != nil {
		return 0, "", 0, fmt.Errorf("%s: %w", o.name, err)
	}
	d.stats.Ops++
	p := d.plans[string(d.dec.key)]
	if p == nil {
		if o.entry == nil && o.gen != aten.UserGeneration() {
			o.reason = ""
			o.resolve() // a user registered ops since (torchtpu.register_stablehlo)
		}
		if o.entry == nil {
			o.declined++
			return StatusDecline, o.reason, 0, nil
		}
		if flags&FlagCompile == 0 {
			return StatusMiss, "", 0, nil
		}
		var want []outMeta
		if flags&FlagExpect != 0 {
			if want, err = readExpect(out); err != nil {
				return 0, "", 0, fmt.Errorf("%s: %w", o.name, err)
			}
		}
		d.stats.PlanMisses++
		p = d.build(ctx, o, args)
		if want != nil && p.decline == "" && len(p.resize) == 0 {
			p.decline = p.compare(args, want)
		}
		if p.decline != "" && o.entry != nil && o.entry.User {
			// a user's lowering that fails or disagrees with PyTorch's meta
			// is an error, not a reason to fall back
			return 0, "", 0, fmt.Errorf("%s: the lowering registered for it: %s", o.name, p.decline)
		}
		d.plans[string(d.dec.key)] = p
	} else {
		d.stats.PlanHits++
	}
	switch {
	case p.decline != "":
		o.declined++
		return StatusDecline, p.decline, 0, nil
	case len(p.resize) > 0:
		d.stats.Resizes++
		w := writer{out: out}
		w.put(int64(len(p.resize)))
		for _, r := range p.resize {
			w.put(int64(r.arg), int64(len(r.shape)))
			w.put(r.shape...)
		}
		return StatusResize, "", w.n, w.err
	case p.host:
		n, err := d.runHost(ctx, p, args, out)
		if errors.Is(err, errHostKernel) {
			// the host kernel cannot do this call (a case it does not
			// cover): the caller's fallback runs it
			o.declined++
			return StatusDecline, err.Error(), 0, nil
		}
		return StatusOK, "", n, err
	}
	if d.mode == Fused {
		d.noteCall(op, own, false)
	}
	n, err = d.launch(p, args, out)
	return StatusOK, "", n, err
}

// replay runs a call of a fused block that repeats recorded call t
// (replay.go): its arguments decoded without a key, t's plan. d.mu is
// held.
func (d *Device) replay(o *eagerOp, t *fusedCall, own []int64, out []int64) (int, string, int, error) {
	d.dec.nokey = true
	args, err := d.dec.decode(t.op, own, d.args[:0])
	d.dec.nokey = false
	d.args = args
	if err != nil {
		return 0, "", 0, fmt.Errorf("%s: %w", o.name, err)
	}
	d.stats.Ops++
	d.stats.PlanHits++
	d.stats.ReplayedOps++
	d.noteCall(t.op, own, true)
	n, err := d.launch(t.p, args, out)
	return StatusOK, "", n, err
}

// noteCall keeps the words of the call being recorded for its block's
// tape; matched: they are the expected call's (fusion.expect). d.mu is
// held.
func (d *Device) noteCall(op int32, own []int64, matched bool) {
	vals := cut(&d.fuse.valSlab, len(d.dec.vals), slabLen/4)
	copy(vals, d.dec.vals)
	d.call = callWords{op: op, words: own, vals: vals, matched: matched}
}

// readExpect reads the expected returns of FlagExpect.
func readExpect(w []int64) ([]outMeta, error) {
	r := decoder{w: w}
	n := r.count("expected returns")
	var out []outMeta
	for k := 0; k < n && r.err == nil; k++ {
		dt, err := dtype.OfScalarType(int32(r.word()))
		if err != nil {
			return nil, err
		}
		nd := r.count("rank")
		m := outMeta{dt: dt, shape: make([]int64, nd)}
		for i := range m.shape {
			m.shape[i] = r.word()
		}
		out = append(out, m)
	}
	return out, r.err
}

// compare checks the plan's returned tensors against PyTorch's meta
// results and returns why they differ ("" when they agree).
func (p *plan) compare(args []earg, want []outMeta) string {
	var got []outMeta
	for _, r := range p.rets {
		switch r.kind {
		case retNew:
			got = append(got, p.outs[r.res])
		case retAlias:
			v := &args[r.arg].view
			got = append(got, outMeta{dt: v.DType, shape: v.Shape})
		case retList:
			got = append(got, p.outs[r.res:r.res+r.n]...)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("the engine returns %d tensors, PyTorch %d", len(got), len(want))
	}
	for i := range got {
		if got[i].dt != want[i].dt || !sameShape(got[i].shape, want[i].shape) {
			return fmt.Sprintf("the engine's result %d is %s%v, PyTorch's %s%v", i,
				got[i].dt.Torch(), got[i].shape, want[i].dt.Torch(), want[i].shape)
		}
	}
	return ""
}

// errHostKernel marks the failure of a host kernel on a call PyTorch's
// meta check let through: the device declines it.
var errHostKernel = errors.New("host kernel")

// writer appends words to out, failing when it is full.
type writer struct {
	out []int64
	n   int
	err error
}

func (w *writer) put(vs ...int64) {
	if w.n+len(vs) > len(w.out) {
		if w.err == nil {
			w.err = fmt.Errorf("the returns need more than %d words", len(w.out))
		}
		return
	}
	copy(w.out[w.n:], vs)
	w.n += len(vs)
}

func (w *writer) tensor(h uint64, m outMeta) {
	code, err := m.dt.ScalarType()
	if err != nil && w.err == nil {
		w.err = err
	}
	w.put(retNew, int64(h), int64(code), int64(len(m.shape)))
	w.put(m.shape...)
}

// input is one module argument of a queued run.
type input struct {
	buf  *Buffer
	nb   int64
	view View
	lit  *literal.Literal
}

// launch makes the output buffers, writes the returns and queues the run.
// d.mu is held.
func (d *Device) launch(p *plan, args []earg, out []int64) (int, error) {
	r := newOpRun(len(p.params), len(p.outs))
	for k, m := range p.outs {
		n := int64(m.dt.Size())
		for _, e := range m.shape {
			n *= e
		}
		r.outNB[k] = n
	}
	for k, pr := range p.params {
		a := at(args, pr.arg, pr.item)
		switch a.tag {
		case tagTensor:
			r.ins[k] = input{buf: a.buf, nb: a.buf.nbytes, view: a.view}
			if _, err := a.view.check(a.buf.nbytes); err != nil {
				return 0, fmt.Errorf("%s: argument %d: %w", p.op.name, pr.arg, err)
			}
		case tagHostTensor:
			r.ins[k] = input{lit: a.lit}
		case tagScalar:
			l, err := scalarLiteral(a, pr.dt)
			if err != nil {
				return 0, err
			}
			r.ins[k] = input{lit: l}
		}
	}
	for _, w := range p.writes {
		a := at(args, w.arg, w.item)
		if _, err := a.view.check(a.buf.nbytes); err != nil {
			return 0, fmt.Errorf("%s: argument %s: %w", p.op.name, p.op.schema.Params[w.arg].Name, err)
		}
		r.targets[w.res] = input{buf: a.buf, nb: a.buf.nbytes, view: a.view}
	}
	wr := writer{out: out}
	for _, rs := range p.rets {
		switch rs.kind {
		case retNone:
			wr.put(retNone)
		case retAlias:
			wr.put(retAlias, int64(rs.arg))
		case retNew:
			r.results[rs.res] = d.newResult(p.outs[rs.res])
			wr.tensor(d.host.Handle(r.results[rs.res]), p.outs[rs.res])
		case retList:
			wr.put(retList, int64(rs.n))
			for k := rs.res; k < rs.res+rs.n; k++ {
				r.results[k] = d.newResult(p.outs[k])
				wr.tensor(d.host.Handle(r.results[k]), p.outs[k])
			}
		}
	}
	if wr.err != nil {
		return 0, wr.err
	}
	if d.mode == Fused {
		if d.record(p, args, r.results, r.targets) {
			r.free() // the block holds the buffers and views it needs
			if len(d.fuse.calls) >= d.maxOps {
				return wr.n, d.flush("size bound")
			}
			return wr.n, nil
		}
		// A call a block cannot hold runs on its own, after the block.
		if err := d.flush("unfusable " + p.op.name); err != nil {
			return 0, err
		}
	}
	if p.exe == nil {
		if err := p.compile(context.Background(), d, nil, nil); err != nil {
			return 0, fmt.Errorf("%s: %w", p.op.name, err)
		}
	}
	r.exe, r.dev = p.exe, d
	if err := r.takeTransposed(p); err != nil {
		return 0, fmt.Errorf("%s: %w", p.op.name, err)
	}
	// the buffers the run touches, noted before it is queued (a run may
	// finish, and r be reused, before enqueueRun returns)
	var touchA [8]*Buffer
	touch := touchA[:0]
	for k := range r.ins {
		if b := r.ins[k].buf; b != nil {
			touch = append(touch, b)
		}
	}
	for k := range r.results {
		if b := r.results[k]; b != nil {
			touch = append(touch, b)
		}
	}
	for k := range r.targets {
		if b := r.targets[k].buf; b != nil {
			touch = append(touch, b)
		}
	}
	if err := d.enqueueRun(p.op.name, r, false); err != nil {
		return 0, err
	}
	d.touched(touch...)
	return wr.n, nil
}

// newResult allocates the buffer of a new contiguous result.
func (d *Device) newResult(m outMeta) *Buffer {
	n := int64(m.dt.Size())
	for _, s := range m.shape {
		n *= s
	}
	return d.alloc(n)
}

// literal returns the argument's value for a run: the buffer's bytes in
// place when the view is the whole buffer, else a gathered copy.
func (in *input) literal() *literal.Literal { return in.literalInto(nil) }

// literalInto is literal, using hdr (when not nil) for the header of a
// value read in place.
func (in *input) literalInto(hdr *literal.Literal) *literal.Literal {
	if in.lit != nil {
		return in.lit
	}
	v := &in.view
	if v.whole(in.nb) {
		if hdr == nil {
			hdr = &literal.Literal{}
		}
		*hdr = literal.Literal{DType: v.DType, Shape: v.Shape, Data: in.buf.bytes(in.nb)[:in.nb]}
		return hdr
	}
	l := &literal.Literal{DType: v.DType, Shape: v.Shape, Data: make([]byte, v.numel()*int64(v.DType.Size()))}
	gatherView(l.Data, in.buf.bytes(in.nb), v)
	return l
}

// scalarLiteral materialises a CPU scalar as a 0-d literal of dt.
func scalarLiteral(a *earg, dt dtype.DType) (*literal.Literal, error) {
	l, err := literal.New(dt, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case dt.IsComplex():
		c := a.c
		if !a.dt.IsComplex() {
			c = complex(a.real(), 0)
		}
		l.SetComplex128(0, c)
	case dt.IsFloat():
		l.SetFloat64(0, a.real())
	case a.dt.IsFloat() || a.dt.IsComplex():
		l.SetInt64(0, int64(a.real()))
	default:
		l.SetInt64(0, a.i)
	}
	return l, nil
}

// real returns a CPU scalar's value as a float64 (a complex's real part).
func (a *earg) real() float64 {
	switch {
	case a.dt.IsComplex():
		return real(a.c)
	case a.dt.IsFloat():
		return a.f
	}
	return float64(a.i)
}

func overlapsAny(b []byte, lits []*literal.Literal) bool {
	for _, l := range lits {
		if l != nil && overlap(b, l.Data) {
			return true
		}
	}
	return false
}

func overlapsOut(b []byte, outs []*literal.Literal) bool { return overlapsAny(b, outs) }

func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}

// runHost runs a host kernel (an op whose output shapes depend on the
// data): it waits for the queue, runs on host literals and makes buffers
// of the results. d.mu is held.
func (d *Device) runHost(ctx context.Context, p *plan, args []earg, out []int64) (int, error) {
	if err := d.flush("host kernel " + p.op.name); err != nil {
		return 0, err
	}
	if err := d.q.sync(ctx); err != nil {
		return 0, err
	}
	d.stats.HostKernels++
	op := p.op
	param := func(arg, item int) aten.Value {
		a := at(args, arg, item)
		switch a.tag {
		case tagTensor:
			in := input{buf: a.buf, nb: a.buf.nbytes, view: a.view}
			return aten.LiteralValue(in.literal())
		case tagHostTensor:
			return aten.LiteralValue(a.lit)
		case tagScalar:
			l, _ := scalarLiteral(a, a.dt)
			return aten.LiteralValue(l)
		}
		return aten.None()
	}
	kw := map[string]aten.Value{}
	for i := range args {
		if name := op.bindName[i]; name != "" {
			kw[name] = value(&args[i], i, param)
		}
	}
	bound, err := aten.Bind(op.entry.ParsedSchema(), nil, kw)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op.name, err)
	}
	res, err := op.entry.Host(&aten.HostCtx{Context: ctx}, bound)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", errHostKernel, op.name, err)
	}
	wr := writer{out: out}
	newTensor := func(v aten.Value) {
		if v.Kind != aten.KTensor || v.Lit == nil {
			wr.put(retNone)
			return
		}
		b := d.alloc(int64(len(v.Lit.Data)))
		b.data = append([]byte(nil), v.Lit.Data...)
		b.pooled = false
		wr.tensor(d.host.Handle(b), outMeta{dt: v.Lit.DType, shape: v.Lit.Shape})
	}
	for j := range op.schema.Returns {
		if j >= len(res) {
			return 0, fmt.Errorf("%s: the host kernel returned %d values", op.name, len(res))
		}
		if res[j].Kind == aten.KList {
			wr.put(retList, int64(len(res[j].List)))
			for _, it := range res[j].List {
				newTensor(it)
			}
			continue
		}
		newTensor(res[j])
	}
	return wr.n, wr.err
}
