package native

import (
	"fmt"
	"time"

	"github.com/torchtpu/torchtpu/backend/native/internal/pool"
	"github.com/torchtpu/torchtpu/literal"
)

// runPlan evaluates a function body through its execution plan. Buffers
// of values past their last use go back to the process's arena (when it
// has one) unless another live value, an argument or a constant shares
// their bytes.
func (fr *frame) runPlan(ep *execPlan, args []Value) ([]Value, error) {
	if len(args) != len(ep.args) {
		return nil, fmt.Errorf("block called with %d arguments, want %d", len(args), len(ep.args))
	}
	if cap(fr.livePos) >= len(fr.slots) {
		fr.livePos = fr.livePos[:len(fr.slots)]
		clear(fr.livePos)
	} else {
		fr.livePos = make([]int32, len(fr.slots))
	}
	fr.live = fr.live[:0]
	for i, s := range ep.args {
		fr.define(s, args[i])
	}
	ar := fr.proc.arena
	persist := &fr.persist
	persist.reset()
	defer persist.reset()
	if ar != nil {
		for _, a := range args {
			persist.addValue(a)
		}
		if fr.proc.depth == 1 {
			if persist.base = ep.consts.Load(); persist.base == nil && ep.nconst > 0 {
				fr.consts, fr.nconst = &spanSet{}, 0
				defer func() { fr.consts = nil }()
			}
		}
		if fr.proc.depth == 1 && ep.mem != nil {
			// the planned places: never recycled through the arena
			fr.pm = ar.plannedFor(ep.mem)
			persist.add(spanOf(fr.pm.buf))
			defer func() { fr.pm, fr.stepOuts = nil, nil }()
		}
	}
	ctx := fr.proc.ctx
	in := fr.in[:0]
	defer func() { clear(in); fr.in = in[:0] }()
	al := fr.aliases(len(fr.slots))
	prof := fr.proc.prof
	if fr.proc.depth > 1 {
		prof = nil // a nested call: its caller's step holds its time
	}
	var t0 time.Time
	var c0, h0 time.Duration
	var l0 int64
	// Where the last run's weight folds were all kept and this run's
	// arguments are the literals they came from, their results are
	// defined here and the fold steps skipped (order: the other steps);
	// else each fold step runs or hits on its turn, and caught collects
	// this run's results for the next while every one so far kept or hit
	// (snapping; made at the first, so that a plan whose folds never
	// keep, its weights not frozen, allocates nothing for it).
	var order []int
	var caught [][]Value
	folding := ar != nil && fr.proc.depth == 1 && len(ep.foldSteps) > 0
	snapping := folding
	if folding {
		if sn := ep.snap.Load(); sn != nil && sn.matches(ep, args) {
			for k, outs := range ep.foldOuts {
				for j, s := range outs {
					fr.define(s, sn.outs[k][j])
					persist.addValue(sn.outs[k][j])
				}
			}
			order = ep.rest
			foldSnapRuns.Add(1)
			snapping = false
		}
	}
	nsteps := len(ep.steps)
	skip := -1 // the steps up to it already ran with one before
	if order != nil {
		nsteps = len(order)
	}
	for oi := 0; oi < nsteps; oi++ {
		i := oi
		if order != nil {
			i = order[oi]
		}
		st := &ep.steps[i]
		if prof != nil {
			l0, h0 = pool.Counters()
			t0, c0 = prof.stamp()
		}
		fr.enterStep(ep, i)
		fr.steps++
		if fr.steps&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s: %w", st.name(), err)
			}
		}
		fold := st.wfold != nil && ar != nil && fr.proc.depth == 1
		hit := fold && fr.foldHit(st, persist)
		switch kind := st.kind; {
		case i <= skip:
			// run with a step before (runDWPointwise, runExpandDW): its
			// result is defined, its operand never was
		case hit:
		case kind == stepConst:
			if err := fr.runConst(st, persist); err != nil {
				return nil, err
			}
		case kind == stepOp:
			pl := st.op
			in = in[:0]
			for _, s := range pl.in {
				in = append(in, fr.slots[s])
			}
			if st.epi != nil {
				if st.pairNext || st.expandNext {
					// k runs right after step i, d steps on
					follows := func(k int) bool {
						d := k - i
						return oi+d < nsteps && (order == nil || order[oi+d] == k)
					}
					last, err := fr.runJoined(ep, i, in, follows)
					if err != nil {
						return nil, fmt.Errorf("%s (%s): %w", pl.op.Name, pl.op.Loc, err)
					}
					if last >= 0 {
						skip = last
						break
					}
				}
				if err := fr.runConvEpi(ep, st, in, persist, al); err != nil {
					return nil, err
				}
				break
			}
			var out []Value
			var err error
			if pl.quant {
				out, err = evalQuantized(fr, pl.op, in, pl.kernel)
			} else {
				out, err = pl.kernel(fr, pl.op, in)
			}
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", pl.op.Name, pl.op.Loc, err)
			}
			if err := checkResults(pl.op, out); err != nil {
				return nil, err
			}
			for j, s := range pl.out {
				fr.define(s, out[j])
			}
			al.defined(fr, pl)
		case kind == stepPipe:
			if err := fr.runPipe(st.pipe, al, persist); err != nil {
				return nil, err
			}
		case kind == stepGroup:
			if err := fr.runGroup(ep, st.group, persist, al); err != nil {
				return nil, fmt.Errorf("%s (%s): %w", st.group.root.Name, st.group.root.Loc, err)
			}
		}
		kept := hit
		if fold && !hit {
			kept = fr.foldKeep(st, persist)
		}
		if fold && snapping {
			if !kept {
				snapping, caught = false, nil // no snapshot from this run
			} else {
				if caught == nil {
					caught = make([][]Value, 0, len(ep.foldSteps))
				}
				outs := ep.foldOuts[len(caught)]
				vals := make([]Value, len(outs))
				for j, s := range outs {
					vals[j] = fr.slots[s]
				}
				caught = append(caught, vals)
			}
		}
		for _, s := range st.frees {
			fr.release(ep, s, persist, al)
		}
		if prof != nil && st.kind != stepConst {
			d := prof.since(t0, c0)
			l1, h1 := pool.Counters()
			prof.record(st, t0, d, l1-l0, h1-h0)
		}
	}
	if ar != nil {
		ar.fresh = false
	}
	if snapping && len(caught) == len(ep.foldSteps) {
		snapFolds(ep, args, caught)
	}
	if cs := fr.consts; cs != nil && fr.nconst == ep.nconst {
		cs.settle()
		ep.consts.CompareAndSwap(nil, cs)
	}
	res := make([]Value, len(ep.ret))
	for i, s := range ep.ret {
		res[i] = fr.slots[s]
		// A cached constant is shared by every run: the caller gets a copy.
		if l, ok := res[i].(*literal.Literal); ok && ar != nil && persist.overlaps(spanOf(l.Data)) && !isArgValue(args, l) {
			res[i] = l.Clone()
		}
	}
	return res, nil
}

// runConst defines the results of a constant step, computed on the first
// run (not from the arena: the values outlive the run), and adds their
// bytes to persist.
func (fr *frame) runConst(st *execStep, persist *spanSet) error {
	vals, err := st.konst.get(func() ([]Value, error) {
		in := make([]Value, 0, len(st.op.in))
		for _, s := range st.op.in {
			in = append(in, fr.slots[s])
		}
		v, err := st.op.kernel(constEnv{fr}, st.op.op, in)
		if err == nil {
			err = checkResults(st.op.op, v)
		}
		return v, err
	})
	if err != nil {
		return fmt.Errorf("%s (%s): %w", st.op.op.Name, st.op.op.Loc, err)
	}
	for j, s := range st.op.out {
		fr.define(s, vals[j])
		if fr.proc.arena != nil && persist.base == nil {
			persist.addValue(vals[j]) // else the base has them
		}
		if fr.consts != nil {
			fr.consts.addValue(vals[j])
		}
	}
	if fr.consts != nil {
		fr.nconst++
	}
	return nil
}

// constEnv hides the frame's arena from kernels computing cached values.
type constEnv struct{ Env }

// enterStep readies the arena for step i's results: returned ones in
// fresh buffers or the caller's (retDsts), planned ones in their places.
func (fr *frame) enterStep(ep *execPlan, i int) {
	st := &ep.steps[i]
	if ar := fr.proc.arena; ar != nil && fr.proc.depth == 1 {
		ar.fresh = st.retOut
		ar.dest = ar.dest[:0]
		if len(st.retDsts) > 0 && len(ar.dests) > 0 && (st.wfold == nil || !st.wfold.keeping()) {
			ar.stepDests(st.retDsts)
		}
	}
	if fr.pm != nil {
		fr.stepOuts, fr.claimed = ep.mem.outs[i], 0
	}
}

func (st *execStep) name() string {
	if st.pipe != nil {
		return "row pipeline"
	}
	if st.group != nil {
		return st.group.root.Name
	}
	return st.op.op.Name
}

func isArgValue(args []Value, l *literal.Literal) bool {
	for _, a := range args {
		if a == Value(l) {
			return true
		}
	}
	return false
}

func overlapsAny(s span, list []span) bool {
	for _, t := range list {
		if s.overlaps(t) {
			return true
		}
	}
	return false
}

// sharedElsewhere reports whether a live slot of the block other than
// skip holds bytes overlapping s. Values that own their buffer (al) cannot
// overlap another value's bytes and are not looked at.
func (fr *frame) sharedElsewhere(ep *execPlan, skip int, s span, al *aliases) bool {
	var buf [4]span
	scan := fr.live
	if al != nil && !al.all {
		scan = al.list // the marked slots: live ones among them
	}
	for _, t := range scan {
		if t == skip || fr.slots[t] == nil || fr.livePos[t] == 0 || !al.maybeShared(t) {
			continue
		}
		if overlapsAny(s, valueSpans(buf[:0], fr.slots[t])) {
			return true
		}
	}
	return false
}

// release ends the life of slot s, recycling its buffers when nothing
// else holds them.
func (fr *frame) release(ep *execPlan, s int, persist *spanSet, al *aliases) {
	v := fr.slots[s]
	ar := fr.proc.arena
	if ar == nil || v == nil || fr.pm != nil && (fr.pm.mp.isPlanned(s) && !al.maybeShared(s) || fr.pm.holds(v)) {
		// planned, or a view of a planned value: its place is the plan's
		// (a value its kernel made elsewhere is left to the collector)
		fr.undefine(s)
		return
	}
	var lbuf [1]*literal.Literal
	lits := lbuf[:0]
	switch v := v.(type) {
	case *literal.Literal:
		lits = append(lits, v)
	case Tuple:
		lits = tupleLiterals(lits, v)
	}
	var dbuf [1]span
	dead := dbuf[:0] // bytes of s that parked buffers hold
	for _, l := range lits {
		sp := spanOf(l.Data)
		if len(l.Data) == 0 || persist.overlaps(sp) {
			continue
		}
		if !al.maybeShared(s) {
			ar.put(l.Data) // it shares bytes with no other value
			continue
		}
		if fr.parkedOverlap(ar, l.Data) {
			dead = append(dead, sp) // a view of a parked buffer (or its parent)
			continue
		}
		if fr.sharedElsewhere(ep, s, sp, al) {
			// Views of it live on: recycle it when the last of them dies.
			ar.parked = append(ar.parked, parkedBuf{fr, l.Data})
			continue
		}
		ar.put(l.Data)
	}
	fr.undefine(s)
	if len(dead) > 0 {
		fr.unpark(ep, ar, al, dead)
	}
}

// parkedOverlap reports whether b overlaps a buffer fr parked, and when b
// holds that buffer whole (the parent of a view that died first) makes b
// the parked one, so that all of it is recycled.
func (fr *frame) parkedOverlap(ar *arena, b []byte) bool {
	sp := spanOf(b)
	hit := false
	for i := range ar.parked {
		p := &ar.parked[i]
		if p.fr != fr || !sp.overlaps(spanOf(p.b)) {
			continue
		}
		if ps := spanOf(p.b); sp.lo <= ps.lo && ps.hi <= sp.hi {
			p.b = b
		}
		hit = true
	}
	return hit
}

// unpark recycles the buffers fr parked that overlap dead (the bytes of
// a value that just died: only those can have lost their last view) and
// that no live value overlaps any more. Entries overlapping a recycled
// buffer are dropped, never recycled themselves: two entries can grow
// into one parent, and the arena must not hold overlapping buffers.
func (fr *frame) unpark(ep *execPlan, ar *arena, al *aliases, dead []span) {
	var put []span
	keep := ar.parked[:0]
	for _, p := range ar.parked {
		sp := spanOf(p.b)
		if p.fr == fr && overlapsAny(sp, dead) && !fr.sharedElsewhere(ep, -1, sp, al) && !overlapsAny(sp, put) {
			ar.put(p.b)
			ar.stats.unparked++
			put = append(put, sp)
			continue
		}
		keep = append(keep, p)
	}
	if len(put) > 0 {
		kept := keep[:0]
		for _, p := range keep {
			if !overlapsAny(spanOf(p.b), put) {
				kept = append(kept, p)
			}
		}
		keep = kept
	}
	clear(ar.parked[len(keep):])
	ar.parked = keep
}

// define sets a slot of the planned block and records it as live.
func (fr *frame) define(s int, v Value) {
	fr.slots[s] = v
	if fr.livePos[s] == 0 {
		fr.live = append(fr.live, s)
		fr.livePos[s] = int32(len(fr.live))
	}
}

// undefine clears a slot and drops it from the live list.
func (fr *frame) undefine(s int) {
	fr.slots[s] = nil
	if p := fr.livePos[s]; p != 0 {
		last := fr.live[len(fr.live)-1]
		fr.live[p-1] = last
		fr.livePos[last] = p
		fr.live = fr.live[:len(fr.live)-1]
		fr.livePos[s] = 0
	}
}

func tupleLiterals(dst []*literal.Literal, t Tuple) []*literal.Literal {
	for _, e := range t {
		switch e := e.(type) {
		case *literal.Literal:
			dst = append(dst, e)
		case Tuple:
			dst = tupleLiterals(dst, e)
		}
	}
	return dst
}

// runGroup computes a fusion group into, by preference, the buffer of an
// operand that dies here, a recycled buffer or a new one.
func (fr *frame) runGroup(ep *execPlan, g *fusedGroup, persist *spanSet, al *aliases) error {
	var leaves []*literal.Literal
	if ar := fr.proc.arena; ar != nil {
		// The group reads the leaves only while it runs: one slice per
		// run serves every group.
		leaves = ar.leafSlice(len(g.nodes))
		defer clear(leaves)
	} else {
		leaves = make([]*literal.Literal, len(g.nodes))
	}
	for i := range g.nodes {
		nd := &g.nodes[i]
		if nd.kind != fkLeaf || g.n == 0 {
			continue
		}
		l, err := checkLeaf(g, nd, fr.slots[nd.slot])
		if err != nil {
			return err
		}
		leaves[i] = l
	}
	if g.red != nil {
		return fr.runReduceGroup(g, leaves)
	}
	nbytes := g.n * g.dt.Size()
	ar := fr.proc.arena
	if l := fr.plannedOut(g.out, g.dt, g.shape); l != nil {
		if g.n > 0 {
			execFused(g, leaves, l.Data)
		}
		fr.define(g.out, l)
		return nil
	}
	var data []byte
	inplace := -1
	if ar != nil && g.n > 0 {
		// the caller's memory for the result, when given, before an
		// operand's: computed there, the result leaves without a copy
		// (a weight gradient summed with the embedding's scatter)
		data = ar.lendSlot(g.out, nbytes)
		for _, s := range g.inplace {
			if data != nil {
				break
			}
			l, ok := fr.slots[s].(*literal.Literal)
			if !ok || len(l.Data) != nbytes {
				continue
			}
			sp := spanOf(l.Data)
			if persist.overlaps(sp) || (al.maybeShared(s) && fr.sharedElsewhere(ep, s, sp, al)) {
				continue
			}
			data, inplace = l.Data, s
			ar.stats.inplace++
			break
		}
		if data == nil {
			data = ar.take(nbytes)
		}
	}
	if data == nil {
		data = make([]byte, nbytes)
	}
	if g.n > 0 {
		execFused(g, leaves, data)
	}
	fr.define(g.out, literal.Wrap(g.dt, g.shape, data))
	if inplace >= 0 {
		al.mark(inplace)
		al.mark(g.out)
	}
	return nil
}
