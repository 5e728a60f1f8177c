package eager

import "sync"

// bytePool is memory the device recycles between results: a run (a
// single op's large results, every result of a fused block) computes a
// result into a slice of the pool (backend.WithResultBuffers) rather than
// into fresh memory, which Go clears before use and collects after. A
// slice goes back to the pool when a later run replaces it in its buffer
// (an in-place update: a parameter, an optimizer's state; the run that
// read it last is over), when its buffer is freed and the last task that
// touched it is done (release, reclaim), or when a run did not use it.
// Only slices the pool made ever enter it (a buffer's pooled flag says
// its bytes are one), each in one place at a time: a buffer or the pool.
type bytePool struct {
	mu    sync.Mutex
	free  map[int64][][]byte
	bytes int64 // held in free
	// reused counts the results computed into a slice taken back
	reused int64
	// released holds freed buffers until the last task that touched
	// each is done
	released []releasedBuf
}

// releasedBuf is a freed buffer whose bytes are reclaimed once task
// number after (the last that read or wrote it) is done.
type releasedBuf struct {
	after uint64
	b     *Buffer
}

const (
	// poolMinBytes: smaller results of single ops are left to the
	// executable (a fused block's take the pool whatever their size)
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

// recycled returns how many results were computed into a slice taken
// back.
func (p *bytePool) recycled() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reused
}

// put takes b back (nothing else may refer to it), unless the pool is
// full; an empty slice is ignored.
func (p *bytePool) put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.putLocked(b)
}

// pending reports whether released buffers wait for their last task.
func (p *bytePool) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.released) > 0
}

// putLocked is put with p.mu held.
func (p *bytePool) putLocked(b []byte) {
	n := int64(len(b))
	if n == 0 {
		return
	}
	if p.bytes+n > poolMaxBytes {
		return
	}
	if p.free == nil {
		p.free = map[int64][][]byte{}
	}
	p.free[n] = append(p.free[n], b)
	p.bytes += n
}

// release notes freed buffer b, last touched by task number after: its
// bytes are reclaimed once that task is done. Nothing may queue a task on
// b from now on.
func (p *bytePool) release(b *Buffer, after uint64) {
	p.mu.Lock()
	p.released = append(p.released, releasedBuf{after, b})
	p.mu.Unlock()
}

// reclaim takes back the bytes of the released buffers whose last task is
// done (done is the number of the last task finished: every task up to it
// is over, and its writes are seen here); bytes the pool did not make are
// left to the collector, and buffers whose last task is still queued wait.
func (p *bytePool) reclaim(done uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.released[:0]
	for _, r := range p.released {
		if r.after > done {
			keep = append(keep, r)
			continue
		}
		if r.b.pooled {
			p.putLocked(r.b.data)
		}
		r.b.data, r.b.pooled = nil, false
	}
	clear(p.released[len(keep):])
	p.released = keep
}

// take sets dests[k] to a slice of the pool for each result of nb[k]
// bytes from min up (nil for the others), and reports whether it took any.
// Released buffers whose last task on q is done come back first.
func (p *bytePool) take(dests [][]byte, nb []int64, min int64, q *queue) bool {
	if p.pending() {
		p.reclaim(q.finished())
	}
	any := false
	for k, n := range nb {
		dests[k] = nil
		if n > 0 && n >= min {
			dests[k] = p.get(n)
			any = true
		}
	}
	return any
}

// giveBack returns the slices of dests that no buffer kept (a run left
// them unused, or scattered them into a view) after the run stored kept.
func (p *bytePool) giveBack(dests, kept [][]byte) {
	for _, b := range dests {
		if b != nil && !overlapsSlices(b, kept) {
			p.put(b)
		}
	}
}

// overlapsSlices reports whether b shares memory with any of bs.
func overlapsSlices(b []byte, bs [][]byte) bool {
	for _, x := range bs {
		if overlap(b, x) {
			return true
		}
	}
	return false
}

// store makes data, a run's result, the buffer's bytes; dest is the pool
// memory the run was given for it (nil: none). Bytes of the pool the
// buffer held go back to it: the run replacing them read them last. It
// returns data.
func (b *Buffer) store(p *bytePool, data, dest []byte) []byte {
	if b.pooled {
		p.put(b.data)
	}
	b.data, b.pooled = data, sameSlice(data, dest)
	return data
}

// sameSlice reports whether a and b are the same non-empty memory.
func sameSlice(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}
