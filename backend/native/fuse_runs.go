package native

// Walking the chunks of a fused loop without divisions: a worker's chunks
// are contiguous and increasing, so the next period boundary and, for each
// broadcast leaf (inner collapsed stride 0), the run it is in and that
// run's element offset advance by steps. Divisions (tens of cycles each)
// are left for a worker's first chunk and for jumps.

// chunker cuts chunks at multiples of a group's period.
type chunker struct {
	p, next int
	max     int // the longest chunk (fusedGroup.chunkLen)
}

func newChunker(g *fusedGroup, c int) chunker {
	k := chunker{p: g.period, max: g.chunkLen()}
	if k.p > 0 {
		k.next = (c/k.p + 1) * k.p
	}
	return k
}

// len returns the length m of the chunk at c (not below the chunk
// before), at most k.max and ending by end, and the length seg of its
// segments: runs of the period when it holds several whole ones (then
// broadcast leaves are uniform per segment), else the chunk, which ends by
// the next multiple of the period.
func (k *chunker) len(c, end int) (m, seg int) {
	m = min(k.max, end-c)
	if k.p == 0 {
		return m, m
	}
	if c >= k.next {
		k.next = (c/k.p + 1) * k.p
	}
	if c+k.p == k.next && 2*k.p <= m {
		m -= m % k.p
		k.next = c + m + k.p
		return m, k.p
	}
	m = min(m, k.next-c)
	return m, m
}

// leafRun is a broadcast leaf's position: the run of its repeated inner
// dim holding the current chunk, [bound-inner, bound), the element offset
// read for it, and the odometer of the outer dims. have is set while the
// leaf's row holds that element.
type leafRun struct {
	bound int
	off   int64
	idx   []int64
	ok    bool
	have  bool
}

// seek moves r to the run holding element c of a leaf read through
// nd.cshape and nd.cstrides, whose last stride is 0.
func (r *leafRun) seek(nd *fuseNode, c int) {
	rank := len(nd.cshape)
	if rank == 0 {
		if !r.ok {
			r.bound, r.off, r.ok, r.have = int(^uint(0)>>1), 0, true, false
		}
		return
	}
	inner := int(nd.cshape[rank-1])
	if r.ok && c < r.bound && c >= r.bound-inner {
		return
	}
	if r.ok && c >= r.bound && c < r.bound+inner {
		// The next run: one odometer step.
		r.bound += inner
		r.have = false
		j := rank - 2
		if j < 0 {
			return
		}
		r.idx[j]++
		r.off += nd.cstrides[j]
		for j > 0 && r.idx[j] == nd.cshape[j] {
			r.off -= nd.cstrides[j] * nd.cshape[j]
			r.idx[j] = 0
			j--
			r.idx[j]++
			r.off += nd.cstrides[j]
		}
		return
	}
	q := c / inner
	r.bound = (q + 1) * inner
	if cap(r.idx) < rank {
		r.idx = make([]int64, rank)
	}
	r.idx = r.idx[:rank]
	r.off = 0
	for j := rank - 2; j >= 0; j-- {
		r.idx[j] = int64(q) % nd.cshape[j]
		q /= int(nd.cshape[j])
		r.off += r.idx[j] * nd.cstrides[j]
	}
	r.ok, r.have = true, false
}
