package runtime

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
)

// Weights on the device. A program uploads each parameter, buffer and
// tensor constant the first time a segment reads it and keeps the buffer
// for the next runs. A mutated buffer (batch-norm running statistics, an
// in-place op on a parameter) is replaced on the device by the run's
// result, donated in place where the device allows it; Program.Weights
// then holds the value from before the run until SyncWeights reads the
// device values back (on the native backend the device buffer is the
// literal, and Weights is always current). Assigning a new literal to
// Program.Weights[fqn] is noticed by the next run, which uploads it;
// modifying a weight literal's data in place is not: call ResetDevice
// after doing so.

type residentWeight struct {
	buf backend.Buffer
	// from is the Weights literal the buffer stands for: the one uploaded,
	// or, once a run mutated the weight on the device (stale), the literal
	// Weights held then (older than the device value).
	from  *literal.Literal
	stale bool
}

type residency struct {
	mu sync.Mutex
	w  map[string]*residentWeight
}

// weightBuffer returns weight fqn on the device, uploading it when the
// program has no current device copy.
func (p *Program) weightBuffer(io *deviceIO, fqn string) (backend.Buffer, error) {
	lit, ok := p.Weights[fqn]
	if !ok {
		return nil, fmt.Errorf("weight %q is missing", fqn)
	}
	p.res.mu.Lock()
	defer p.res.mu.Unlock()
	if p.res.w == nil {
		p.res.w = map[string]*residentWeight{}
	}
	rw := p.res.w[fqn]
	if rw != nil && rw.from == lit {
		if rw.stale || rw.buf.Await(io.ctx) == nil {
			return rw.buf, nil
		}
		// Donated to a run that failed, or released: upload again.
	}
	buf, err := io.upload(lit)
	if err != nil {
		return nil, fmt.Errorf("weight %s: %w", fqn, err)
	}
	if rw != nil {
		rw.buf.Release()
	}
	p.res.w[fqn] = &residentWeight{buf: buf, from: lit}
	return buf, nil
}

// setWeight records a run's new value of weight fqn: a device buffer
// (kept as the resident copy; on a host backend its literal goes to
// Weights) or a host literal.
func (p *Program) setWeight(io *deviceIO, fqn string, lit *literal.Literal) {
	buf, onDevice := io.dev[lit]
	if onDevice && io.kept[buf] {
		onDevice = false // also a user output the caller owns
	}
	p.res.mu.Lock()
	defer p.res.mu.Unlock()
	if p.res.w == nil {
		p.res.w = map[string]*residentWeight{}
	}
	old := p.res.w[fqn]
	if old != nil && old.buf != buf {
		old.buf.Release()
	}
	if !onDevice {
		delete(p.res.w, fqn)
		if io.pending[lit] {
			_ = io.host(lit) // an error here reached the caller through the outputs or await
		}
		p.Weights[fqn] = lit
		return
	}
	io.keep(buf)
	if hb, ok := buf.(*backend.HostBuffer); ok {
		l := hb.Literal()
		p.Weights[fqn] = l
		p.res.w[fqn] = &residentWeight{buf: buf, from: l}
		return
	}
	p.res.w[fqn] = &residentWeight{buf: buf, from: p.Weights[fqn], stale: true}
}

// SyncWeights reads back the weights that runs changed on the device,
// so that Program.Weights holds their current values.
func (p *Program) SyncWeights(ctx context.Context) error {
	p.res.mu.Lock()
	defer p.res.mu.Unlock()
	names := make([]string, 0, len(p.res.w))
	for fqn, rw := range p.res.w {
		if rw.stale {
			names = append(names, fqn)
		}
	}
	sort.Strings(names)
	for _, fqn := range names {
		rw := p.res.w[fqn]
		l, err := rw.buf.ToHost(ctx)
		if err != nil {
			return fmt.Errorf("weight %s: %w", fqn, err)
		}
		p.Weights[fqn] = l
		rw.from, rw.stale = l, false
		p.state().metrics.moved(0, int64(len(l.Data)))
	}
	return nil
}

// ResetDevice releases the program's device copies of its weights (after
// reading back the ones runs changed); the next run uploads them again.
func (p *Program) ResetDevice(ctx context.Context) error {
	if err := p.SyncWeights(ctx); err != nil {
		return err
	}
	p.res.mu.Lock()
	defer p.res.mu.Unlock()
	for _, rw := range p.res.w {
		rw.buf.Release()
	}
	p.res.w = nil
	return nil
}

// ResidentBytes is the size of the weights the program holds on its
// device (0 on a host backend, whose buffers are the weights).
func (p *Program) ResidentBytes() int64 {
	p.res.mu.Lock()
	defer p.res.mu.Unlock()
	var n int64
	for _, rw := range p.res.w {
		if backend.IsHost(rw.buf) {
			continue
		}
		size := int64(rw.buf.DType().Size())
		for _, d := range rw.buf.Shape() {
			size *= d
		}
		n += size
	}
	return n
}

// weightLiteral is weight fqn as a run starts: Weights[fqn], or, when a
// run changed it on the device since, a shell standing for the resident
// buffer (read back only if the host needs it).
func (p *Program) weightLiteral(io *deviceIO, fqn string) *literal.Literal {
	lit := p.Weights[fqn]
	p.res.mu.Lock()
	rw := p.res.w[fqn]
	p.res.mu.Unlock()
	if rw == nil || !rw.stale || rw.from != lit {
		return lit
	}
	shell := &literal.Literal{DType: rw.buf.DType(), Shape: rw.buf.Shape()}
	io.setDev(shell, rw.buf, true)
	return shell
}

// weightHost returns weight fqn's current value on the host, reading it
// back from the device when a run changed it there.
func (p *Program) weightHost(io *deviceIO, fqn string) (*literal.Literal, error) {
	lit, ok := p.Weights[fqn]
	if !ok {
		return nil, fmt.Errorf("weight %q is missing", fqn)
	}
	p.res.mu.Lock()
	defer p.res.mu.Unlock()
	rw := p.res.w[fqn]
	if rw == nil || !rw.stale || rw.from != lit {
		return lit, nil
	}
	l, err := io.download(rw.buf)
	if err != nil {
		return nil, fmt.Errorf("weight %s: %w", fqn, err)
	}
	p.Weights[fqn] = l
	rw.from, rw.stale = l, false
	return l, nil
}
