package native

import (
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Folding what the weights alone determine. A network exported for
// inference computes, on every run, values that depend on its weights
// only: batch norm's per-channel scale, 1/sqrt(var + eps)·gamma, and shift,
// beta - mean·scale, are a few small fusion groups per layer (98 of
// EfficientNet-B0's 300 steps). ONNX Runtime folds them once, its weights
// being constants; here the weights are arguments. A step whose operands
// are all arguments of the entry function, constants or results of such
// steps, and whose results are small, keeps its results; a later run
// whose operands are the same frozen literals (literal.Literal.Frozen:
// weights loaded from an archive, constants, kept results) defines them
// from there. A step that misses runs as ever, into fresh buffers it keeps.

// weightFoldMaxBytes bounds a folded result: below the arena's chunks
// (minChunkBytes), whose pieces all go back at the end of each run, so a
// kept result is a buffer of its own.
const weightFoldMaxBytes = minChunkBytes / 2

// weightFoldMaxMisses is the misses in a row after which a step stops
// keeping its results (its operands are not weights after all).
const weightFoldMaxMisses = 3

// weightFoldsEnabled switches the folding (tests compare both).
var weightFoldsEnabled = true

// weightFold is a step's kept results and the operands they came from.
type weightFold struct {
	mu     sync.Mutex
	ins    []foldKey
	outs   []Value
	misses int
	off    bool
}

type foldKey struct {
	lit  weak.Pointer[literal.Literal]
	data unsafe.Pointer
	n    int
}

// markWeightFolds gives the steps computed from the entry function's
// arguments and constants alone their weightFold.
func markWeightFolds(ep *execPlan, bp *blockPlan, slots map[*stablehlo.Value]int) {
	if !weightFoldsEnabled {
		return
	}
	typeOf := map[int]*stablehlo.TensorType{}
	for v, s := range slots {
		if t := staticType(v); t != nil {
			typeOf[s] = t
		}
	}
	w := map[int]bool{}
	for _, s := range bp.args {
		w[s] = true
	}
	small := func(outs []int) bool {
		for _, s := range outs {
			t := typeOf[s]
			if t == nil {
				return false
			}
			n, err := literal.NumElements(t.Shape)
			if err != nil || n*int64(t.DType().Size()) > weightFoldMaxBytes {
				return false
			}
		}
		return len(outs) > 0
	}
	all := func(reads []int) bool {
		for _, s := range reads {
			if !w[s] {
				return false
			}
		}
		return len(reads) > 0
	}
	for i := range ep.steps {
		st := &ep.steps[i]
		var reads, outs []int
		switch {
		case st.kind == stepConst:
			for _, s := range st.op.out {
				w[s] = true
			}
			continue
		case st.kind == stepGroup:
			g := st.group
			for _, nd := range g.nodes {
				if nd.kind == fkLeaf {
					reads = append(reads, nd.slot)
				}
			}
			outs = []int{g.out}
			if g.red != nil {
				reads = append(reads, g.red.init)
				outs = []int{g.red.out}
			}
		case st.kind == stepOp && st.epi == nil:
			pl := st.op
			_, un := unaryTable[pl.op.Name]
			_, bin := binaryTable[pl.op.Name]
			if pl.quant || len(pl.op.Regions) != 0 || !(foldableOps[pl.op.Name] || un || bin) {
				continue
			}
			reads, outs = pl.in, pl.out
		default:
			continue
		}
		if all(reads) && small(outs) {
			st.wfold = &weightFold{}
			for _, s := range outs {
				w[s] = true
			}
		}
	}
}

// stepIO returns the slots a group or op step reads and defines.
func stepIO(st *execStep) (reads, outs []int) {
	if g := st.group; g != nil {
		for _, nd := range g.nodes {
			if nd.kind == fkLeaf {
				reads = append(reads, nd.slot)
			}
		}
		if g.red != nil {
			return append(reads, g.red.init), []int{g.red.out}
		}
		return reads, []int{g.out}
	}
	return st.op.in, st.op.out
}

// foldKeyOf identifies a value: its literal and bytes (ok false for a
// value that is not a literal).
func foldKeyOf(v Value) (foldKey, bool) {
	l, ok := v.(*literal.Literal)
	if !ok || l == nil || !l.Frozen {
		return foldKey{}, false
	}
	return foldKey{lit: weak.Make(l), data: unsafe.Pointer(unsafe.SliceData(l.Data)), n: len(l.Data)}, true
}

// is reports whether l is the literal k identifies, its bytes where they
// were.
func (k foldKey) is(l *literal.Literal) bool {
	return k.lit.Value() == l && k.data == unsafe.Pointer(unsafe.SliceData(l.Data)) && k.n == len(l.Data)
}

// foldHit defines st's results from its kept ones when its operands are
// the literals they came from, and reports whether it did.
func (fr *frame) foldHit(st *execStep, persist *spanSet) bool {
	wf := st.wfold
	reads, outs := stepIO(st)
	wf.mu.Lock()
	defer wf.mu.Unlock()
	if wf.off || wf.outs == nil || len(wf.ins) != len(reads) {
		return false
	}
	for i, s := range reads {
		l, ok := fr.slots[s].(*literal.Literal)
		if !ok || !wf.ins[i].is(l) {
			return false
		}
	}
	for j, s := range outs {
		fr.define(s, wf.outs[j])
		persist.addValue(wf.outs[j])
	}
	wf.misses = 0
	return true
}

// foldKeep keeps st's results, just computed into fresh buffers, with
// the operands they came from.
// It reports whether it kept them.
func (fr *frame) foldKeep(st *execStep, persist *spanSet) bool {
	wf := st.wfold
	reads, outs := stepIO(st)
	for _, s := range reads {
		if _, ok := foldKeyOf(fr.slots[s]); !ok {
			// Not all operands are frozen (a compiled graph's weights
			// come as arguments the caller may write): a miss, and after
			// a few in a row the step stops trying.
			wf.mu.Lock()
			if !wf.off {
				wf.miss()
			}
			wf.mu.Unlock()
			return false
		}
	}
	ins := make([]foldKey, len(reads))
	for i, s := range reads {
		ins[i], _ = foldKeyOf(fr.slots[s])
	}
	vals := make([]Value, len(outs))
	for j, s := range outs {
		vals[j] = fr.slots[s]
		if l, ok := vals[j].(*literal.Literal); ok {
			l.Frozen = true // kept, never written again: the next step's key
		}
		persist.addValue(vals[j])
	}
	wf.mu.Lock()
	defer wf.mu.Unlock()
	if wf.outs != nil && wf.miss() {
		return false
	}
	wf.ins, wf.outs = ins, vals
	return true
}

// foldSnap is one run's weight-fold results, every fold step's, and the
// entry arguments the fold steps read in that run. A later run on the
// same frozen arguments defines them all up front and steps over the fold
// steps (execPlan.rest): mobilenet_v3_small has 68 fold steps of 164,
// each checked its operands on its turn and paid a step's dispatch.
type foldSnap struct {
	args []foldKey // the arguments execPlan.foldArgs
	outs [][]Value // the results of execPlan.foldSteps, as foldOuts
}

// foldSnapRuns counts the runs that took their fold results from a
// snapshot (for the tests).
var foldSnapRuns atomic.Int64

// planFoldSkip lists ep's weight-fold steps, the results they define,
// the entry arguments they read and the other steps (after
// markWeightFolds; nothing where there is no fold step).
func planFoldSkip(ep *execPlan) {
	argIdx := map[int]int{}
	for i, s := range ep.args {
		argIdx[s] = i
	}
	seen := map[int]bool{}
	var rest []int
	for i := range ep.steps {
		st := &ep.steps[i]
		if st.wfold == nil {
			rest = append(rest, i)
			continue
		}
		reads, outs := stepIO(st)
		for _, s := range reads {
			if a, ok := argIdx[s]; ok && !seen[a] {
				seen[a] = true
				ep.foldArgs = append(ep.foldArgs, a)
			}
		}
		ep.foldSteps = append(ep.foldSteps, i)
		ep.foldOuts = append(ep.foldOuts, append([]int(nil), outs...))
	}
	if len(ep.foldSteps) > 0 {
		ep.rest = rest
	}
}

// matches reports whether args hold, where the fold steps read them, the
// frozen literals the snapshot's results came from.
func (sn *foldSnap) matches(ep *execPlan, args []Value) bool {
	for j, a := range ep.foldArgs {
		l, ok := args[a].(*literal.Literal)
		if !ok || l == nil || !l.Frozen || !sn.args[j].is(l) {
			return false
		}
	}
	return true
}

// snapFolds keeps this run's fold results (outs, one per fold step, all
// kept or hit) with the arguments they came from, where these are all
// frozen literals.
func snapFolds(ep *execPlan, args []Value, outs [][]Value) {
	keys := make([]foldKey, len(ep.foldArgs))
	for j, a := range ep.foldArgs {
		k, ok := foldKeyOf(args[a])
		if !ok {
			return
		}
		keys[j] = k
	}
	ep.snap.Store(&foldSnap{args: keys, outs: outs})
}

// miss counts a run whose operands were not the kept ones, and turns the
// folding off (reporting true) after weightFoldMaxMisses in a row. wf.mu
// is held.
func (wf *weightFold) miss() bool {
	wf.misses++
	if wf.misses >= weightFoldMaxMisses {
		wf.off, wf.ins, wf.outs = true, nil, nil
		return true
	}
	return false
}

// keeping reports whether the step may still keep its results (folding
// not yet off): they must then not be in the caller's memory.
func (wf *weightFold) keeping() bool {
	wf.mu.Lock()
	defer wf.mu.Unlock()
	return !wf.off
}
