package native

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Row chains: a row pipeline's stage whose fusion group is one chain of
// float32 ops, each taking the value before it and one operand that is a
// row of a tensor, the same row for every row (a layer norm's weight), one
// value per row broadcast along it (a mean, a maximum, a reciprocal
// standard deviation) or a constant — a layer norm's ((x − mean) · rstd) ·
// γ + β, its (x − mean)², a softmax's exp(x − max) and its division by the
// sum — runs op by op over a block's rows, in place, each op on the
// vector kernels the fused loops use: one call for the block where the
// operand is a row of a tensor, a constant or none (a unary op), one per
// row for a per-row value or the shared row. The chunked loop computed
// every node into a scratch row, and first spread each per-row value over
// its row (and copied γ and β per chunk): ~1 cycle per element and node
// for rows of 64 to 768. The ops, their operand order and the kernels are
// those of the fused loop, so the bits are the same
// (TestRowPipesMatchSteps runs both).

// rowChainsEnabled switches row chains (off: the chunked loop runs every
// stage; for measuring one against the other).
var rowChainsEnabled = true

// chainRuns counts the blocks of rows a chain ran (tests check that the
// chains they plan do run).
var chainRuns atomic.Int64

// chainMinInner is the shortest row a product's epilogue runs on as a
// chain: on shorter ones its calls per row segment cost more than the
// chunked loop.
const chainMinInner = 8

// chainArgKind is where an operand of a chain step comes from.
type chainArgKind uint8

const (
	caRow       chainArgKind = iota // row r of a tensor (a leaf read in place)
	caCol                           // the same row of n values for every row
	caRowScalar                     // one value per row (element r)
	caConst                         // a constant
	caSelf                          // the chain's value itself (x · x)
	caMask                          // a bool tensor's row (exec_rowchain_select.go)
)

type chainArg struct {
	kind chainArgKind
	node int     // the leaf's node (caRow, caCol, caRowScalar, caMask)
	c    float32 // caConst
	mask *maskRows
}

// chainStep is d = d op arg (left) or arg op d, a unary op on d,
// (op stepSelect) a select between d and arg by a comparison of two
// per-row values or constants (attention's softmax: a row whose maximum
// is −∞ is zeros): compare(cmpA, cmpB) ? d : arg where left, else
// arg : d, or (op stepMask) a select between d and arg by a bool tensor
// (attention's mask): mask ? d : arg where left, else mask ? arg : d.
type chainStep struct {
	op         int // binOp index; stepUnary: un; stepSelect; stepMask
	un         vmathFn
	arg        chainArg
	left       bool
	dir        string // stepSelect: the comparison
	cmpA, cmpB chainArg
	mask       chainArg // stepMask: the bool operand (caMask)
}

const (
	stepUnary  = -1
	stepSelect = -2
	stepMask   = -3
)

// rr runs the step's op on m elements of x and y, x on the side the
// chain's value is (left: x op y, else y op x), into dst.
func (st *chainStep) rr(dst, x, y *float32, m int) {
	if st.left {
		binRR(st.op, dst, x, y, m)
	} else {
		binRR(st.op, dst, y, x, m)
	}
}

// rs is rr with y one value for all m elements.
func (st *chainStep) rs(dst, x *float32, v float32, m int) {
	if st.left {
		binRS(st.op, dst, x, v, m)
	} else {
		binSR(st.op, dst, v, x, m)
	}
}

// rowChain is a stage's group as a chain: the first value is the leaf
// first (a row), then each step.
type rowChain struct {
	first chainArg
	steps []chainStep
	inner int // elements per row
	// rowLeaves are the steps' caRow operands: the output must not
	// overlap them, as a later step would read what an earlier one wrote
	// (an in-place result is computed by the chunked loop instead)
	rowLeaves []int
}

// chainOf returns g as a row chain for a pipeline stage of rows rdims with
// inner elements per row, or nil.
func chainOf(g *fusedGroup, rdims []int64, inner int) *rowChain {
	if !rowChainsEnabled || !simdRows || !g.f32 || g.dt != dtype.F32 || inner < 1 || len(g.shape) < len(rdims) {
		return nil
	}
	nR := len(rdims)
	rowStrides := literal.Strides(rdims)
	innerStrides := literal.Strides(g.shape[nR:])
	args := make([]chainArg, len(g.nodes))
	isArg := make([]bool, len(g.nodes))
	for i := range g.nodes {
		nd := &g.nodes[i]
		switch nd.kind {
		case fkLeaf:
			if nd.dt == dtype.Bool {
				a, ok := maskArg(nd, i, rdims, inner, innerStrides)
				if !ok {
					return nil
				}
				args[i], isArg[i] = a, true
				continue
			}
			if nd.dt != dtype.F32 {
				return nil
			}
			a, ok := leafArg(nd, i, g.shape, nR, rowStrides, innerStrides)
			if !ok {
				return nil
			}
			if inner == 1 && a.kind == caRowScalar {
				// rows of one element (a variance's rsqrt): its own
				// row, the block's rows one call
				a.kind = caRow
			}
			args[i], isArg[i] = a, true
		case fkScalar:
			args[i], isArg[i] = chainArg{kind: caConst, c: float32(nd.scalar)}, true
		}
	}
	ch := &rowChain{inner: inner}
	cur := -1 // the node holding the chain's value
	// a select's choices: the chain's value on one side (x: left), a
	// per-row value or a constant on the other
	perRow := func(k int) bool {
		return isArg[k] && (args[k].kind == caRowScalar || args[k].kind == caConst)
	}
	pick := func(st *chainStep, x, y int) bool {
		switch {
		case x == cur && perRow(y):
			st.arg, st.left = args[y], true
		case y == cur && perRow(x):
			st.arg = args[x]
		default:
			return false
		}
		return true
	}
	for i := range g.nodes {
		nd := &g.nodes[i]
		if isArg[i] {
			continue
		}
		if nd.kind == fkNop {
			continue // a compare folded into its select
		}
		if nd.dt != dtype.F32 {
			return nil
		}
		switch {
		case nd.kind == fkCmpSelect && cur >= 0 && cmpDirOK(nd.cmp):
			// a per-row choice between the chain and a value
			a, b, x, y := nd.args[0], nd.args[1], nd.args[2], nd.args[3]
			if !perRow(a) || !perRow(b) {
				return nil
			}
			st := chainStep{op: stepSelect, dir: nd.cmp, cmpA: args[a], cmpB: args[b]}
			if !pick(&st, x, y) {
				return nil
			}
			ch.steps = append(ch.steps, st)
		case nd.kind == fkSelect && cur >= 0 && isArg[nd.args[0]] && args[nd.args[0]].kind == caMask:
			// a choice by a bool tensor between the chain and a value
			st := chainStep{op: stepMask, mask: args[nd.args[0]]}
			if !pick(&st, nd.args[1], nd.args[2]) {
				return nil
			}
			ch.steps = append(ch.steps, st)
		case nd.kind == fkUnary && nd.v32 != nil:
			a := nd.args[0]
			if cur < 0 {
				if !isArg[a] || args[a].kind != caRow {
					return nil
				}
				ch.first = args[a]
			} else if a != cur {
				return nil
			}
			ch.steps = append(ch.steps, chainStep{op: stepUnary, un: nd.v32})
		case nd.kind == fkBinary && binOp(nd.name) >= 0:
			a, b := nd.args[0], nd.args[1]
			st := chainStep{op: binOp(nd.name)}
			switch {
			case cur < 0:
				// the chain starts at a row operand
				switch {
				case isArg[a] && args[a].kind == caRow && isArg[b]:
					ch.first, st.arg, st.left = args[a], args[b], true
				case isArg[b] && args[b].kind == caRow && isArg[a]:
					ch.first, st.arg = args[b], args[a]
				default:
					return nil
				}
				if st.arg.kind == caRow && st.arg.node == ch.first.node {
					st.arg = chainArg{kind: caSelf}
				}
			case a == cur && b == cur:
				st.arg, st.left = chainArg{kind: caSelf}, true
			case a == cur && isArg[b]:
				st.arg, st.left = args[b], true
			case b == cur && isArg[a]:
				st.arg = args[a]
			default:
				return nil // not a chain
			}
			ch.steps = append(ch.steps, st)
		default:
			return nil
		}
		cur = i
	}
	if cur != len(g.nodes)-1 || len(ch.steps) == 0 {
		return nil
	}
	for _, st := range ch.steps {
		if st.op != stepUnary && st.arg.kind == caRow && !slices.Contains(ch.rowLeaves, st.arg.node) {
			ch.rowLeaves = append(ch.rowLeaves, st.arg.node)
		}
	}
	return ch
}

// perRowOperand reports whether a step of the chain takes a per-row value,
// the same row for every row or a per-row choice: a product's epilogue is
// a chain only then (rows of rows alone, a residual add, run as the
// chunked loop after the product).
func (ch *rowChain) perRowOperand() bool {
	return slices.ContainsFunc(ch.steps, func(st chainStep) bool {
		return st.op == stepSelect || st.op >= 0 && (st.arg.kind == caRowScalar || st.arg.kind == caCol)
	})
}

// leafArg classifies a leaf of a stage's group (of shape): read in place
// (a row), one value per row, or the same row for all rows. A dim of size
// 1 has one index: its stride does not matter.
func leafArg(nd *fuseNode, i int, shape []int64, nR int, rowStrides, innerStrides []int64) (chainArg, bool) {
	if nd.strides == nil {
		return chainArg{kind: caRow, node: i}, true
	}
	if len(nd.strides) != nR+len(innerStrides) {
		return chainArg{}, false
	}
	perRow, perCol := true, true
	for d, s := range nd.strides {
		if d < len(shape) && shape[d] == 1 {
			continue
		}
		if d < nR {
			perRow = perRow && s == rowStrides[d]
			perCol = perCol && s == 0
		} else {
			perRow = perRow && s == 0
			perCol = perCol && s == innerStrides[d-nR]
		}
	}
	switch {
	case perRow:
		return chainArg{kind: caRowScalar, node: i}, true
	case perCol:
		return chainArg{kind: caCol, node: i}, true
	}
	return chainArg{}, false
}

// chainData is a chain's operands in one run: per node, its float32
// elements in place. ok is set where bind found them as planned.
type chainData struct {
	leaves [][]float32
	masks  [][]byte // caMask operands' bytes, by node
	ok     bool
}

// unbind drops the run's operands (the pipeRun is kept for the next run).
func (d *chainData) unbind() {
	clear(d.leaves)
	clear(d.masks)
	d.ok = false
}

// bind sets d to the operands of the chain's leaves for rows rows, once per
// run before the blocks run; d.ok stays false where a leaf is not as
// planned (not float32 in place, another size) or the output overlaps a
// row a step reads.
func (ch *rowChain) bind(leaves []*literal.Literal, out []byte, rows int, d *chainData) {
	d.ok = ch.bound(leaves, out, rows, d)
}

func (ch *rowChain) bound(leaves []*literal.Literal, out []byte, rows int, d *chainData) bool {
	if cap(d.leaves) < len(leaves) {
		d.leaves = make([][]float32, len(leaves))
	}
	d.leaves = d.leaves[:len(leaves)]
	clear(d.leaves)
	if cap(d.masks) < len(leaves) {
		d.masks = make([][]byte, len(leaves))
	}
	d.masks = d.masks[:len(leaves)]
	clear(d.masks)
	n := ch.inner
	o := spanOf(out)
	need := func(a chainArg) bool {
		if a.kind == caConst || a.kind == caSelf {
			return true
		}
		l := leaves[a.node]
		if l == nil || l.DType != dtype.F32 {
			return false
		}
		v := f32Bytes(l.Data)
		want := rows * n
		switch a.kind {
		case caCol:
			want = n
		case caRowScalar:
			want = rows
		}
		if len(v) != want {
			return false
		}
		d.leaves[a.node] = v
		return true
	}
	if !need(ch.first) {
		return false
	}
	for _, st := range ch.steps {
		switch {
		case st.op >= 0 && !need(st.arg),
			st.op == stepSelect && (!need(st.arg) || !need(st.cmpA) || !need(st.cmpB)),
			st.op == stepMask && (!need(st.arg) || !d.needMask(st.mask, leaves, o)):
			return false
		}
	}
	for _, k := range ch.rowLeaves {
		if o.overlaps(spanOf(floatBytes(d.leaves[k]))) {
			return false
		}
	}
	return true
}

// rows computes rows [r0, r1) of the chain into dst (their elements, row
// after row), step by step: a step whose operand is a row of a tensor, a
// constant or the value itself, and a unary op, is one call over all the
// rows (they lie end to end); a step with a per-row value or the same row
// for every row is a call per row. The first step reads the first leaf,
// each later one dst.
func (ch *rowChain) rows(d *chainData, r0, r1 int, dst []float32) {
	n := ch.inner
	m := (r1 - r0) * n
	x := d.leaves[ch.first.node][r0*n : r1*n]
	dst = dst[:m]
	for i := range ch.steps {
		st := &ch.steps[i]
		switch a := st.arg; {
		case st.op == stepMask:
			st.maskRows(d, r0, r1, n, dst, x)
		case st.op == stepSelect:
			// rows where the comparison picks arg are filled with it;
			// the others keep the chain's value (x is dst: never first)
			for r := r0; r < r1; r++ {
				if cmp32(d.value(st.cmpA, r), d.value(st.cmpB, r), st.dir) != st.left {
					v := d.value(a, r)
					row := dst[(r-r0)*n : (r-r0+1)*n]
					for k := range row {
						row[k] = v
					}
				}
			}
		case st.op == stepUnary:
			st.un(dst, x)
		case a.kind == caSelf:
			binRR(st.op, &dst[0], &x[0], &x[0], m)
		case a.kind == caRow:
			y := d.leaves[a.node][r0*n : r1*n]
			st.rr(&dst[0], &x[0], &y[0], m)
		case a.kind == caConst:
			st.rs(&dst[0], &x[0], a.c, m)
		case a.kind == caCol && rowsBatched(st.op):
			// one call for the block's rows (fuse_rows_batch_amd64.s)
			y := &d.leaves[a.node][0]
			if st.left {
				binRows(st.op, &dst[0], &x[0], y, n, r1-r0, n, 0)
			} else {
				binRows(st.op, &dst[0], y, &x[0], n, r1-r0, 0, n)
			}
		case a.kind == caRowScalar && rowsBatched(st.op):
			v := &d.leaves[a.node][r0]
			if st.left {
				binRowsV(st.op, &dst[0], &x[0], v, n, r1-r0, n)
			} else {
				binVRows(st.op, &dst[0], &x[0], v, n, r1-r0, n)
			}
		case a.kind == caCol && n < shortRow && m > n:
			// short rows: the row's values tiled over all rows, one call
			y := d.leaves[a.node][:n]
			bp, t := chainSpread(m)
			for k := 0; k < m; k += n {
				copy(t[k:k+n], y)
			}
			st.rr(&dst[0], &x[0], &t[0], m)
			chainScratch.Put(bp)
		case a.kind == caCol:
			y := &d.leaves[a.node][0]
			for k := 0; k < m; k += n {
				st.rr(&dst[k], &x[k], y, n)
			}
		case n < shortRow && m > n:
			// caRowScalar over short rows: each row's scalar repeated
			// along its row, then one call for all rows (a call per row
			// of a dozen elements costs more than the op)
			v := d.leaves[a.node][r0:r1]
			bp, t := chainSpread(m)
			for j, k := 0, 0; k < m; j, k = j+1, k+n {
				row := t[k : k+n]
				for c := range row {
					row[c] = v[j]
				}
			}
			st.rr(&dst[0], &x[0], &t[0], m)
			chainScratch.Put(bp)
		default: // caRowScalar
			v := d.leaves[a.node][r0:r1]
			for j, k := 0, 0; k < m; j, k = j+1, k+n {
				st.rs(&dst[k], &x[k], v[j], n)
			}
		}
		x = dst
	}
}

// shortRow is the row length under which a chain step with a per-row
// operand runs as one call over operands spread to all rows.
const shortRow = 64

// chainSpread returns scratch for m elements of a spread operand (from
// chainScratch: the caller puts bp back).
func chainSpread(m int) (*[]float32, []float32) {
	bp := chainScratch.Get().(*[]float32)
	if cap(*bp) < m {
		*bp = make([]float32, m)
	}
	return bp, (*bp)[:m]
}

// seg computes columns [j0, j1) of row r of the chain into dst (j1 − j0
// elements), step by step as rows does: the part of a row a product's
// epilogue is handed (fast_dot_epi.go). The first step reads the first
// leaf's elements, each later one dst; dst may be those elements (in
// place).
func (ch *rowChain) seg(d *chainData, r, j0, j1 int, dst []float32) {
	m := j1 - j0
	if m <= 0 {
		return
	}
	o := r*ch.inner + j0
	x := d.leaves[ch.first.node][o : o+m]
	dst = dst[:m]
	for i := range ch.steps {
		st := &ch.steps[i]
		switch a := st.arg; {
		case st.op == stepMask:
			st.maskSeg(d, r, j0, dst, x)
		case st.op == stepSelect:
			if cmp32(d.value(st.cmpA, r), d.value(st.cmpB, r), st.dir) != st.left {
				v := d.value(a, r)
				for k := range dst {
					dst[k] = v
				}
			}
		case st.op == stepUnary:
			st.un(dst, x)
		case a.kind == caSelf:
			binRR(st.op, &dst[0], &x[0], &x[0], m)
		case a.kind == caRow || a.kind == caCol:
			y := d.leaves[a.node]
			if a.kind == caRow {
				y = y[o : o+m]
			} else {
				y = y[j0:j1]
			}
			st.rr(&dst[0], &x[0], &y[0], m)
		case a.kind == caConst:
			st.rs(&dst[0], &x[0], a.c, m)
		default: // caRowScalar
			v := d.leaves[a.node][r]
			st.rs(&dst[0], &x[0], v, m)
		}
		x = dst
	}
}

// value is a per-row or constant operand's value for row r.
func (d *chainData) value(a chainArg, r int) float32 {
	if a.kind == caRowScalar {
		return d.leaves[a.node][r]
	}
	return a.c
}

// chainScratch holds the rows a reduce stage's chain computes before
// folding them.
var chainScratch = sync.Pool{New: func() any { return new([]float32) }}

// runChainRows runs stage i of p, a chain, over rows [r0, r1): a group's
// rows into its output, a reduce group's rows folded as foldGroups32 folds
// them. It reports false (nothing done) where the run's operands are not
// as planned; the caller then runs the stage's chunked loop.
func (fr *frame) runChainRows(p *rowPipe, i int, pr *pipeRun, r0, r1 int) bool {
	ps := &p.stages[i]
	ch, g, d := ps.chain, ps.st.group, &pr.chains[i]
	if !d.ok {
		return false
	}
	chainRuns.Add(1)
	n := ch.inner
	if ps.kind == psGroup {
		out := f32Bytes(pr.out[i])
		if len(out) != p.rows*n {
			return false
		}
		ch.rows(d, r0, r1, out[r0*n:r1*n])
		return true
	}
	// a reduce group: the rows computed into scratch, then each folded
	bp := chainScratch.Get().(*[]float32)
	defer chainScratch.Put(bp)
	if cap(*bp) < (r1-r0)*n {
		*bp = make([]float32, (r1-r0)*n)
	}
	buf := (*bp)[:(r1-r0)*n]
	ch.rows(d, r0, r1, buf)
	res := pr.res[i]
	var part [foldRowsBlock]float32
	for q0 := r0; q0 < r1; q0 += foldRowsBlock {
		q1 := min(r1, q0+foldRowsBlock)
		p := part[:q1-q0]
		foldRows32(g.red.kind == foldMax, float32(pr.start[i]), buf[(q0-r0)*n:(q1-r0)*n], n, p)
		for k, v := range p {
			res[q0+k] = float64(v)
		}
	}
	storeRow(pr.out[i], g.dt, r0, res[r0:r1])
	return true
}
