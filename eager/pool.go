package eager

import "sync"

// bytePool is memory the device recycles between the large results of
// single ops: a run computes such a result into a slice of the pool
// (backend.WithResultBuffers) rather than into fresh memory, which Go
// clears before use and collects after. A slice goes back to the pool
// when a later run replaces it in its buffer (an in-place update: the run
// that read it last is over) or when a run did not use it. Only slices
// the pool made ever enter it (a buffer's pooled flag says its bytes are
// one), each in one place at a time: a buffer or the pool.
type bytePool struct {
	mu    sync.Mutex
	free  map[int64][][]byte
	bytes int64 // held in free
	// reused counts the results computed into a slice taken back
	reused int64
}

const (
	// poolMinBytes: smaller results are left to the executable
	poolMinBytes = 64 << 10
	// poolMaxBytes bounds the memory the pool holds (the device's
	// memory count does not see it)
	poolMaxBytes = 64 << 20
)

// get returns a slice of n bytes with arbitrary contents.
func (p *bytePool) get(n int64) []byte {
	p.mu.Lock()
	if l := p.free[n]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[n] = l[:len(l)-1]
		p.bytes -= n
		p.reused++
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	return make([]byte, n)
}

// put takes b back (nothing else may refer to it), unless the pool is
// full; nil is ignored.
func (p *bytePool) put(b []byte) {
	n := int64(len(b))
	if n < poolMinBytes {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+n > poolMaxBytes {
		return
	}
	if p.free == nil {
		p.free = map[int64][][]byte{}
	}
	p.free[n] = append(p.free[n], b)
	p.bytes += n
}
