package native

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Convolution epilogues. In a CNN each convolution is followed by batch
// norm in inference form (per-channel multiply and add), ReLU and, in
// residual blocks, the add of the skip connection: one fusion group that
// reads the convolution's output once more after the convolution wrote
// all of it, a second pass over memory. When that group is the only
// reader of the output, the plan runs both in one step: the fast
// convolution applies the group to each part of its output as a work
// item finishes it (a column chunk of all the rows, or a band of rows of
// all the columns), while it is still in cache, and writes the group's
// result in place; the convolution's own value never exists apart.
//
// Each element is computed by the same group nodes from the same values
// as in the separate loop (the fused loops' results do not depend on how
// the elements are cut into chunks), so the results are bit for bit the
// same. Where the fast convolution declines at run time, the step runs
// the convolution kernel and then the group, as two steps would.

// convEpiEnabled switches the fused epilogues at run time (tests compare
// both); convEpiHits counts the fused runs, convEpiAfter the fast
// convolutions that ran their epilogue after, in one pass (epiRuns).
var (
	convEpiEnabled = true
	convEpiHits    atomic.Int64
	convEpiAfter   atomic.Int64
	convEpiFlat    atomic.Int64 // of those after, the ones run as a flat chain
)

// convEpiPlan is a fusion group planned as a convolution's epilogue: a
// chain of nodes, each of which reads the value before it (first the
// convolution's, leaf self) and otherwise constants, per-channel values,
// other tensors of the output's shape and side nodes: nodes off the chain
// computed from those alone (the batch norm of a residual block's
// downsampling branch, added to the main branch's).
type convEpiPlan struct {
	g     *fusedGroup
	self  int   // the node of the convolution's result
	chain []int // the compute nodes, in order; the last is the group's root
	// nodes are the compute nodes in the group's order, chain and side
	// nodes (side[i] set) together
	nodes []int
	side  []bool
	// affine, when set, is the chain's shape (x·a + b, + r, ReLU-like
	// select, clamp) that affineRows32 runs in one pass: the nodes of a,
	// b, r (-1: none), of the select's threshold and value (-1: no
	// select), and of the clamp's constant bounds (folded nanmax and
	// nanmin nodes, fuse_clamp.go; -1: none).
	affine      bool
	a, b, r     int
	thr, selVal int
	lo, hi      int
	ka, kb      float32 // the values of a and b where they are constants
	// rc, re, when r is read through side nodes r·rc + re (the batch
	// norm of a downsampling branch), are their nodes (-1: r as it is),
	// and kc, ke their values where constants
	rc, re int
	kc, ke float32
	// act, when set, is the vector row of a last unary node (SiLU,
	// hardswish, GELU, ...) that the affine kernel's rows go through
	// after it, in place, while they are in cache
	act vmathFn
	// flat is the group as a row chain over its images (rows of all the
	// channels and positions), for the convolutions whose epilogue runs
	// after them (epiLater: squeeze-and-excitation's [b, c, 1, 1]
	// products, one position per channel); nil where it is none
	flat *rowChain
	// dot, on a product's step, is the group as a row chain over the
	// product's rows (fast_dot_epi.go): the plan of a product epilogue
	dot *rowChain
	// dotRuns keeps a product epilogue's per-run state (*dotEpiRun)
	dotRuns sync.Pool
}

// convEpilogue is a planned epilogue at run time: the leaves, their
// in-place views and the output, which the chain overwrites.
type convEpilogue struct {
	*convEpiPlan
	leaves []*literal.Literal
	views  [][]float32
	out    []float32
	outC   int // channels of the output (dim 1)
	n      int // elements per channel and image
	// for the affine kernel: the values of a and b (channel 0 first, sa
	// and sb apart), and the arguments that do not change
	av, bv []float32
	sa, sb int
	cv, ev []float32 // r's scale and shift (flags&64)
	sc, se int
	args   epiArgs
}

// mergeEpilogues joins each fusion group that can be a convolution's
// epilogue (convEpiSource) or a product's (dotEpiSource) with that
// convolution or product: the group's step becomes the convolution's,
// carrying the group, and the convolution's own step goes. The
// convolution thus runs later than planned, right before the group, which
// is sound as nothing else reads its result.
func mergeEpilogues(ep *execPlan, bp *blockPlan, u *blockUses, fu *fusion) {
	convStep := map[int]int{} // result slot -> step of the convolution
	dotStep := map[int]int{}  // result slot -> step of the product (fast_dot_epi.go)
	for i := range ep.steps {
		st := &ep.steps[i]
		if st.kind != stepOp || st.op.quant || len(st.op.out) != 1 {
			continue
		}
		switch st.op.op.Name {
		case "stablehlo.convolution":
			if convOutputNCHW(st.op.op) {
				convStep[st.op.out[0]] = i
			}
		case "stablehlo.dot_general":
			dotStep[st.op.out[0]] = i
		}
	}
	if len(convStep) == 0 && len(dotStep) == 0 {
		return
	}
	gi := map[*fusedGroup]int{}
	for i, g := range fu.groups {
		gi[g] = i
	}
	drop := map[int]bool{}
	for i := range ep.steps {
		st := &ep.steps[i]
		if st.kind != stepGroup {
			continue
		}
		j, pl := convEpiSource(st.group, gi[st.group], i, ep.steps, convStep, bp, u, fu)
		if j < 0 {
			j, pl = dotEpiSource(st.group, gi[st.group], i, ep.steps, dotStep, bp, u, fu)
		}
		if j < 0 || drop[j] {
			continue
		}
		*st = execStep{kind: stepOp, op: ep.steps[j].op, epi: pl}
		drop[j] = true
	}
	if len(drop) == 0 {
		return
	}
	keep := ep.steps[:0]
	for i, st := range ep.steps {
		if !drop[i] {
			keep = append(keep, st)
		}
	}
	ep.steps = keep
}

// convEpiSource returns the step (before step at) of the convolution whose
// epilogue group g (of index gi) can be, and the plan, or -1. The group
// must be an f32 loop (no reduce) over the convolution's rank-4 result
// shape whose leaves are the result itself and other f32 tensors of that
// shape, all read with identity indexing, and per-channel vectors or
// scalars (broadcast along dim 1, the output features of the NCHW
// convolutions the fast path runs); the result must be read by g's ops
// alone, and g must be a chain from it (convEpiChain).
func convEpiSource(g *fusedGroup, gi, at int, steps []execStep, convStep map[int]int, bp *blockPlan, u *blockUses, fu *fusion) (int, *convEpiPlan) {
	if g.red != nil || !g.f32 || g.dt != dtype.F32 || len(g.shape) != 4 || g.n == 0 {
		return -1, nil
	}
	for k := range g.nodes {
		nd := &g.nodes[k]
		if nd.kind != fkLeaf {
			continue
		}
		if nd.dt != dtype.F32 {
			return -1, nil
		}
		for d, st := range nd.strides {
			if st != 0 && d != 1 {
				return -1, nil
			}
		}
	}
	for k := range g.nodes {
		nd := &g.nodes[k]
		if nd.kind != fkLeaf || nd.strides != nil {
			continue
		}
		j, ok := convStep[nd.slot]
		if !ok || j >= at || !convOnlyFeeds(nd.slot, steps[j].op.op.Results[0], g, gi, bp, u, fu, false) {
			continue
		}
		if pl := convEpiChain(g, k); pl != nil {
			pl.flat = flatChain(g, k)
			return j, pl
		}
	}
	return -1, nil
}

// convOutputNCHW reports whether op's output has its batch in dim 0 and
// its features in dim 1, the layout the epilogues index.
func convOutputNCHW(op *stablehlo.Op) bool {
	d, ok := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
	return ok && d.OutputBatchDim == 0 && d.OutputFeatureDim == 1
}

// convOnlyFeeds reports whether slot s, a convolution's result v, has
// g's shape and f32 elements and is read by members of group gi alone:
// g reads it as one identity leaf. rows (a product's result, which an
// epilogue takes as rows of its last dim) accepts a shape of g's
// elements with g's last dim (the group on the far side of a reshape).
func convOnlyFeeds(s int, v *stablehlo.Value, g *fusedGroup, gi int, bp *blockPlan, u *blockUses, fu *fusion, rows bool) bool {
	t := staticType(v)
	if t == nil || t.DType() != dtype.F32 {
		return false
	}
	if !shapeEq(t.Shape, g.shape) {
		r := len(t.Shape)
		if !rows || r == 0 || len(g.shape) == 0 || elemCount(t.Shape) != g.n || t.Shape[r-1] != g.shape[len(g.shape)-1] {
			return false
		}
	}
	us := u.users[s]
	if len(us) == 0 {
		return false
	}
	for _, x := range us {
		if x >= len(bp.ops) || fu.grp[x] != gi {
			return false
		}
	}
	n := 0
	for k := range g.nodes {
		if nd := &g.nodes[k]; nd.kind == fkLeaf && nd.slot == s {
			n++
		}
	}
	return n == 1
}

// convEpiChain returns the plan of g as a chain from node self, or nil:
// every f32 compute node reads the node before it in the chain (self
// first) and otherwise only constants, leaves other than self and side
// nodes, so that the chain can run in place over the convolution's
// values, each node overwriting the one before, which nothing reads
// again. A side node reads neither self nor the chain: constants, other
// leaves and side nodes only.
func convEpiChain(g *fusedGroup, self int) *convEpiPlan {
	pl := &convEpiPlan{g: g, self: self, side: make([]bool, len(g.nodes))}
	acc := self
	for i := range g.nodes {
		nd := &g.nodes[i]
		n := 0
		switch nd.kind {
		case fkLeaf, fkScalar, fkNop:
			continue
		case fkUnary:
			n = 1
		case fkBinary:
			n = 2
		case fkCmpSelect:
			n = 4
		default:
			return nil
		}
		if nd.dt != dtype.F32 {
			return nil
		}
		reads := false // the running value
		for _, a := range nd.args[:n] {
			switch k := g.nodes[a].kind; {
			case a == acc:
				reads = true
			case a == self: // overwritten by the chain
				return nil
			case k == fkLeaf || k == fkScalar || pl.side[a]:
			default: // an earlier chain node: overwritten too
				return nil
			}
		}
		if reads {
			pl.chain = append(pl.chain, i)
			acc = i
		} else {
			pl.side[i] = true
		}
		pl.nodes = append(pl.nodes, i)
	}
	if len(pl.chain) == 0 || acc != len(g.nodes)-1 {
		return nil
	}
	pl.setAffine()
	return pl
}

// runConvEpi runs a convolution step carrying an epilogue group: fused
// where the fast convolution runs, else the convolution and then the group.
func (fr *frame) runConvEpi(ep *execPlan, st *execStep, in []Value, persist *spanSet, al *aliases) error {
	pl, g := st.op, st.epi.g
	fast := fr.convEpiFast
	if st.epi.dot != nil {
		fast = fr.dotEpiFast
	}
	done, err := fast(st, in)
	if err != nil {
		return fmt.Errorf("%s (%s): %w", g.root.Name, g.root.Loc, err)
	}
	if done {
		return nil
	}
	fr.stepOuts = nil // the group's planned place is for the group's value
	out, err := pl.kernel(fr, pl.op, in)
	if err != nil {
		return fmt.Errorf("%s (%s): %w", pl.op.Name, pl.op.Loc, err)
	}
	if err := checkResults(pl.op, out); err != nil {
		return err
	}
	for j, s := range pl.out {
		fr.define(s, out[j])
	}
	al.defined(fr, pl)
	if err := fr.runGroup(ep, g, persist, al); err != nil {
		return fmt.Errorf("%s (%s): %w", g.root.Name, g.root.Loc, err)
	}
	return nil
}

// convEpiFast runs the fused step when the fast convolution covers the
// op: the result buffer receives the convolution part by part and the
// group's values over it. false (and no error) hands the step to the
// unfused path.
func (fr *frame) convEpiFast(st *execStep, in []Value) (bool, error) {
	pl, epi := st.op, st.epi
	g := epi.g
	if !fastConvEnabled || !convEpiEnabled || !hostLittleEndian || len(pl.out) != 1 {
		return false, nil
	}
	c, ok := fastConvShape(pl.op, in)
	if !ok || c.outFB || !shapeEq(c.outShape, g.shape) {
		return false, nil
	}
	c.weight = isWeightOperand(fr, pl.op, 1)
	defer c.release()
	e, ok, err := fr.epiFor(c, epi, false)
	defer clear(e.leaves)
	defer clear(e.views)
	if !ok || err != nil {
		return false, err
	}
	leaves, views := e.leaves, e.views
	out, err := takeResult(fr, dtype.F32, c.outShape)
	if err != nil {
		return false, nil // the unfused path reports it
	}
	dst := viewAs[float32](out.Data, dtype.F32) // arena and fresh buffers are aligned
	if len(dst) != g.n {
		if ar := fr.proc.arena; ar != nil {
			ar.put(out.Data)
		}
		return false, nil
	}
	leaves[epi.self], views[epi.self], e.out = out, dst, dst
	c.epi = e
	c.run(dst)
	fastHits.Add(1)
	if c.epiLater {
		if !epi.runFlat(leaves, out.Data) {
			execFused(g, leaves, out.Data) // in place, as the unfused step would
		}
		convEpiAfter.Add(1)
	} else {
		convEpiHits.Add(1)
	}
	fr.define(g.out, literal.Wrap(g.dt, g.shape, out.Data))
	return true, nil
}

// epiFor sets c.epiBuf up as the epilogue epi of convolution c and
// returns it, its leaves and views but for the output (node epi.self,
// which the caller sets) in the arena's scratch slices where there is an
// arena and own is unset (the caller clears them when done), in slices
// of their own otherwise. false (and no error): the leaves cannot be read
// in place, or the affine kernel cannot read its operands.
func (fr *frame) epiFor(c *conv2d, epi *convEpiPlan, own bool) (*convEpilogue, bool, error) {
	g := epi.g
	var leaves []*literal.Literal
	var views [][]float32
	var err error
	if ar := fr.proc.arena; ar != nil && !own {
		leaves, err = fr.epiLeaves(g, epi.self)
		views = ar.viewSlice32(len(g.nodes))
	} else {
		leaves = make([]*literal.Literal, len(g.nodes))
		err = fr.epiLeavesInto(leaves, g, epi.self)
		views = make([][]float32, len(g.nodes))
	}
	e := &c.epiBuf
	*e = convEpilogue{convEpiPlan: epi, leaves: leaves, views: views, outC: c.outC, n: c.oh * c.ow}
	if err != nil {
		return e, false, err
	}
	leafViewsInto(views, g, leaves)
	for i := range g.nodes {
		if nd := &g.nodes[i]; nd.kind == fkLeaf && nd.strides == nil && views[i] == nil && i != epi.self {
			return e, false, nil // tensors are read in place only
		}
	}
	if epi.affine && !e.setAffineArgs() {
		return e, false, nil
	}
	return e, true, nil
}

// epiLeaves returns the values of g's leaves by node, checked (checkLeaf),
// but for the epilogue's own value, node self, which the caller sets: in
// the arena's scratch slice where there is one (the caller clears it when
// done, also after an error).
func (fr *frame) epiLeaves(g *fusedGroup, self int) ([]*literal.Literal, error) {
	var leaves []*literal.Literal
	if ar := fr.proc.arena; ar != nil {
		leaves = ar.leafSlice(len(g.nodes))
	} else {
		leaves = make([]*literal.Literal, len(g.nodes))
	}
	return leaves, fr.epiLeavesInto(leaves, g, self)
}

// epiLeavesInto is epiLeaves into leaves (of g's nodes).
func (fr *frame) epiLeavesInto(leaves []*literal.Literal, g *fusedGroup, self int) error {
	for i := range g.nodes {
		nd := &g.nodes[i]
		if nd.kind != fkLeaf || i == self {
			continue
		}
		l, err := checkLeaf(g, nd, fr.slots[nd.slot])
		if err != nil {
			return err
		}
		leaves[i] = l
	}
	return nil
}

// convEpiGenericRun is the shortest run of elements (of one channel and
// image) that the generic chain loop takes per call: its work per call is
// that of a fused loop's chunk, which pays on long runs only. Shorter, the
// epilogue runs after the convolution in one pass. The affine kernel has
// no such bound.
const convEpiGenericRun = 256

// convEpiAffineRun is the shortest run the affine kernel takes: below it
// (squeeze-and-excitation's [1, c, 1, 1] products: one element per
// channel) it would run once per element, and the pass after the
// convolution, vector along the channels, is faster (EfficientNet's
// 1152-channel expansion with its SiLU: 48 µs in the loop).
const convEpiAffineRun = 8

// epiRuns tells run the length of the runs its work items will hand to
// finish; it leaves the epilogue to the caller where they are short.
func (c *conv2d) epiRuns(run int) {
	if c.epi != nil && (!c.epi.affine && run < convEpiGenericRun || run < convEpiAffineRun) {
		c.epi, c.epiLater = nil, true
	}
}

// finish applies c.epi, if any, to rows [r0, r1) × columns [j0, j1) of
// group grp's product, which a work item has just completed: per image,
// the rows' runs of positions.
func (c *conv2d) finish(grp, r0, r1, j0, j1 int) {
	e := c.epi
	if e == nil || r0 >= r1 || j0 >= j1 {
		return
	}
	var s *fuseScratch[float32]
	if !e.affine {
		s = getScratch[float32](&scratch32, e.g)
		defer scratch32.Put(s)
	}
	n, ch0 := c.oh*c.ow, grp*(c.outC/c.groups)
	for j := j0; j < j1; {
		img, pos := j/n, j%n
		seg := min(j1-j, n-pos)
		if e.affine {
			e.rows(img, ch0+r0, r1-r0, pos, seg)
		} else {
			for r := r0; r < r1; r++ {
				lo := (img*c.outC+ch0+r)*n + pos
				e.apply(s, ch0+r, lo, lo+seg)
			}
		}
		j += seg
	}
}

// scalarAt returns the value of uniform node i for channel ch.
func (e *convEpilogue) scalarAt(i, ch int) float32 {
	nd := &e.g.nodes[i]
	if nd.kind == fkScalar {
		return float32(nd.scalar)
	}
	return loadAt[float32](e.leaves[i].Data, nd.dt, int64(ch)*nd.strides[1])
}

// apply runs the chain over elements [lo, hi) of the output, all of
// channel ch.
func (e *convEpilogue) apply(s *fuseScratch[float32], ch, lo, hi int) {
	nodes := e.g.nodes
	for ; lo < hi; lo += fuseChunk {
		m := min(fuseChunk, hi-lo)
		dst := e.out[lo : lo+m]
		for i := range nodes {
			nd := &nodes[i]
			switch nd.kind {
			case fkScalar:
				s.cur[i], s.uni[i] = s.rows[i*fuseRow:i*fuseRow+1], true
			case fkLeaf:
				switch {
				case i == e.self:
					s.cur[i], s.uni[i] = dst, false
				case nd.strides == nil:
					s.cur[i], s.uni[i] = e.views[i][lo:lo+m], false
				default:
					row := s.rows[i*fuseRow : i*fuseRow+1]
					row[0] = e.scalarAt(i, ch)
					s.cur[i], s.uni[i] = row, true
				}
			}
		}
		for _, i := range e.nodes {
			own := dst
			if e.side[i] {
				own = s.rows[i*fuseRow : i*fuseRow+m]
			}
			s.cur[i], s.uni[i] = computeNode(nodes, &nodes[i], s, own, m)
		}
	}
}

// flatChain returns g as a row chain over its images (rows of all of an
// image's elements) starting at node self, or nil.
func flatChain(g *fusedGroup, self int) *rowChain {
	if len(g.shape) < 2 || g.shape[0] == 0 {
		return nil
	}
	ch := chainOf(g, g.shape[:1], g.n/int(g.shape[0]))
	if ch == nil || ch.first.kind != caRow || ch.first.node != self || slices.Contains(ch.rowLeaves, self) {
		return nil
	}
	return ch
}

// flatData holds the operands of runFlat's chains between runs.
var flatData = sync.Pool{New: func() any { return new(chainData) }}

// runFlat computes the epilogue group over the convolution's result in
// out, in place, as its flat chain (one vector call per step where the
// chunked loop dispatched per chunk), and reports false (nothing done)
// where it has none or its operands are not as planned.
func (pl *convEpiPlan) runFlat(leaves []*literal.Literal, out []byte) bool {
	ch := pl.flat
	if ch == nil {
		return false
	}
	d := flatData.Get().(*chainData)
	defer func() { d.unbind(); flatData.Put(d) }()
	rows := pl.g.n / ch.inner
	ch.bind(leaves, out, rows, d)
	dst := viewAs[float32](out, dtype.F32)
	if !d.ok || len(dst) != pl.g.n {
		return false
	}
	ch.rows(d, 0, rows, dst)
	convEpiFlat.Add(1)
	return true
}
