package native

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// arena recycles the byte buffers of dead values within a run and across
// runs of one program: a buffer released after its value's last use is
// handed to a later op asking for the same size. One run owns an arena at
// a time; the program keeps them between runs.
//
// A request takes a free buffer of its exact size when there is one, or
// else the smallest free one at most fitRatio times larger (for requests
// of at least minFitBytes), so that a network whose activations shrink
// layer by layer (a CNN) reuses its early, large buffers for later, smaller
// values instead of keeping one set of buffers per size.
type arena struct {
	mu    sync.Mutex // kernels may allocate from several goroutines
	free  map[int][][]byte
	taken map[int]int // buffers handed out per (whole) size in the current run
	// whole maps the first byte of a buffer handed out shortened (a
	// larger free buffer serving a smaller request) to the whole buffer,
	// which put restores.
	whole map[*byte]wholeBuf
	stats arenaStats
	// parked holds the buffers of dead values that live views (reshapes,
	// slices) still read, until the last of them dies. Only the running
	// frames touch it, one at a time, so it needs no lock.
	parked []parkedBuf
	leaves []*literal.Literal // runGroup's scratch (leafSlice)
}

// leafSlice returns a zeroed scratch slice of n literal pointers for one
// fusion group at a time (groups run one after another).
func (a *arena) leafSlice(n int) []*literal.Literal {
	if cap(a.leaves) < n {
		a.leaves = make([]*literal.Literal, n)
	}
	return a.leaves[:n]
}

// parkedBuf is a buffer waiting for the views of it in frame fr to die.
type parkedBuf struct {
	fr *frame
	b  []byte
}

// wholeBuf is a buffer handed out as its first n bytes.
type wholeBuf struct {
	b []byte
	n int
}

type arenaStats struct{ hits, fits, misses, inplace, released, unparked int }

// A larger free buffer serves a request of at least minFitBytes when it is
// at most fitRatio times the request: small values are not worth it, and a
// bound keeps a small value from pinning a much larger buffer that a later
// request of its own size would then have to allocate again.
const (
	minFitBytes = 64 << 10
	fitRatio    = 4
)

func newArena() *arena {
	return &arena{free: map[int][][]byte{}, taken: map[int]int{}, whole: map[*byte]wholeBuf{}}
}

// take returns a buffer of n bytes with arbitrary contents.
func (a *arena) take(n int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b := a.pop(n); b != nil {
		a.stats.hits++
		return b
	}
	if n >= minFitBytes {
		best := 0
		for c, l := range a.free {
			if len(l) > 0 && c > n && c/fitRatio <= n && (best == 0 || c < best) {
				best = c
			}
		}
		if best > 0 {
			b := a.pop(best)
			a.whole[unsafe.SliceData(b)] = wholeBuf{b, n}
			a.stats.fits++
			return b[:n:n]
		}
	}
	a.taken[n]++
	a.stats.misses++
	a.mu.Unlock()
	b := make([]byte, n)
	a.mu.Lock()
	return b
}

// pop takes a free buffer of exactly n bytes, or returns nil.
func (a *arena) pop(n int) []byte {
	l := a.free[n]
	if len(l) == 0 {
		return nil
	}
	b := l[len(l)-1]
	l[len(l)-1] = nil
	a.free[n] = l[:len(l)-1]
	a.taken[n]++
	return b
}

func (a *arena) put(b []byte) {
	if len(b) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if w, ok := a.whole[unsafe.SliceData(b)]; ok && len(b) == w.n {
		delete(a.whole, unsafe.SliceData(b))
		b = w.b
	}
	a.stats.released++
	a.free[len(b)] = append(a.free[len(b)], b)
}

// keepResults gives the arena back the whole buffers of results handed out
// shortened: each such result gets a copy of its bytes in a buffer of its
// own size, so that it does not pin the larger buffer, which the next run
// would otherwise have to allocate again. A result sharing bytes with
// another result keeps its buffer.
func (a *arena) keepResults(res []Value) {
	if len(a.whole) == 0 {
		return
	}
	var spans []span
	for _, v := range res {
		spans = valueSpans(spans, v)
	}
	var lits []*literal.Literal
	for _, v := range res {
		switch v := v.(type) {
		case *literal.Literal:
			lits = append(lits, v)
		case Tuple:
			lits = tupleLiterals(lits, v)
		}
	}
	for _, l := range lits {
		if l == nil || len(l.Data) == 0 {
			continue
		}
		w, ok := a.whole[unsafe.SliceData(l.Data)]
		if !ok || len(l.Data) != w.n {
			continue
		}
		ws, shared := spanOf(w.b), 0
		for _, s := range spans {
			if s.overlaps(ws) {
				shared++
			}
		}
		if shared != 1 {
			continue // another result (or this one twice) views its bytes
		}
		l.Data = append([]byte(nil), l.Data...)
		a.put(w.b[:w.n])
	}
}

// endRun keeps, per size, at most as many buffers as the run handed out,
// so buffers that kernels allocated and the plan released do not pile up.
func (a *arena) endRun() {
	for n, l := range a.free {
		keep := a.taken[n]
		if len(l) > keep {
			clear(l[keep:])
			l = l[:keep]
		}
		if len(l) == 0 {
			delete(a.free, n)
		} else {
			a.free[n] = l
		}
	}
	clear(a.taken)
	clear(a.whole)  // what is left went with the results
	clear(a.parked) // still viewed by results: they leave with them
	a.parked = a.parked[:0]
}

// arenaPool hands arenas to runs.
type arenaPool struct {
	mu   sync.Mutex
	idle []*arena
}

func (p *arenaPool) get() *arena {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		a := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return a
	}
	return newArena()
}

func (p *arenaPool) put(a *arena) {
	a.endRun()
	p.mu.Lock()
	p.idle = append(p.idle, a)
	p.mu.Unlock()
}

// span is the byte range of a buffer, for alias checks.
type span struct{ lo, hi uintptr }

func spanOf(b []byte) span {
	if len(b) == 0 {
		return span{}
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return span{p, p + uintptr(len(b))}
}

func (s span) overlaps(t span) bool {
	return s.lo < t.hi && t.lo < s.hi && s.lo != s.hi && t.lo != t.hi
}

// valueSpans appends the byte ranges of the tensors in v.
func valueSpans(dst []span, v Value) []span {
	switch v := v.(type) {
	case *literal.Literal:
		if v != nil && len(v.Data) > 0 {
			dst = append(dst, spanOf(v.Data))
		}
	case Tuple:
		for _, e := range v {
			dst = valueSpans(dst, e)
		}
	}
	return dst
}

// newResult allocates a zero-filled kernel result, as literal.New does,
// taking a recycled buffer from the running program's arena when there is
// one (a fresh page costs far more to touch than a cleared one).
func newResult(env Env, d dtype.DType, shape []int64) (*literal.Literal, error) {
	l, err := takeResult(env, d, shape)
	if err != nil {
		return nil, err
	}
	if fr, ok := env.(*frame); ok && fr.proc.arena != nil {
		clear(l.Data) // a recycled buffer (literal.New's is zero already)
	}
	return l, nil
}

// takeResult is newResult for kernels that overwrite every element: the
// recycled buffer is not cleared.
func takeResult(env Env, d dtype.DType, shape []int64) (*literal.Literal, error) {
	fr, ok := env.(*frame)
	if !ok || fr.proc.arena == nil {
		return literal.New(d, shape)
	}
	n, err := literal.NumElements(shape)
	if err != nil {
		return nil, err
	}
	if d.Size() == 0 {
		return nil, fmt.Errorf("literal of invalid dtype %v", d)
	}
	nb := n * int64(d.Size())
	if nb > literal.MaxBytes {
		return nil, fmt.Errorf("%v%v would take %d bytes, over the %d-byte limit per tensor (TORCHTPU_MAX_TENSOR_BYTES)", d, shape, nb, literal.MaxBytes)
	}
	b := fr.proc.arena.take(int(nb))
	return &literal.Literal{DType: d, Shape: append([]int64(nil), shape...), Data: b}, nil
}
