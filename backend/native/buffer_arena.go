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
// handed to a later op. Buffers under minChunkBytes are recycled by exact
// size; larger ones are carved out of chunks (buffer_chunks.go). One run
// owns an arena at a time; the program keeps them between runs.
type arena struct {
	mu    sync.Mutex // kernels may allocate from several goroutines
	free  map[int][][]byte
	taken map[int]int // small requests per size in the current run
	// chunks hold the large buffers; pieces maps the first byte of each
	// buffer handed out of them to where it lies.
	chunks []*chunk
	pieces map[*byte]piece
	stats  arenaStats
	// parked holds the buffers of dead values that live views (reshapes,
	// slices) still read, until the last of them dies. Only the running
	// frames touch it, one at a time, so it needs no lock.
	parked []parkedBuf
	leaves []*literal.Literal // runGroup's scratch (leafSlice)
	views  [][]float32        // convEpiFast's scratch (viewSlice32)
	// fresh makes take allocate large buffers on their own, outside the
	// chunks: for the steps defining results (execStep.retOut).
	fresh bool
	// pm is the buffer of the entry function's memory plan
	// (exec_memplan.go), kept between runs.
	pm *plannedMem
	// dests is the caller's memory for the entry function's results
	// (backend.ResultBuffers), by result index, for one run; dest holds
	// those the running step may take for its values (execStep.retDsts),
	// and lent the first bytes of those taken: they leave with the
	// results and are never recycled.
	dests [][]byte
	dest  []destBuf
	lent  []*byte
}

// leafSlice returns a zeroed scratch slice of n literal pointers for one
// fusion group at a time (groups run one after another).
func (a *arena) leafSlice(n int) []*literal.Literal {
	if cap(a.leaves) < n {
		a.leaves = make([]*literal.Literal, n)
	}
	return a.leaves[:n]
}

// viewSlice32 returns a scratch slice of n float32 views for one step,
// as leafSlice; the caller clears it when done.
func (a *arena) viewSlice32(n int) [][]float32 {
	if cap(a.views) < n {
		a.views = make([][]float32, n)
	}
	return a.views[:n]
}

// parkedBuf is a buffer waiting for the views of it in frame fr to die.
type parkedBuf struct {
	fr *frame
	b  []byte
}

type arenaStats struct{ hits, fits, misses, inplace, released, unparked, fresh, lent int }

func newArena() *arena {
	return &arena{free: map[int][][]byte{}, taken: map[int]int{}, pieces: map[*byte]piece{}}
}

// destBuf is the caller's memory for the result of a value (its slot).
type destBuf struct {
	slot int
	b    []byte
}

// stepDests offers the running step the caller's memory of the results
// it computes: a take for the value's slot (takeSlot) gets its own; a
// take of a size one of them has (take, from kernels that do not say
// which value they allocate for) gets it, unless two have that size.
func (a *arena) stepDests(rets []retDest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range rets {
		if r.res < len(a.dests) && len(a.dests[r.res]) > 0 {
			a.dest = append(a.dest, destBuf{r.slot, a.dests[r.res]})
		}
	}
}

// lend hands out dest i.
func (a *arena) lend(i int) []byte {
	b := a.dest[i].b
	a.dest = append(a.dest[:i], a.dest[i+1:]...)
	a.lent = append(a.lent, &b[0])
	a.stats.lent++
	return b
}

// lendSlot returns the caller's memory for slot's value when the running
// step was given it and it is n bytes, else nil.
func (a *arena) lendSlot(slot, n int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, d := range a.dest {
		if d.slot == slot && len(d.b) == n {
			return a.lend(i)
		}
	}
	return nil
}

// takeSlot returns the caller's memory for slot's value when the running
// step was given it and it is n bytes (lendSlot), else a buffer as take's
// that is no other result's memory (a stage of a row pipeline before the
// one computing that result, of the same size).
func (a *arena) takeSlot(slot, n int) []byte {
	if b := a.lendSlot(slot, n); b != nil {
		return b
	}
	return a.takeBuf(n)
}

// take returns a buffer of n bytes with arbitrary contents: the caller's
// memory of a result of the running step of that size, if it has one
// (and no other of that size), else takeBuf's.
func (a *arena) take(n int) []byte {
	a.mu.Lock()
	match := -1
	for i, d := range a.dest {
		if n > 0 && len(d.b) == n {
			if match >= 0 {
				match = -1 // two of this size: neither
				break
			}
			match = i
		}
	}
	if match >= 0 {
		b := a.lend(match)
		a.mu.Unlock()
		return b
	}
	a.mu.Unlock()
	return a.takeBuf(n)
}

// takeBuf returns a buffer of n bytes with arbitrary contents from the
// arena (or new, for a result the run keeps).
func (a *arena) takeBuf(n int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n >= minChunkBytes {
		if a.fresh {
			a.stats.fresh++
			a.mu.Unlock()
			b := make([]byte, n)
			a.mu.Lock()
			return b
		}
		return a.takeChunk(n)
	}
	a.taken[n]++
	if l := a.free[n]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		a.free[n] = l[:len(l)-1]
		a.stats.hits++
		return b
	}
	a.stats.misses++
	a.mu.Unlock()
	b := make([]byte, n)
	a.mu.Lock()
	return b
}

func (a *arena) put(b []byte) {
	if len(b) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.lent {
		if p == &b[0] {
			return // the caller's memory (a scratch buffer of a result's step)
		}
	}
	a.stats.released++
	switch {
	case a.putChunk(b):
	case len(b) >= minChunkBytes:
		a.adopt(b)
	default:
		a.free[len(b)] = append(a.free[len(b)], b)
	}
}

// keepResults moves the results of a run out of the arena's chunks, which
// the next run reuses. Where one value was a whole chunk, the results
// viewing it keep that chunk and the arena lets it go; results in any
// other chunk (pieces of it, or views of a piece whose value died) get
// copies of their bytes. Nothing outside the arena then holds the bytes of
// its chunks, and every piece still out goes back.
func (a *arena) keepResults(res []Value) {
	if len(a.pieces) == 0 {
		return
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
	copied := map[*literal.Literal]bool{}
	for _, l := range lits {
		if l == nil || len(l.Data) == 0 || copied[l] {
			continue
		}
		c := a.chunkOf(spanOf(l.Data))
		if c == nil {
			continue
		}
		if c.used == 1 && len(c.free) == 0 {
			a.dropChunk(c) // one value's, whole: the results keep it
			continue
		}
		l.Data = append([]byte(nil), l.Data...)
		copied[l] = true
	}
	for k, p := range a.pieces {
		p.c.release(p.off, p.n)
		delete(a.pieces, k)
	}
}

// endRun keeps, per size, at most as many small buffers as the run asked
// for, and the chunks it used, so buffers that kernels allocated and the
// plan released do not pile up.
func (a *arena) endRun() {
	a.fresh = false
	a.dests, a.dest = nil, a.dest[:0]
	clear(a.lent)
	a.lent = a.lent[:0]
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
	a.endRunChunks()
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
	return takeResultFor(env, -1, d, shape)
}

// takeResultFor is takeResult for the value of slot (-1: a kernel's
// result, slot unknown): the caller's memory of that value's result, if
// the step was given it, never another's.
func takeResultFor(env Env, slot int, d dtype.DType, shape []int64) (*literal.Literal, error) {
	fr, ok := env.(*frame)
	if !ok || fr.proc.arena == nil {
		return literal.New(d, shape)
	}
	if l := fr.claimPlanned(d, shape); l != nil {
		return l, nil // the result's place in the memory plan
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
	var b []byte
	if slot >= 0 {
		b = fr.proc.arena.takeSlot(slot, int(nb))
	} else {
		b = fr.proc.arena.take(int(nb))
	}
	return literal.Wrap(d, shape, b), nil
}
