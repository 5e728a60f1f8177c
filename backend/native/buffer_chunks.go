package native

import "unsafe"

// Buffers of at least minChunkBytes are carved out of chunks: a request
// takes the smallest free segment of any chunk that holds it (a chunk of
// its own when none does), and a released buffer's segment merges with its
// free neighbours. So a network whose activations shrink layer by layer (a
// CNN) serves its later, smaller values from the bytes of its early, large
// ones instead of keeping a set of buffers per size: resnet18 at batch 1
// keeps 3.8 MB (its first conv's output and the pooled copy of it) where a
// buffer per size kept 7.4 MB. Smaller buffers are recycled by exact size.
const (
	minChunkBytes = 64 << 10
	chunkAlign    = 64 // segment offsets and lengths
)

// chunk is one allocation that buffers are carved from.
type chunk struct {
	b       []byte
	free    []seg // free segments by offset, never adjacent
	used    int   // pieces handed out and not released
	touched bool  // a piece was handed out in the current run
}

// seg is a byte range [off, off+n) of a chunk.
type seg struct{ off, n int }

// piece is a buffer handed out of a chunk: the bytes [off, off+n) of it, n
// the reserved (aligned) length; want is the length asked for.
type piece struct {
	c      *chunk
	off, n int
	want   int
}

// takeChunk returns want bytes carved from the best-fitting free segment,
// or from a new chunk.
func (a *arena) takeChunk(want int) []byte {
	n := (want + chunkAlign - 1) / chunkAlign * chunkAlign
	var best *chunk
	bi := -1
	for _, c := range a.chunks {
		for i, s := range c.free {
			if s.n >= n && (best == nil || s.n < best.free[bi].n) {
				best, bi = c, i
			}
		}
	}
	if best == nil {
		a.stats.misses++
		a.mu.Unlock()
		b := make([]byte, n)
		a.mu.Lock()
		best = &chunk{b: b, free: []seg{{0, n}}}
		a.chunks = append(a.chunks, best)
		bi = 0
	} else if best.free[bi].n == len(best.b) && n == len(best.b) {
		a.stats.hits++
	} else {
		a.stats.fits++
	}
	s := &best.free[bi]
	off := s.off
	s.off += n
	s.n -= n
	if s.n == 0 {
		best.free = append(best.free[:bi], best.free[bi+1:]...)
	}
	best.used++
	best.touched = true
	b := best.b[off : off+want : off+want]
	a.pieces[unsafe.SliceData(b)] = piece{best, off, n, want}
	return b
}

// putChunk gives back a buffer takeChunk handed out; it reports false
// for any other buffer.
func (a *arena) putChunk(b []byte) bool {
	p, ok := a.pieces[unsafe.SliceData(b)]
	if !ok || len(b) != p.want {
		return false
	}
	delete(a.pieces, unsafe.SliceData(b))
	p.c.release(p.off, p.n)
	return true
}

// adopt makes a buffer the arena did not hand out (a kernel's own,
// released with its value) a free chunk.
func (a *arena) adopt(b []byte) {
	a.chunks = append(a.chunks, &chunk{b: b[:len(b):len(b)], free: []seg{{0, len(b)}}})
}

// chunkOf returns the chunk holding the bytes s, or nil.
func (a *arena) chunkOf(s span) *chunk {
	for _, c := range a.chunks {
		if cs := spanOf(c.b); cs.lo <= s.lo && s.hi <= cs.hi {
			return c
		}
	}
	return nil
}

// dropChunk lets a chunk go, with the pieces handed out of it.
func (a *arena) dropChunk(c *chunk) {
	for k, p := range a.pieces {
		if p.c == c {
			delete(a.pieces, k)
		}
	}
	for i, d := range a.chunks {
		if d == c {
			a.chunks = append(a.chunks[:i], a.chunks[i+1:]...)
			break
		}
	}
}

// release frees [off, off+n), merging it with free neighbours.
func (c *chunk) release(off, n int) {
	c.used--
	i := 0
	for i < len(c.free) && c.free[i].off < off {
		i++
	}
	// Merge with the segment before and the one after.
	if i > 0 && c.free[i-1].off+c.free[i-1].n == off {
		c.free[i-1].n += n
		if i < len(c.free) && off+n == c.free[i].off {
			c.free[i-1].n += c.free[i].n
			c.free = append(c.free[:i], c.free[i+1:]...)
		}
		return
	}
	if i < len(c.free) && off+n == c.free[i].off {
		c.free[i].off, c.free[i].n = off, c.free[i].n+n
		return
	}
	c.free = append(c.free, seg{})
	copy(c.free[i+1:], c.free[i:])
	c.free[i] = seg{off, n}
}

// endRunChunks keeps the chunks the run carved from that are wholly free
// again. A chunk the run did not use goes; so does one with pieces still
// out, which left with the results: they keep it alive as long as they
// live.
func (a *arena) endRunChunks() {
	keep := a.chunks[:0]
	for _, c := range a.chunks {
		if c.touched && c.used == 0 {
			c.touched = false
			keep = append(keep, c)
		}
	}
	clear(a.chunks[len(keep):])
	a.chunks = keep
	clear(a.pieces)
}
