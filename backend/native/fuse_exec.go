package native

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Evaluation of a fusion group: the output is cut into chunks of at most
// fuseChunk (or fuseRow) elements; for each chunk every node of the group computes its
// values into a scratch row (float64 with f32 values rounded after each
// op, or float32 for all-f32 groups, so that each element is bit for bit
// what the unfused kernels produce; rows in fuse_rows.go), and the
// root's row is stored. Large groups split their chunks over goroutines;
// each output element is computed by one goroutine in a fixed order, so
// results do not depend on the thread count.
//
// A node whose value is the same for the whole chunk (a constant, a
// broadcast leaf read inside one run of its repeated inner dim, or a node
// of such values) is uniform: its row is one element, computed once by
// the same kernels, and the row kernels read it as a scalar instead of a
// filled row. Chunks end at multiples of the group's period (the shortest
// such run) so that per-channel broadcasts (batch norm's scale and shift)
// are uniform in every chunk.

// fuseChunk bounds a chunk: each node's row costs a call and some
// bookkeeping per chunk, which 512 elements did not amortise (GPT-2's
// GELU chains, 6 and 13 ops: fused groups 7-17% faster at 1024), while a
// group's rows (nodes × chunk × 4 or 8 bytes) stay in the L2 cache.
// Groups whose rows take at most fuseWideBytes at fuseRow elements run
// chunks of fuseRow (chunkLen): AdamW's groups over a 1024×1024 weight
// (4-9 nodes) 10% faster, GPT-2's backward's fused groups 2-10%.
const (
	fuseChunk     = 1024
	fuseRow       = 4096 // the longest chunk: a scratch row's length
	fuseWideBytes = 256 << 10
)

// chunkLen returns the longest chunk of g.
func (g *fusedGroup) chunkLen() int {
	size := 8
	if g.f32 {
		size = 4
	}
	if len(g.nodes)*fuseRow*size <= fuseWideBytes {
		return fuseRow
	}
	return fuseChunk
}

// fuseGrain is the element count per goroutine from which a group runs in
// parallel.
const fuseGrain = 1 << 13

// fnum is the element type of the scratch rows: float32 for groups whose
// float values are all f32 (f32 add, subtract, multiply, divide, max, min
// and comparisons in float32 give the correctly rounded results the
// float64 kernels round to), float64 otherwise.
type fnum interface{ ~float32 | ~float64 }

// fuseScratch is a worker's scratch: one row per node, and the odometer
// of strided leaves.
type fuseScratch[T fnum] struct {
	rows []T
	idx  []int64
	// cur holds each node's values for the current chunk: its scratch
	// row, or a view of a leaf's or the output's bytes; one element where
	// uni is set.
	cur [][]T
	uni []bool
	// runs holds the position of broadcast leaves (fuse_runs.go).
	runs []leafRun
	// full marks the constants whose whole rows spread has filled since
	// getScratch (which fills only what chunks read per segment).
	full []bool
}

var scratch32, scratch64 sync.Pool

// getScratch returns a worker's scratch for g, its constants' rows filled.
func getScratch[T fnum](pool *sync.Pool, g *fusedGroup) *fuseScratch[T] {
	nodes, rank := len(g.nodes), len(g.shape)
	s, _ := pool.Get().(*fuseScratch[T])
	if s == nil {
		s = &fuseScratch[T]{}
	}
	if cap(s.rows) < nodes*fuseRow {
		s.rows = make([]T, nodes*fuseRow)
	}
	s.rows = s.rows[:nodes*fuseRow]
	if cap(s.idx) < rank {
		s.idx = make([]int64, rank)
	}
	s.idx = s.idx[:rank]
	if cap(s.cur) < nodes {
		s.cur = make([][]T, nodes)
		s.uni = make([]bool, nodes)
		s.runs = make([]leafRun, nodes)
		s.full = make([]bool, nodes)
	}
	s.cur, s.uni, s.runs, s.full = s.cur[:nodes], s.uni[:nodes], s.runs[:nodes], s.full[:nodes]
	clear(s.full)
	for i := range s.runs {
		s.runs[i].ok, s.runs[i].have = false, false
	}
	// A chunk reads a constant's row as its value per segment, of at
	// least minPeriod elements (evalChunk): a chunk holds at most
	// chunkLen()/minPeriod segments, and at most the group's elements.
	// Where a constant is needed as a whole row, spread fills it. (Filling
	// whole rows here took 5% of a small transformer's run: a thousand
	// stores per constant per group, most never read.)
	fill := g.chunkLen() / minPeriod
	if n := mvProd(g.shape); n < int64(fill) {
		fill = int(max(n, 1))
	}
	for i := range g.nodes {
		if nd := &g.nodes[i]; nd.kind == fkScalar {
			row := s.rows[i*fuseRow : i*fuseRow+fill]
			for k := range row {
				row[k] = T(nd.scalar)
			}
		}
	}
	return s
}

// viewAs returns data as a []T in place when the element type is T's and
// the host allows it, else nil.
func viewAs[T fnum](data []byte, d dtype.DType) []T {
	if len(data) == 0 || !hostLittleEndian {
		return nil
	}
	var z T
	size := int(unsafe.Sizeof(z))
	if (size == 4 && d != dtype.F32) || (size == 8 && d != dtype.F64) || uintptr(unsafe.Pointer(unsafe.SliceData(data)))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), len(data)/size)
}

// leafViews returns, per node, the in-place view of identity leaves
// (nil where the node's values must be decoded).
func leafViews[T fnum](g *fusedGroup, leaves []*literal.Literal) [][]T {
	views := make([][]T, len(g.nodes))
	for i := range g.nodes {
		if nd := &g.nodes[i]; nd.kind == fkLeaf && nd.strides == nil && leaves[i] != nil { // nil: empty reduce
			views[i] = viewAs[T](leaves[i].Data, nd.dt)
		}
	}
	return views
}

// parallelRange runs body over [0, n) in contiguous parts, concurrently
// when n is large.
func parallelRange(n, grain int, body func(lo, hi int)) {
	runParts(n, min(Threads(), n/grain), body)
}

// execFused computes g into out from the leaf literals (indexed by node;
// nil for other nodes). The caller has checked the leaves' types and sizes.
func execFused(g *fusedGroup, leaves []*literal.Literal, out []byte) {
	if g.f32 {
		execFusedT[float32](g, leaves, out, &scratch32)
	} else {
		execFusedT[float64](g, leaves, out, &scratch64)
	}
}

func execFusedT[T fnum](g *fusedGroup, leaves []*literal.Literal, out []byte, pool *sync.Pool) {
	vb := getViewsBuf[T](len(g.nodes))
	views := leafViewsInto(*vb, g, leaves)
	switch v32, _ := any(views).([][]float32); {
	case g.planes != nil && v32 != nil && g.planes.run(g, v32, leaves, viewAs[float32](out, g.dt)):
	case g.n < 2*fuseGrain || Threads() == 1:
		fusedRange(g, leaves, views, out, 0, g.n, pool) // no closure to allocate
	default:
		parallelRange(g.n, fuseGrain, func(lo, hi int) { fusedRange(g, leaves, views, out, lo, hi, pool) })
	}
	clear(views)
	viewsBufs.Put(vb)
}

// viewsBufs pools the per-node view slices of execFusedT (a slice of
// []float32 or of []float64).
var viewsBufs sync.Pool

func getViewsBuf[T fnum](n int) *[][]T {
	vb, _ := viewsBufs.Get().(*[][]T)
	if vb == nil {
		vb = new([][]T)
	}
	if cap(*vb) < n {
		*vb = make([][]T, n)
	}
	*vb = (*vb)[:n]
	return vb
}

// leafViewsInto is leafViews into dst (of one entry per node).
func leafViewsInto[T fnum](dst [][]T, g *fusedGroup, leaves []*literal.Literal) [][]T {
	for i := range g.nodes {
		dst[i] = nil
		if nd := &g.nodes[i]; nd.kind == fkLeaf && nd.strides == nil && leaves[i] != nil { // nil: empty reduce
			dst[i] = viewAs[T](leaves[i].Data, nd.dt)
		}
	}
	return dst
}

// fusedRange computes elements [lo, hi) of g into out.
func fusedRange[T fnum](g *fusedGroup, leaves []*literal.Literal, views [][]T, out []byte, lo, hi int, pool *sync.Pool) {
	outView := viewAs[T](out, g.dt)
	s := getScratch[T](pool, g)
	defer pool.Put(s)
	k := newChunker(g, lo)
	for c := lo; c < hi; {
		m, seg := k.len(c, hi)
		var dst []T
		if outView != nil {
			dst = outView[c : c+m]
		}
		r := evalChunk(g, leaves, views, s, dst, c, m, seg)
		if outView == nil {
			storeRow(out, g.dt, c, r)
		}
		c += m
	}
}

// evalChunk computes every node for elements [c, c+m), in segments of
// seg elements, and returns the root's row, of m elements: dst when not
// nil (the root is computed there). A uniform node holds one value per
// segment.
func evalChunk[T fnum](g *fusedGroup, leaves []*literal.Literal, views [][]T, s *fuseScratch[T], dst []T, c, m, seg int) []T {
	last := len(g.nodes) - 1
	nseg := m / seg
	for i := range g.nodes {
		nd := &g.nodes[i]
		own := s.rows[i*fuseRow : i*fuseRow+m]
		if i == last && dst != nil {
			own = dst
		}
		s.uni[i] = false
		switch nd.kind {
		case fkNop:
			continue
		case fkScalar:
			s.cur[i], s.uni[i] = s.rows[i*fuseRow:i*fuseRow+nseg], true
			continue
		case fkLeaf:
			if v := views[i]; v != nil {
				s.cur[i] = v[c : c+m]
				continue
			}
			if nd.strides == nil {
				loadRow(own, leaves[i].Data, nd.dt, int64(c))
			} else if nd.bcast && nseg > 1 {
				// Runs of seg elements: uniform per segment where the
				// leaf's runs hold whole segments.
				r := &s.runs[i]
				if rk := len(nd.cshape); rk == 0 || int(nd.cshape[rk-1])%seg == 0 {
					own = own[:nseg]
					for j := range own {
						r.seek(nd, c+j*seg)
						own[j] = loadAt[T](leaves[i].Data, nd.dt, r.off)
					}
					s.uni[i] = true
				} else {
					loadStrided(own, leaves[i].Data, nd.dt, nd.cshape, nd.cstrides, s.idx, int64(c))
				}
				r.have = false
			} else if nd.bcast {
				r := &s.runs[i]
				r.seek(nd, c)
				if c+m <= r.bound {
					// One element for the chunk; chunks of one run
					// find it in the row already.
					own = own[:1]
					if !r.have {
						own[0] = loadAt[T](leaves[i].Data, nd.dt, r.off)
						r.have = true
					}
					s.uni[i] = true
				} else {
					loadStrided(own, leaves[i].Data, nd.dt, nd.cshape, nd.cstrides, s.idx, int64(c))
					r.have = false
				}
			} else {
				loadStrided(own, leaves[i].Data, nd.dt, nd.cshape, nd.cstrides, s.idx, int64(c))
			}
			s.cur[i] = own
			continue
		}
		s.cur[i], s.uni[i] = computeNode(g.nodes, nd, s, own, seg)
	}
	r := s.cur[last]
	if s.uni[last] {
		u := r
		r = s.rows[last*fuseRow : last*fuseRow+m]
		if dst != nil {
			r = dst
		}
		spreadSegs(r, u, seg)
	}
	return r
}

// spreadSegs fills segment j of r (seg elements) with u[j]. u may be the
// start of r: the segments are filled from the last, each after its value
// is read, and segment j starts at or after u[j] (at j*seg >= j).
func spreadSegs[T fnum](r, u []T, seg int) {
	for j := len(u) - 1; j >= 0; j-- {
		v := u[j]
		part := r[j*seg : (j+1)*seg]
		for k := range part {
			part[k] = v
		}
	}
}

// computeNode computes a compute node into own, or into one element of
// it when all its operands are uniform (then the result is uniform too),
// and returns its row.
func computeNode[T fnum](nodes []fuseNode, nd *fuseNode, s *fuseScratch[T], own []T, seg int) ([]T, bool) {
	nseg := len(own) / seg
	n := 1
	switch nd.kind {
	case fkBinary, fkCompare:
		n = 2
	case fkSelect:
		n = 3
	case fkCmpSelect:
		n = 4
	}
	all, some := true, false
	for _, a := range nd.args[:n] {
		all = all && s.uni[a]
		some = some || s.uni[a]
	}
	if all {
		own = own[:nseg]
		fuseNodeRow(nd, s, own)
		return own, true
	}
	if !some {
		fuseNodeRow(nd, s, own)
		return own, false
	}
	a := nd.args
	// arg is operand q's values for segment j.
	arg := func(q, j int) []T {
		if s.uni[a[q]] {
			return s.cur[a[q]][j : j+1]
		}
		return s.cur[a[q]][j*seg : (j+1)*seg]
	}
	if selectUniformPred(nd, s, own, seg) {
		return own, false
	}
	if nseg > 1 && segsSIMD(nd, s, own, seg) {
		return own, false
	}
	switch nd.kind {
	case fkBinary:
		ok := true
		for j := 0; j < nseg && ok; j++ {
			ok = binaryRowU(nd, own[j*seg:(j+1)*seg], arg(0, j), arg(1, j), s.uni[a[0]], s.uni[a[1]])
		}
		if ok {
			return own, false
		}
	case fkCmpSelect:
		ok := true
		for j := 0; j < nseg && ok; j++ {
			ok = cmpSelectRowU(own[j*seg:(j+1)*seg], arg(0, j), arg(1, j), arg(2, j), arg(3, j), s.uni[a[0]], s.uni[a[1]], s.uni[a[2]], s.uni[a[3]], nd.cmp)
		}
		if ok {
			return own, false
		}
	}
	// No kernel for this mix of rows and uniform values (the kernels
	// decline at the first segment, before writing): spread the uniform
	// ones over rows.
	for _, q := range nd.args[:n] {
		spread(s, nodes, q, len(own), seg)
	}
	fuseNodeRow(nd, s, own)
	return own, false
}

// selectUniformPred computes a select (or a compare-select) whose
// predicate is uniform while a branch is not (an interpolation whose
// weight is a Python number: lerp's |w| < 0.5) by copying, per segment,
// the branch the predicate picks: the predicate's compare is done once
// per segment, and no uniform value is spread over a row to be blended
// element by element. It reports false where the predicate is not
// uniform.
func selectUniformPred[T fnum](nd *fuseNode, s *fuseScratch[T], own []T, seg int) bool {
	a := nd.args
	var t, f int
	switch nd.kind {
	case fkSelect:
		if !s.uni[a[0]] {
			return false
		}
		t, f = a[1], a[2]
	case fkCmpSelect:
		if !s.uni[a[0]] || !s.uni[a[1]] {
			return false
		}
		t, f = a[2], a[3]
	default:
		return false
	}
	var pa, pb [1]T
	var p [1]T
	for j := 0; j < len(own)/seg; j++ {
		if nd.kind == fkSelect {
			p[0] = s.cur[a[0]][j]
		} else {
			pa[0], pb[0] = s.cur[a[0]][j], s.cur[a[1]][j]
			compareRow(p[:], pa[:], pb[:], nd.cmp)
		}
		src := f
		if p[0] != 0 {
			src = t
		}
		d := own[j*seg : (j+1)*seg]
		if s.uni[src] {
			v := s.cur[src][j]
			for k := range d {
				d[k] = v
			}
		} else {
			copy(d, s.cur[src][j*seg:(j+1)*seg])
		}
	}
	return true
}

// spread turns uniform node i into a row of m elements: its scratch row,
// each segment filled with its value (a constant's whole row, once per
// worker: its row is not written otherwise).
func spread[T fnum](s *fuseScratch[T], nodes []fuseNode, i, m, seg int) {
	if !s.uni[i] {
		return
	}
	r := s.rows[i*fuseRow : i*fuseRow+m]
	if nd := &nodes[i]; nd.kind == fkScalar {
		if !s.full[i] {
			v := T(nd.scalar)
			row := s.rows[i*fuseRow : (i+1)*fuseRow]
			for k := range row {
				row[k] = v
			}
			s.full[i] = true
		}
	} else {
		spreadSegs(r, s.cur[i], seg)
	}
	s.cur[i], s.uni[i] = r, false
}

// fuseNodeRow computes a compute node into dst from its operands' rows
// (all as long as dst).
func fuseNodeRow[T fnum](nd *fuseNode, s *fuseScratch[T], dst []T) {
	row := func(i int) []T { return s.cur[i] }
	switch nd.kind {
	case fkUnary:
		x := row(nd.args[0])
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b[T](nd.bun(v != 0))
			}
			return
		}
		switch {
		case nd.v32 != nil:
			// f32 values in float32 (package vmath), as the unfused kernel
			// computes them
			if d32, ok := any(dst).([]float32); ok {
				nd.v32(d32, any(x).([]float32))
				return
			}
			for k, v := range x {
				dst[k] = T(nd.s32(float32(v)))
			}
		case nd.name == "stablehlo.negate":
			for k, v := range x {
				dst[k] = -v
			}
		default:
			for k, v := range x {
				dst[k] = T(nd.un(float64(v)))
			}
		}
		roundRow(dst, nd.dt)
	case fkBinary:
		binaryRow(nd, dst, row(nd.args[0]), row(nd.args[1]))
	case fkCompare:
		compareRow(dst, row(nd.args[0]), row(nd.args[1]), nd.cmp)
	case fkCmpSelect:
		cmpSelectRow(dst, row(nd.args[0]), row(nd.args[1]), row(nd.args[2]), row(nd.args[3]), nd.cmp)
	case fkSelect:
		selectRow(dst, row(nd.args[0]), row(nd.args[1]), row(nd.args[2]))
	case fkConvert:
		x := row(nd.args[0])
		if nd.dt == dtype.Bool {
			for k, v := range x {
				dst[k] = f2b[T](v != 0)
			}
			return
		}
		copy(dst, x)
		roundRow(dst, nd.dt)
	}
}

// checkLeaf verifies that a leaf value has the planned type and size.
func checkLeaf(g *fusedGroup, nd *fuseNode, v Value) (*literal.Literal, error) {
	l, ok := v.(*literal.Literal)
	if !ok {
		return nil, fmt.Errorf("fusion into %s: operand is %T, want a tensor", g.root.Name, v)
	}
	want := g.n
	if nd.strides != nil {
		want = 1
		for d, st := range nd.strides {
			want += int(st * (g.shape[d] - 1))
		}
	}
	if l.DType != nd.dt || l.Len() < want || (nd.strides == nil && l.Len() != want) || len(l.Data) != l.Len()*nd.dt.Size() {
		return nil, fmt.Errorf("fusion into %s: operand %v does not have the planned type %v with %d elements", g.root.Name, l, nd.dt, g.n)
	}
	return l, nil
}
