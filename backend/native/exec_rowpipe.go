package native

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Row pipelines: the steps of a layer norm, an RMS norm, a softmax or a
// log-softmax (a reduce over the last dims, groups reading its result
// broadcast along those dims, another reduce, another group, and the
// reshapes between them) all iterate over the same rows, and each reads
// only its own row of what the steps before it computed. Run one after
// the other, each step is a pass over the whole tensor (and a fork-join of
// its own); run as a pipeline, block of rows by block of rows, every step
// computes its part of a block while the block's values are in cache, and
// the threads split the blocks once. Every element is computed by the
// same kernels from the same values as step by step, so the bits are the
// same. The pipeline is formed at plan time from consecutive steps.

// rowPipe is consecutive steps run as a pipeline over rows.
type rowPipe struct {
	stages []pipeStage
	rdims  []int64 // the row dims R, leading in every stage
	rows   int     // their product
	// runs holds the per-run state of finished runs (*pipeRun), its
	// slices sized for these stages: a run allocates none of them (they
	// were 16 KB per run of a small transformer, a third of what it
	// allocated)
	runs sync.Pool
}

type pipeKind uint8

const (
	psGroup       pipeKind = iota // a fusion group (loop over rows × inner)
	psReduceGroup                 // a group folded into a reduce of its inner elements
	psReduce                      // a float32 reduce (add or max) over trailing dims
	psReshape                     // a reshape: a view, computed nothing
	psConst                       // a constant (evaluated once): defined first
)

type pipeStage struct {
	kind  pipeKind
	st    execStep // the step as planned alone
	inner int      // elements per row of the stage's loop (psReduce: per output)
	// psReduce: operand, init and result slots, and the fold
	in, init, out int
	isMax         bool
	// chain: a group's (or reduce group's) ops as a row chain
	// (exec_rowchain.go), nil where they are not one
	chain *rowChain
}

// pipeMinStages is the computing stages a pipeline needs at least.
const pipeMinStages = 2

// pipesEnabled switches row pipelines (tests compare both).
var pipesEnabled = true

// formRowPipes replaces runs of consecutive steps that form row pipelines
// by one step each.
func formRowPipes(ep *execPlan, slots map[*stablehlo.Value]int) {
	if !pipesEnabled {
		return
	}
	typeOf := map[int]*stablehlo.TensorType{}
	for v, s := range slots {
		if t := staticType(v); t != nil {
			typeOf[s] = t
		}
	}
	var out []execStep
	for i := 0; i < len(ep.steps); {
		p, n := pipeAt(ep.steps[i:], typeOf)
		if p == nil {
			out = append(out, ep.steps[i])
			i++
			continue
		}
		// the group computing the first reduce's operand row by row joins
		// in front (a residual add before a layer norm, a scaled and
		// masked score before a softmax)
		k := len(out) - 1
		for k >= 0 && out[k].kind == stepConst { // constants depend on none of them
			k--
		}
		if k >= 0 && out[k].kind == stepGroup && out[k].group.red == nil {
			if ps, ok := p.stage(&out[k], typeOf, map[int]bool{}); ok && ps.kind == psGroup {
				p.stages = append([]pipeStage{ps}, p.stages...)
				out = append(out[:k], out[k+1:]...)
			}
		}
		for k := range p.stages {
			ps := &p.stages[k]
			switch g := ps.st.group; {
			case ps.kind == psGroup,
				ps.kind == psReduceGroup && g.red.size > 0 && (g.red.kind == foldAdd || g.red.kind == foldMax):
				ps.chain = chainOf(g, p.rdims, ps.inner)
			}
		}
		out = append(out, execStep{kind: stepPipe, pipe: p})
		i += n
	}
	ep.steps = out
}

// pipeAt returns the pipeline starting at steps[0] and the steps it takes,
// or nil.
func pipeAt(steps []execStep, typeOf map[int]*stablehlo.TensorType) (*rowPipe, int) {
	first, ok := reduceStage(&steps[0], typeOf, nil)
	if !ok {
		return nil, 0
	}
	p := &rowPipe{rdims: first.rdims}
	p.rows = int(elemCount(p.rdims))
	if p.rows == 0 {
		return nil, 0
	}
	made := map[int]bool{} // slots the pipeline's stages define
	n, computing := 0, 0
	for ; n < len(steps); n++ {
		ps, ok := p.stage(&steps[n], typeOf, made)
		if !ok {
			break
		}
		p.stages = append(p.stages, ps)
		if ps.kind == psConst {
			continue // defined before the rows run: readable anywhere
		}
		for _, s := range stageDefs(&ps) {
			made[s] = true
		}
		if ps.kind != psReshape && ps.kind != psConst {
			computing++
		}
	}
	// trailing reshapes and constants compute nothing: leave them to the plan
	for n > 0 && (p.stages[n-1].kind == psReshape || p.stages[n-1].kind == psConst) {
		n--
		p.stages = p.stages[:n]
	}
	if computing < pipeMinStages {
		return nil, 0
	}
	return p, n
}

// reduceResult is what reduceStage finds: the stage and its row dims.
type reduceResult struct {
	pipeStage
	rdims []int64
}

// reduceStage recognises a step folding trailing dims: a reduce group, or
// a float32 add or max reduce op over a static operand.
func reduceStage(st *execStep, typeOf map[int]*stablehlo.TensorType, _ map[int]bool) (reduceResult, bool) {
	switch {
	case st.kind == stepGroup && st.group.red != nil:
		g := st.group
		if g.red.rows > 1 || len(g.red.shape) > len(g.shape) || !slices.Equal(g.shape[:len(g.red.shape)], g.red.shape) {
			return reduceResult{}, false
		}
		return reduceResult{pipeStage{kind: psReduceGroup, st: *st, inner: g.red.size}, g.red.shape}, true
	case st.kind == stepOp && st.epi == nil && st.op.op.Name == "stablehlo.reduce":
		pl := st.op
		op := pl.op
		if pl.quant || len(pl.in) != 2 || len(pl.out) != 1 || len(op.Regions) != 1 {
			return reduceResult{}, false
		}
		it, rt, ct := typeOf[pl.in[0]], typeOf[pl.out[0]], typeOf[pl.in[1]]
		if it == nil || rt == nil || ct == nil || len(ct.Shape) != 0 || it.DType() != dtype.F32 || rt.DType() != dtype.F32 || ct.DType() != dtype.F32 {
			return reduceResult{}, false
		}
		kind, ok := foldOf(binaryBody(op.Regions[0]))
		if !ok || (kind != foldAdd && kind != foldMax) {
			return reduceResult{}, false
		}
		dims, ok := op.Ints("dimensions")
		if !ok || len(dims) == 0 || !trailingDims(dims, len(it.Shape)) {
			return reduceResult{}, false
		}
		r := len(it.Shape) - len(dims)
		if !slices.Equal(it.Shape[:r], rt.Shape) {
			return reduceResult{}, false
		}
		ps := pipeStage{kind: psReduce, st: *st, inner: int(elemCount(it.Shape[r:])), in: pl.in[0], init: pl.in[1], out: pl.out[0], isMax: kind == foldMax}
		return reduceResult{ps, rt.Shape}, true
	}
	return reduceResult{}, false
}

// stage returns step st as a stage of p, given the slots the stages before
// it define, or false: its loop must run over p's rows and read the
// values of those stages only in its own rows.
func (p *rowPipe) stage(st *execStep, typeOf map[int]*stablehlo.TensorType, made map[int]bool) (pipeStage, bool) {
	nR := len(p.rdims)
	rowsOf := func(shape []int64) (int, bool) { // inner elements of a shape led by R
		if len(shape) < nR || !slices.Equal(shape[:nR], p.rdims) {
			return 0, false
		}
		return int(elemCount(shape[nR:])), true
	}
	rowStrides := literal.Strides(p.rdims)
	leavesLocal := func(g *fusedGroup) bool {
		for _, nd := range g.nodes {
			if nd.kind != fkLeaf || !made[nd.slot] {
				continue
			}
			if nd.strides == nil {
				continue // the same element: the same row
			}
			// a value of one element per row, broadcast along the row
			t := typeOf[nd.slot]
			if t == nil || int(elemCount(t.Shape)) != p.rows || len(nd.strides) != len(g.shape) {
				return false
			}
			for d, s := range nd.strides {
				if (d < nR && s != rowStrides[d]) || (d >= nR && s != 0) {
					return false
				}
			}
		}
		return true
	}
	switch {
	case st.kind == stepConst:
		return pipeStage{kind: psConst, st: *st}, true
	case st.kind == stepGroup && st.group.red == nil:
		g := st.group
		inner, ok := rowsOf(g.shape)
		if !ok || !leavesLocal(g) {
			return pipeStage{}, false
		}
		return pipeStage{kind: psGroup, st: *st, inner: inner}, true
	case st.kind == stepGroup:
		r, ok := reduceStage(st, typeOf, made)
		if !ok || !slices.Equal(r.rdims, p.rdims) || !leavesLocal(st.group) {
			return pipeStage{}, false
		}
		return r.pipeStage, true
	case st.kind == stepOp && st.epi == nil && st.op.op.Name == "stablehlo.reduce":
		r, ok := reduceStage(st, typeOf, made)
		if !ok || !slices.Equal(r.rdims, p.rdims) || made[r.init] {
			return pipeStage{}, false
		}
		return r.pipeStage, true
	case st.kind == stepOp && st.epi == nil && st.op.op.Name == "stablehlo.reshape" && len(st.op.in) == 1 && len(st.op.out) == 1:
		it, ot := typeOf[st.op.in[0]], typeOf[st.op.out[0]]
		if it == nil || ot == nil {
			return pipeStage{}, false
		}
		if _, ok := rowsOf(ot.Shape); !ok {
			return pipeStage{}, false
		}
		if made[st.op.in[0]] {
			if _, ok := rowsOf(it.Shape); !ok {
				return pipeStage{}, false
			}
		}
		return pipeStage{kind: psReshape, st: *st}, true
	}
	return pipeStage{}, false
}

// stageDefs lists the slots a stage defines.
func stageDefs(ps *pipeStage) []int {
	switch ps.kind {
	case psGroup:
		return []int{ps.st.group.out}
	case psReduceGroup:
		return []int{ps.st.group.red.out}
	case psReduce:
		return []int{ps.out}
	}
	return ps.st.op.out // reshapes, constants
}

// stageReads lists the slots a stage reads.
func stageReads(ps *pipeStage) []int {
	switch ps.kind {
	case psGroup, psReduceGroup:
		var r []int
		for _, nd := range ps.st.group.nodes {
			if nd.kind == fkLeaf {
				r = append(r, nd.slot)
			}
		}
		if ps.kind == psReduceGroup {
			r = append(r, ps.st.group.red.init)
		}
		return r
	case psReduce:
		return []int{ps.in, ps.init}
	}
	return ps.st.op.in
}

// pipeRun is a pipeline's state in one run: per stage, its output's
// bytes, the group's leaves and their views, the reduce results.
type pipeRun struct {
	out    [][]byte
	outLit []*literal.Literal
	leaves [][]*literal.Literal
	v32    [][][]float32
	v64    [][][]float64
	res    [][]float64
	start  []float64
	in32   [][]float32
	chains []chainData // the chain stages' operands, bound once per run
}

// runPipe runs a row pipeline: the stages' results are defined first (the
// reshapes as views of them), then the blocks of rows run every stage in
// turn, shared among the threads.
func (fr *frame) runPipe(p *rowPipe, al *aliases, persist *spanSet) error {
	pr := p.getRun()
	defer p.putRun(pr)
	maxInner := 1
	for i := range p.stages {
		ps := &p.stages[i]
		maxInner = max(maxInner, ps.inner)
		switch ps.kind {
		case psConst:
			if err := fr.runConst(&ps.st, persist); err != nil {
				return err
			}
			continue
		case psReshape:
			pl := ps.st.op
			in := []Value{fr.slots[pl.in[0]]}
			out, err := pl.kernel(fr, pl.op, in)
			if err != nil {
				return fmt.Errorf("%s (%s): %w", pl.op.Name, pl.op.Loc, err)
			}
			if err := checkResults(pl.op, out); err != nil {
				return err
			}
			fr.define(pl.out[0], out[0])
			al.defined(fr, pl)
			continue
		case psReduce:
			x, ok1 := fr.slots[ps.in].(*literal.Literal)
			init, ok2 := fr.slots[ps.init].(*literal.Literal)
			if !ok1 || !ok2 || x.DType != dtype.F32 || init.DType != dtype.F32 || init.Len() != 1 || x.Len() != p.rows*ps.inner {
				return fmt.Errorf("%s (%s): operands %v, %v do not fit the planned rows", ps.st.op.op.Name, ps.st.op.op.Loc, fr.slots[ps.in], fr.slots[ps.init])
			}
			pr.in32[i] = f32View(x.Data)
			pr.start[i] = init.Float64(0)
			l, err := fr.pipeOut(ps.out, dtype.F32, p.rdims)
			if err != nil {
				return err
			}
			pr.outLit[i], pr.out[i] = l, l.Data
			fr.define(ps.out, l) // computed below; read by the stages after it
			continue
		}
		g := ps.st.group
		leaves := pr.leaves[i]
		for k := range g.nodes {
			nd := &g.nodes[k]
			if nd.kind != fkLeaf || g.n == 0 {
				continue
			}
			l, err := checkLeaf(g, nd, fr.slots[nd.slot])
			if err != nil {
				return fmt.Errorf("%s (%s): %w", g.root.Name, g.root.Loc, err)
			}
			leaves[k] = l
		}
		if g.f32 {
			leafViewsInto(pr.v32[i], g, leaves)
		} else {
			leafViewsInto(pr.v64[i], g, leaves)
		}
		slot, shape := g.out, g.shape
		if g.red != nil {
			slot, shape = g.red.out, g.red.shape
			init, ok := fr.slots[g.red.init].(*literal.Literal)
			if !ok || init.DType != g.dt || init.Len() != 1 {
				return fmt.Errorf("%s (%s): init value %v", g.root.Name, g.root.Loc, fr.slots[g.red.init])
			}
			pr.start[i] = init.Float64(0)
		}
		l, err := fr.pipeOut(slot, g.dt, shape)
		if err != nil {
			return err
		}
		pr.outLit[i], pr.out[i] = l, l.Data
		fr.define(slot, l)
		if ps.chain != nil {
			ps.chain.bind(leaves, l.Data, p.rows, &pr.chains[i])
		}
	}
	// blocks of rows whose stages' values stay in the first cache levels
	blockRows := max(1, pipeBlockElems/maxInner)
	blocks := (p.rows + blockRows - 1) / blockRows
	threads := min(Threads(), blocks, max(1, p.rows*maxInner*len(p.stages)/pipeGrain))
	run := func(b int) {
		r0, r1 := b*blockRows, min(p.rows, (b+1)*blockRows)
		for i := range p.stages {
			fr.pipeStageRows(p, i, pr, r0, r1)
		}
	}
	if threads > 1 {
		parallel(threads, blocks, run)
	} else {
		for b := 0; b < blocks; b++ {
			run(b)
		}
	}
	return nil
}

// getRun returns a pipeRun for p: one a finished run left, or new, its
// slices sized for p's stages.
func (p *rowPipe) getRun() *pipeRun {
	if pr, _ := p.runs.Get().(*pipeRun); pr != nil {
		return pr
	}
	n := len(p.stages)
	pr := &pipeRun{out: make([][]byte, n), outLit: make([]*literal.Literal, n), leaves: make([][]*literal.Literal, n),
		v32: make([][][]float32, n), v64: make([][][]float64, n), res: make([][]float64, n), start: make([]float64, n), in32: make([][]float32, n),
		chains: make([]chainData, n)}
	for i := range p.stages {
		g := p.stages[i].st.group
		if p.stages[i].kind != psGroup && p.stages[i].kind != psReduceGroup || g == nil {
			continue
		}
		pr.leaves[i] = make([]*literal.Literal, len(g.nodes))
		if g.f32 {
			pr.v32[i] = make([][]float32, len(g.nodes))
		} else {
			pr.v64[i] = make([][]float64, len(g.nodes))
		}
		if g.red != nil {
			pr.res[i] = make([]float64, p.rows)
		}
	}
	return pr
}

// putRun keeps pr for p's next run, holding no value of this one.
func (p *rowPipe) putRun(pr *pipeRun) {
	clear(pr.out)
	clear(pr.outLit)
	clear(pr.in32)
	for i := range pr.leaves {
		clear(pr.leaves[i])
		clear(pr.v32[i])
		clear(pr.v64[i])
		pr.chains[i].unbind()
	}
	p.runs.Put(pr)
}

const (
	pipeBlockElems = 4096    // elements per stage and block
	pipeGrain      = 1 << 15 // element-stages per extra thread
)

// pipeOut returns the literal a stage computes into: its planned place,
// or a buffer from the arena.
func (fr *frame) pipeOut(slot int, d dtype.DType, shape []int64) (*literal.Literal, error) {
	if l := fr.plannedOut(slot, d, shape); l != nil {
		return l, nil
	}
	return takeResultFor(fr, slot, d, shape)
}

// pipeStageRows runs stage i over rows [r0, r1).
func (fr *frame) pipeStageRows(p *rowPipe, i int, pr *pipeRun, r0, r1 int) {
	ps := &p.stages[i]
	switch ps.kind {
	case psReshape, psConst:
	case psReduce:
		in, out := pr.in32[i], f32View(pr.out[i])
		foldRows32(ps.isMax, float32(pr.start[i]), in[r0*ps.inner:r1*ps.inner], ps.inner, out[r0:r1])
	case psGroup:
		if ps.chain != nil && fr.runChainRows(p, i, pr, r0, r1) {
			return
		}
		g := ps.st.group
		lo, hi := r0*ps.inner, r1*ps.inner
		if g.f32 {
			fusedRange(g, pr.leaves[i], pr.v32[i], pr.out[i], lo, hi, &scratch32)
		} else {
			fusedRange(g, pr.leaves[i], pr.v64[i], pr.out[i], lo, hi, &scratch64)
		}
	case psReduceGroup:
		if ps.chain != nil && fr.runChainRows(p, i, pr, r0, r1) {
			return
		}
		g := ps.st.group
		res := pr.res[i]
		switch {
		case g.f32 && g.dt == dtype.F32 && g.red.size > 0 && (g.red.kind == foldAdd || g.red.kind == foldMax):
			foldGroups32(g, pr.leaves[i], res, float32(pr.start[i]), g.red.kind == foldMax, r0, r1)
		case !g.f32 && g.dt == dtype.F64 && g.red.kind == foldAdd:
			foldSum64(g, pr.leaves[i], res, pr.start[i], r0, r1)
		case g.f32:
			foldGroups[float32](g, pr.leaves[i], res, pr.start[i], floatFold(g.red.kind, g.dt), r0, r1, &scratch32)
		default:
			foldGroups[float64](g, pr.leaves[i], res, pr.start[i], floatFold(g.red.kind, g.dt), r0, r1, &scratch64)
		}
		storeRow(pr.out[i], g.dt, r0, res[r0:r1])
	}
}

// describe names a pipeline for the profile.
func (p *rowPipe) describe() string {
	seen := map[string]bool{}
	var ops []string
	for i := range p.stages {
		st := &p.stages[i].st
		var names []string
		if st.group != nil {
			for _, nd := range st.group.nodes {
				names = append(names, nd.name)
			}
			if st.group.red != nil {
				names = append(names, "reduce")
			}
		} else {
			names = append(names, st.op.op.Name)
		}
		for _, n := range names {
			if n != "" && !seen[n] {
				seen[n] = true
				ops = append(ops, shortOpName(n))
			}
		}
	}
	sort.Strings(ops)
	return fmt.Sprintf("%d stages (%s) over %v rows", len(p.stages), strings.Join(ops, " "), p.rdims)
}
