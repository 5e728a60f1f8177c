package native

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The execution plan of a function body: its ops in order, with fusion
// groups replacing their member ops, broadcasts and splat constants that
// only feed groups dropped, constants evaluated once, and for each step
// the slots whose last use it is (released to the buffer arena after it).
// Nested regions keep the op-by-op interpreter.

type stepKind uint8

const (
	stepOp    stepKind = iota // an unfused op
	stepConst                 // a constant, evaluated once per plan
	stepGroup                 // a fusion group
	stepPipe                  // a row pipeline of steps (exec_rowpipe.go)
)

type execStep struct {
	kind  stepKind
	op    *opPlan
	group *fusedGroup
	pipe  *rowPipe
	// epi, on a convolution's step, is the fusion group run as its
	// epilogue (fast_conv_epi.go).
	epi *convEpiPlan
	// pairNext, on a convolution's step, lets it run with the next step,
	// the convolution reading its result (fast_conv_dwpw.go)
	pairNext bool
	// expandNext, on a pointwise convolution's step, lets it run with the
	// next two, the pair its result feeds (fast_conv_dwpw.go)
	expandNext bool
	frees      []int
	konst      *constCache
	// wfold keeps the results of a step computed from the weights alone
	// (exec_weightfold.go)
	wfold *weightFold
	// retOut is set on the steps defining a value the function returns
	// (or one a returned reshape views): the entry function's run takes
	// their buffers fresh, outside the arena's chunks, so that the
	// results leave without a copy and the chunks serve the next run.
	retOut bool
	// retDsts holds 1 + the index of a result for each returned value
	// this step computes (the first result that is it or a reshape
	// viewing it): where the caller gave that result's memory
	// (backend.ResultBuffers), the step takes it for the value (a layer
	// norm's row pipeline returns its output and its statistics).
	retDsts []retDest
}

// retDest is a returned value a step computes (its slot) and the result
// whose memory it may take.
type retDest struct{ slot, res int }

// constCache holds the value of a constant op, computed on first use and
// shared by every run of the plan (kernels never write their inputs, and
// the arena never recycles it). A failed evaluation (a cancelled run) is
// not remembered.
type constCache struct {
	mu    sync.Mutex
	done  bool
	ready atomic.Bool // done, read without the lock
	v     []Value
}

func (k *constCache) get(compute func() ([]Value, error)) ([]Value, error) {
	if k.ready.Load() {
		return k.v, nil // set once, before ready
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return k.v, nil
	}
	v, err := compute()
	if err != nil {
		return nil, err
	}
	for _, x := range v {
		if l, ok := x.(*literal.Literal); ok {
			l.Frozen = true // computed once per plan, read only after
		}
	}
	k.v, k.done = v, true
	k.ready.Store(true)
	return v, nil
}

type execPlan struct {
	steps  []execStep
	mem    *memPlan // places of the planned values (nil: none)
	args   []int
	ret    []int
	groups int
	fused  int // ops inside groups
	folded int // ops evaluated once (constants and ops of constants)

	// The weight-fold steps (exec_weightfold.go): their indexes, the
	// slots each defines and the entry arguments (indexes into args)
	// they read; rest, the other steps, where there are fold steps; snap,
	// the last run's fold results where every fold step kept or hit.
	foldSteps []int
	foldOuts  [][]int
	foldArgs  []int
	rest      []int
	snap      atomic.Pointer[foldSnap]

	// consts holds the bytes of every constant step's values (computed
	// once, the same each run), settled, once a run has computed them
	// all: a run reads it as its persistent set's base instead of adding
	// them one by one (a sort every 16 of them: 111 constants in
	// gpt2_tiny's plan); nconst counts those steps (constSteps)
	consts atomic.Pointer[spanSet]
	nconst int
}

// constSteps counts the plan's constant steps, those of its row
// pipelines included.
func (ep *execPlan) constSteps() int {
	n := 0
	for i := range ep.steps {
		st := &ep.steps[i]
		if st.kind == stepConst {
			n++
		}
		if st.pipe != nil {
			for k := range st.pipe.stages {
				if st.pipe.stages[k].kind == psConst {
					n++
				}
			}
		}
	}
	return n
}

// noMemPlan disables memory plans (TORCHTPU_NATIVE_MEMPLAN=0): every
// value takes its buffer from the arena at run time.
var noMemPlan = os.Getenv("TORCHTPU_NATIVE_MEMPLAN") == "0"

// noFusion disables execution plans (TORCHTPU_NATIVE_PLAN=0): every
// function is interpreted op by op, each kernel allocating its result.
var noFusion = os.Getenv("TORCHTPU_NATIVE_PLAN") == "0"

// buildExec plans the body block of a function.
func buildExec(bp *blockPlan, slots map[*stablehlo.Value]int) *execPlan {
	u := useInfo(bp, slots)
	folded := constantOps(bp)
	fu := planFusion(bp, u, slots, folded)
	ep := &execPlan{args: bp.args, ret: bp.ret}
	redGroup := map[int]*fusedGroup{} // reduce op index -> group folded into it
	for g, k := range fu.redAt {
		redGroup[k] = fu.groups[g]
	}
	for k := range bp.ops {
		pl := &bp.ops[k]
		switch {
		case redGroup[k] != nil:
			g := redGroup[k]
			ep.steps = append(ep.steps, execStep{kind: stepGroup, group: g})
			ep.groups++
			ep.fused += g.nops + 1
		case fu.grp[k] >= 0:
			g := fu.groups[fu.grp[k]]
			if g.root != pl.op || g.red != nil {
				continue
			}
			ep.steps = append(ep.steps, execStep{kind: stepGroup, group: g})
			ep.groups++
			ep.fused += g.nops
		case fu.skip[k]:
			continue
		case folded[k]:
			ep.steps = append(ep.steps, execStep{kind: stepConst, op: pl, konst: &constCache{}})
			ep.folded++
		default:
			ep.steps = append(ep.steps, execStep{kind: stepOp, op: pl})
		}
	}
	mergeEpilogues(ep, bp, u, fu)
	formRowPipes(ep, slots)
	markWeightFolds(ep, bp, slots)
	pairConvSteps(ep, bp, u)
	planFoldSkip(ep)
	ep.nconst = ep.constSteps()
	// Liveness: the last step reading each slot.
	last := map[int]int{}
	defAt := map[int]int{}
	for i := range ep.steps {
		st := &ep.steps[i]
		switch st.kind {
		case stepPipe:
			for k := range st.pipe.stages {
				ps := &st.pipe.stages[k]
				for _, s := range stageDefs(ps) {
					defAt[s] = i
				}
				for _, s := range stageReads(ps) {
					last[s] = i
				}
			}
		case stepGroup:
			if r := st.group.red; r != nil {
				defAt[r.out] = i
				last[r.init] = i
			} else {
				defAt[st.group.out] = i
			}
			for _, nd := range st.group.nodes {
				if nd.kind == fkLeaf {
					last[nd.slot] = i
				}
			}
		default:
			for _, s := range st.op.out {
				defAt[s] = i
			}
			for _, s := range st.op.in {
				last[s] = i
			}
			for _, s := range regionReads(st.op.op, slots) {
				if _, ok := defAt[s]; ok || u.arg[s] {
					last[s] = i
				}
			}
			if st.epi != nil {
				g := st.epi.g
				defAt[g.out] = i
				for _, nd := range g.nodes {
					if nd.kind == fkLeaf {
						last[nd.slot] = i
					}
				}
			}
		}
	}
	returned := map[int]bool{}
	for _, s := range bp.ret {
		returned[s] = true
	}
	for s, i := range defAt {
		if returned[s] {
			continue
		}
		at, read := last[s]
		if !read || at < i {
			at = i
		}
		ep.steps[at].frees = append(ep.steps[at].frees, s)
	}
	markReturned(ep, bp, u, defAt)
	if !noMemPlan {
		ep.mem = planMemory(ep, bp, slots)
	}
	for i := range ep.steps {
		sortInts(ep.steps[i].frees)
		g := ep.steps[i].group
		if e := ep.steps[i].epi; e != nil {
			g = e.g
		}
		if g != nil {
			var keep []int
			for _, s := range g.inplace {
				if last[s] == i && !returned[s] {
					keep = append(keep, s)
				}
			}
			g.inplace = keep
		}
	}
	return ep
}

// markReturned sets retOut on the steps defining returned values, and,
// through reshapes (views of their operand), the values they view; and
// retDsts: per returned value a step computes, the first result that is
// it or a view of it. A value returned both as it is and reshaped (a
// forward saving [n, d] and [b, t, d] views of one product for the
// backward) is computed into the first result's memory; the others view
// it and are copied to theirs.
func markReturned(ep *execPlan, bp *blockPlan, u *blockUses, defAt map[int]int) {
	seen := map[[2]int]bool{} // {step, value} given a result already
	for r, s := range bp.ret {
		for hops := 0; hops < 8; hops++ {
			at, ok := defAt[s]
			if !ok {
				break
			}
			st := &ep.steps[at]
			st.retOut = true
			if key := [2]int{at, s}; !seen[key] && st.kind != stepConst { // a constant has no result of its own
				seen[key] = true
				st.retDsts = append(st.retDsts, retDest{slot: s, res: r})
			}
			k, ok := u.def[s]
			if !ok || bp.ops[k].op.Name != "stablehlo.reshape" || len(bp.ops[k].in) != 1 {
				break
			}
			s = bp.ops[k].in[0]
		}
	}
}

// foldableOps are the deterministic ops without side effects or regions
// whose results depend only on their operands and attributes.
var foldableOps = map[string]bool{
	"stablehlo.constant": true, "stablehlo.iota": true, "stablehlo.broadcast_in_dim": true,
	"stablehlo.reshape": true, "stablehlo.transpose": true, "stablehlo.slice": true,
	"stablehlo.concatenate": true, "stablehlo.pad": true, "stablehlo.reverse": true,
	"stablehlo.dynamic_slice": true, "stablehlo.gather": true, "stablehlo.convert": true,
	"stablehlo.compare": true, "stablehlo.select": true, "stablehlo.clamp": true,
	"stablehlo.abs": true,
}

// constantOps marks the ops computed from constants alone: their values
// are the same on every run, so the plan evaluates them once.
func constantOps(bp *blockPlan) []bool {
	folded := make([]bool, len(bp.ops))
	isConst := map[int]bool{}
	for k := range bp.ops {
		pl := &bp.ops[k]
		name := pl.op.Name
		_, un := unaryTable[name]
		_, bin := binaryTable[name]
		if pl.quant || len(pl.op.Regions) != 0 || !(foldableOps[name] || un || bin) {
			continue
		}
		if name == "stablehlo.constant" && len(pl.in) != 0 {
			continue
		}
		ok := true
		for _, s := range pl.in {
			ok = ok && isConst[s]
		}
		if !ok {
			continue
		}
		folded[k] = true
		for _, s := range pl.out {
			isConst[s] = true
		}
	}
	return folded
}

// recyclable reports whether buffers of m's runs may be recycled: no op
// hands values to other processes or keeps them (collectives, the
// interpreter dialect's probes, custom calls).
func recyclable(m *stablehlo.Module) bool {
	ok := true
	for _, f := range m.Funcs {
		if f.Body == nil {
			continue
		}
		_ = f.Body.Walk(func(op *stablehlo.Op) error {
			n := op.Name
			if strings.HasPrefix(n, "interpreter.") || strings.HasPrefix(n, "check.") ||
				strings.HasPrefix(n, "stablehlo.all_") || strings.HasPrefix(n, "stablehlo.collective_") ||
				strings.HasPrefix(n, "stablehlo.reduce_scatter") || strings.HasPrefix(n, "stablehlo.send") ||
				strings.HasPrefix(n, "stablehlo.recv") || strings.HasPrefix(n, "stablehlo.infeed") ||
				strings.HasPrefix(n, "stablehlo.outfeed") || n == "stablehlo.custom_call" {
				ok = false
			}
			return nil
		})
	}
	return ok
}

// summary describes the plan: steps by kind and op name, fusion counts.
func (ep *execPlan) summary() string {
	count := map[string]int{}
	var names []string
	for _, st := range ep.steps {
		n := st.name()
		switch {
		case st.kind == stepConst:
			n = "evaluated once"
		case st.kind == stepPipe:
			n = "row pipeline"
		case st.group != nil && st.group.red != nil:
			n = "fusion->reduce"
		case st.group != nil:
			n = "fusion"
		case st.epi != nil:
			n += "+fusion"
		}
		if count[n] == 0 {
			names = append(names, n)
		}
		count[n]++
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%d steps, %d fusion groups of %d ops, %d ops evaluated once:", len(ep.steps), ep.groups, ep.fused, ep.folded)
	for _, n := range names {
		fmt.Fprintf(&b, " %s×%d", n, count[n])
	}
	return b.String()
}
