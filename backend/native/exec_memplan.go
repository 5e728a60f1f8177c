package native

import (
	"slices"
	"sort"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The memory plan of an execution plan: the values that steps compute
// into buffers of their own (fusion groups, products, convolutions and the
// other ops of freshOps) get a place in one buffer per run, fixed when the
// plan is built, as ONNX Runtime's and TensorFlow Lite's arena planners do:
// places are handed out largest value first, each at the lowest offset
// free of the values live at the same time. A run then takes its results'
// buffers from there, with literal headers made once, instead of asking
// the arena at every step and scanning the live values before recycling
// each buffer.
//
// A value that another op may return as a view (reshape, slice) keeps its
// place for as long as any such view lives. Values that may share bytes
// with an argument, a constant or a result, and values of ops whose kernel
// may return an operand, are not planned: they keep the arena's dynamic
// recycling. Only the entry function's frame uses the plan.

// memPlan is the places of an execution plan's planned values.
type memPlan struct {
	size    int         // bytes of the buffer
	off     map[int]int // slot -> offset of its place
	typ     map[int]*stablehlo.TensorType
	outs    [][]int // per step: the planned slots it defines, in result order
	planned []bool  // by slot
}

// memAlign is the alignment of each place (a cache line).
const memAlign = 64

// freshOps are the ops whose kernels always write their results into new
// buffers (never an operand's bytes, never a view of one): their results
// can be planned. Elementwise ops are added from the op tables.
var freshOps = map[string]bool{
	"stablehlo.dot_general": true, "stablehlo.convolution": true, "stablehlo.transpose": true,
	"stablehlo.concatenate": true, "stablehlo.gather": true, "stablehlo.iota": true,
	"stablehlo.pad": true, "stablehlo.reduce_window": true, "stablehlo.reduce": true,
	"stablehlo.compare": true, "stablehlo.select": true, "stablehlo.clamp": true,
	"stablehlo.broadcast_in_dim": true,
}

// freshOp reports whether op's results are always new buffers.
func freshOp(pl *opPlan) bool {
	if pl.quant || len(pl.op.Regions) != 0 && pl.op.Name != "stablehlo.reduce" && pl.op.Name != "stablehlo.reduce_window" {
		return false
	}
	n := pl.op.Name
	if freshOps[n] {
		return true
	}
	_, un := unaryTable[n]
	_, bin := binaryTable[n]
	return (un || bin) && n != "stablehlo.convert" && n != "stablehlo.bitcast_convert"
}

// planMemory plans the places of ep's values, or returns nil when none is
// planned.
func planMemory(ep *execPlan, bp *blockPlan, slots map[*stablehlo.Value]int) *memPlan {
	typeOf := map[int]*stablehlo.TensorType{}
	for v, s := range slots {
		if t := staticType(v); t != nil {
			typeOf[s] = t
		}
	}
	// union-find over slots that may share bytes
	parent := map[int]int{}
	var find func(int) int
	find = func(s int) int {
		p, ok := parent[s]
		if !ok || p == s {
			return s
		}
		r := find(p)
		parent[s] = r
		return r
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[ra] = rb
		}
	}
	pinned := map[int]bool{} // arguments, constants, results
	for _, s := range bp.args {
		pinned[s] = true
	}
	for _, s := range bp.ret {
		pinned[s] = true
	}
	defAt := map[int]int{}
	last := map[int]int{}
	fresh := map[int]bool{}
	read := func(i, s int) { last[s] = max(last[s], i) }
	for i := range ep.steps {
		st := &ep.steps[i]
		if st.wfold != nil {
			// kept across runs: never planned
			_, outs := stepIO(st)
			for _, s := range outs {
				pinned[s] = true
			}
		}
		switch {
		case st.kind == stepPipe:
			for k := range st.pipe.stages {
				ps := &st.pipe.stages[k]
				for _, s := range stageReads(ps) {
					read(i, s)
				}
				for _, s := range stageDefs(ps) {
					defAt[s] = i
					fresh[s] = ps.kind != psReshape && ps.kind != psConst
					switch ps.kind {
					case psReshape:
						union(s, ps.st.op.in[0])
					case psConst:
						pinned[s] = true
					}
				}
			}
		case st.kind == stepGroup:
			g := st.group
			out := g.out
			if g.red != nil {
				out = g.red.out
				read(i, g.red.init)
			}
			defAt[out], fresh[out] = i, true
			for _, nd := range g.nodes {
				if nd.kind == fkLeaf {
					read(i, nd.slot)
				}
			}
		case st.kind == stepConst:
			for _, s := range st.op.out {
				defAt[s], pinned[s] = i, true
			}
		default:
			pl := st.op
			var reads []int
			reads = append(reads, pl.in...)
			for _, s := range regionReads(pl.op, slots) {
				if _, top := defAt[s]; top || slices.Contains(bp.args, s) {
					reads = append(reads, s)
				}
			}
			// a step run with the next (pairNext) or the next two
			// (expandNext) reads its operands while their result is written
			end := i
			if st.pairNext {
				end = i + 1
			}
			if st.expandNext {
				end = i + 2
			}
			for _, s := range reads {
				read(end, s)
			}
			if st.epi != nil {
				g := st.epi.g
				defAt[g.out], fresh[g.out] = i, true
				for _, nd := range g.nodes {
					if nd.kind == fkLeaf {
						read(end, nd.slot)
					}
				}
			}
			ok := freshOp(pl)
			for _, s := range pl.out {
				defAt[s] = i
				if st.epi != nil {
					continue // the convolution's own value: never planned
				}
				fresh[s] = ok
				if !ok {
					for _, r := range reads {
						union(s, r)
					}
				}
			}
		}
	}
	for s := range pinned {
		pinned[find(s)] = true
	}
	// the places to plan: fresh results of static shape whose set holds
	// no pinned value, live from their step to the last read of any value
	// of their set
	setEnd := map[int]int{}
	for s, i := range defAt {
		r := find(s)
		setEnd[r] = max(setEnd[r], i, last[s])
	}
	type place struct{ slot, start, end, size, off int }
	var places []place
	for s, i := range defAt {
		t := typeOf[s]
		if !fresh[s] || pinned[find(s)] || t == nil {
			continue
		}
		n, err := literal.NumElements(t.Shape)
		es := t.DType().Size()
		if err != nil || n <= 0 || es <= 0 || t.DType() == dtype.Invalid {
			continue
		}
		size := int(n) * es
		places = append(places, place{slot: s, start: i, end: setEnd[find(s)], size: (size + memAlign - 1) / memAlign * memAlign})
	}
	if len(places) == 0 {
		return nil
	}
	sort.Slice(places, func(a, b int) bool {
		if places[a].size != places[b].size {
			return places[a].size > places[b].size
		}
		return places[a].start < places[b].start
	})
	mp := &memPlan{off: map[int]int{}, typ: map[int]*stablehlo.TensorType{}, outs: make([][]int, len(ep.steps))}
	var done []place
	for _, p := range places {
		// the lowest offset clear of the placed values live at the same time
		var busy []place
		for _, q := range done {
			if q.start <= p.end && p.start <= q.end {
				busy = append(busy, q)
			}
		}
		sort.Slice(busy, func(a, b int) bool { return busy[a].off < busy[b].off })
		off := 0
		for _, q := range busy {
			if off+p.size <= q.off {
				break
			}
			off = max(off, q.off+q.size)
		}
		p.off = off
		done = append(done, p)
		mp.off[p.slot], mp.typ[p.slot] = off, typeOf[p.slot]
		mp.size = max(mp.size, off+p.size)
	}
	maxSlot := 0
	for s := range mp.off {
		maxSlot = max(maxSlot, s)
	}
	mp.planned = make([]bool, maxSlot+1)
	for s := range mp.off {
		mp.planned[s] = true
	}
	for i := range ep.steps {
		st := &ep.steps[i]
		var defs []int
		switch {
		case st.kind == stepGroup && st.group.red != nil:
			defs = []int{st.group.red.out}
		case st.kind == stepGroup:
			defs = []int{st.group.out}
		case st.epi != nil:
			defs = []int{st.epi.g.out}
		case st.kind == stepOp:
			defs = st.op.out
		}
		for _, s := range defs {
			if _, ok := mp.off[s]; ok {
				mp.outs[i] = append(mp.outs[i], s)
			}
		}
	}
	return mp
}

// plannedMem is one arena's buffer for a memory plan, with a literal
// header per planned slot over its place.
type plannedMem struct {
	mp   *memPlan
	buf  []byte
	lits map[int]*literal.Literal
}

func newPlannedMem(mp *memPlan) *plannedMem {
	pm := &plannedMem{mp: mp, buf: make([]byte, mp.size+memAlign), lits: map[int]*literal.Literal{}}
	base := alignOffset(pm.buf)
	for s, off := range mp.off {
		t := mp.typ[s]
		n, _ := literal.NumElements(t.Shape)
		size := int(n) * t.DType().Size()
		pm.lits[s] = &literal.Literal{DType: t.DType(), Shape: slices.Clone(t.Shape), Data: pm.buf[base+off : base+off+size : base+off+size]}
	}
	return pm
}

// alignOffset returns the first index of b aligned to memAlign.
func alignOffset(b []byte) int {
	sp := spanOf(b)
	return int((memAlign - sp.lo%memAlign) % memAlign)
}

// isPlanned reports whether slot s has a place.
func (mp *memPlan) isPlanned(s int) bool { return s >= 0 && s < len(mp.planned) && mp.planned[s] }

// plannedFor returns the arena's buffer for mp, made on first use.
func (a *arena) plannedFor(mp *memPlan) *plannedMem {
	if a.pm == nil || a.pm.mp != mp {
		a.pm = newPlannedMem(mp)
	}
	return a.pm
}

// claimPlanned returns the planned literal of a result the running step
// defines with type d and shape, not handed out yet in this step, or nil.
func (fr *frame) claimPlanned(d dtype.DType, shape []int64) *literal.Literal {
	if fr.pm == nil || len(fr.stepOuts) == 0 {
		return nil
	}
	ar := fr.proc.arena
	ar.mu.Lock() // kernels may ask from several goroutines
	defer ar.mu.Unlock()
	for j, s := range fr.stepOuts {
		if j >= 64 || fr.claimed&(1<<j) != 0 {
			continue
		}
		if l := fr.pm.lits[s]; l != nil && l.DType == d && slices.Equal(l.Shape, shape) {
			fr.claimed |= 1 << j
			return l
		}
	}
	return nil
}

// plannedOut returns the planned literal of slot s for a step that
// computes it directly (a fusion group), with type d and shape, or nil.
func (fr *frame) plannedOut(s int, d dtype.DType, shape []int64) *literal.Literal {
	if fr.pm == nil || !fr.pm.mp.isPlanned(s) {
		return nil
	}
	if l := fr.pm.lits[s]; l.DType == d && slices.Equal(l.Shape, shape) {
		return l
	}
	return nil
}

// holds reports whether v is a tensor whose bytes lie in the planned
// buffer (a planned value or a view of one).
func (pm *plannedMem) holds(v Value) bool {
	l, ok := v.(*literal.Literal)
	if !ok || len(l.Data) == 0 {
		return false
	}
	b, d := spanOf(pm.buf), spanOf(l.Data)
	return b.lo <= d.lo && d.hi <= b.hi
}
