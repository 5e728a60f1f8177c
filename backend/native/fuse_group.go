package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// blockUses describes the top-level values of a planned block: which op
// defines each slot and which ops (by index; len(ops) for the terminator)
// read it, directly or from a nested region.
type blockUses struct {
	def   map[int]int // slot -> defining op index
	arg   map[int]bool
	users map[int][]int
}

func useInfo(bp *blockPlan, slots map[*stablehlo.Value]int) *blockUses {
	u := &blockUses{def: map[int]int{}, arg: map[int]bool{}, users: map[int][]int{}}
	for _, s := range bp.args {
		u.arg[s] = true
	}
	for k := range bp.ops {
		for _, s := range bp.ops[k].out {
			u.def[s] = k
		}
	}
	top := func(s int) bool { _, d := u.def[s]; return d || u.arg[s] }
	for k := range bp.ops {
		pl := &bp.ops[k]
		for _, s := range pl.in {
			u.users[s] = append(u.users[s], k)
		}
		for _, s := range regionReads(pl.op, slots) {
			if top(s) {
				u.users[s] = append(u.users[s], k)
			}
		}
	}
	for _, s := range bp.ret {
		u.users[s] = append(u.users[s], len(bp.ops))
	}
	return u
}

// regionReads lists the slots read by ops inside the regions of op.
func regionReads(op *stablehlo.Op, slots map[*stablehlo.Value]int) []int {
	var out []int
	for _, r := range op.Regions {
		_ = r.Walk(func(o *stablehlo.Op) error {
			for _, v := range o.Operands {
				if s, ok := slots[v]; ok {
					out = append(out, s)
				}
			}
			return nil
		})
	}
	return out
}

// fusion is the result of grouping a block's ops.
type fusion struct {
	grp    []int // op index -> group index, -1 if not fused
	groups []*fusedGroup
	skip   []bool // broadcast/constant ops read only inside groups
	// redAt maps groups folded into a reduce to the reduce's op index.
	redAt map[int]int
}

// planFusion groups the fusible ops of a block. Walking backwards, an op
// joins the group of its users when they all belong to one group and its
// result has that group's shape; otherwise it roots a new group. A
// reshape between an op and its users is looked through (a reshape keeps
// the elements' order, and a group computes element by element in that
// order): the op joins the group its reshape's users are in when its
// result has as many elements as the group's, and the reshape, read by
// that group alone, need not run (a product's bias and GELU across the
// reshape a linear layer's [tokens, features] result takes back to
// [batch, sequence, features] are one group, the product's epilogue).
func planFusion(bp *blockPlan, u *blockUses, slots map[*stablehlo.Value]int, folded []bool) *fusion {
	n := len(bp.ops)
	fu := &fusion{grp: make([]int, n), skip: make([]bool, n)}
	var roots []int
	for k := n - 1; k >= 0; k-- {
		fu.grp[k] = -1
		op := bp.ops[k].op
		if bp.ops[k].quant || folded[k] || !fusibleCompute(op) {
			continue
		}
		s := bp.ops[k].out[0]
		shape := staticType(op.Results[0]).Shape
		g := -1
		us, through := usersThroughReshapes(bp, u, s)
		ok := len(us) > 0
		for _, x := range us {
			if x >= n || fu.grp[x] < 0 || (g >= 0 && fu.grp[x] != g) {
				ok = false
				break
			}
			g = fu.grp[x]
		}
		if ok && len(through) > 0 && (!reshapesEnabled || elemCount(shape) != fu.groups[g].n) {
			ok = false
		}
		// float32 and float64 values stay in separate groups: a group with
		// one float64 node computes every node in float64 rows (the
		// scalar loops), so an f32 chain feeding a convert to f64 (a mean
		// accumulated in f64) runs as its own f32 group, on the vector
		// loops, and the f64 group reads its result
		w := floatWidth(staticType(op.Results[0]).DType())
		if ok && (len(through) > 0 || shapeEq(shape, fu.groups[g].shape)) && (w == 0 || fu.groups[g].fw == 0 || fu.groups[g].fw == w) {
			fu.grp[k] = g
			fu.groups[g].nops++
			if w != 0 {
				fu.groups[g].fw = w
			}
			for _, r := range through {
				fu.grp[r] = g // read inside the group only: not run
			}
			continue
		}
		fu.grp[k] = len(fu.groups)
		fu.groups = append(fu.groups, &fusedGroup{shape: shape, n: elemCount(shape), dt: staticType(op.Results[0]).DType(), out: s, root: op, nops: 1, fw: w})
		roots = append(roots, k)
	}
	leafRead := map[int]bool{}
	for g, k := range roots {
		b := &groupBuilder{fu: fu, g: g, bp: bp, u: u, slots: slots, memo: map[int]int{}, grp: fu.groups[g], leafRead: leafRead}
		b.value(bp.ops[k].op.Results[0])
		b.finish()
	}
	// Broadcasts and splat constants read only by groups (inlined there)
	// need not run.
	for k := range bp.ops {
		op := bp.ops[k].op
		if fu.grp[k] >= 0 || len(bp.ops[k].out) != 1 {
			continue
		}
		if _, ok := broadcastStrides(op); !ok {
			if _, ok := splatValue(op); !ok {
				continue
			}
		}
		s := bp.ops[k].out[0]
		us := u.users[s]
		all := len(us) > 0 && !leafRead[s]
		for _, x := range us {
			if x >= n || fu.grp[x] < 0 {
				all = false
			}
		}
		fu.skip[k] = all
	}
	fu.redAt = planReduceFusion(bp, u, fu)
	return fu
}

type groupBuilder struct {
	fu       *fusion
	g        int
	bp       *blockPlan
	u        *blockUses
	slots    map[*stablehlo.Value]int
	memo     map[int]int
	grp      *fusedGroup
	leafRead map[int]bool // slots read as leaves by any group
}

func (b *groupBuilder) add(nd fuseNode) int {
	b.grp.nodes = append(b.grp.nodes, nd)
	return len(b.grp.nodes) - 1
}

// value returns the node computing v inside the group.
func (b *groupBuilder) value(v *stablehlo.Value) int {
	s := b.slots[v]
	if i, ok := b.memo[s]; ok {
		return i
	}
	var i int
	t := staticType(v)
	k, defined := b.u.def[s]
	var op *stablehlo.Op
	if defined {
		op = b.bp.ops[k].op
	}
	c, isConst := 0.0, false
	var bst []int64 // a broadcast's strides over the group's shape
	if defined && b.fu.grp[k] != b.g {
		c, isConst = b.constCompare(op)
		bst = b.broadcastIn(op)
	}
	switch {
	case isConst:
		i = b.add(fuseNode{kind: fkScalar, dt: t.DType(), scalar: c})
	case defined && b.fu.grp[k] == b.g && op.Name == "stablehlo.reshape":
		// a reshape looked through: its operand's elements, in order
		i = b.value(op.Operands[0])
	case defined && b.fu.grp[k] == b.g:
		i = b.compute(op)
	case defined && isSplat(op):
		c, _ := splatValue(op)
		i = b.add(fuseNode{kind: fkScalar, dt: t.DType(), scalar: c})
	case defined && bst != nil:
		src := op.Operands[0]
		if d, ok := b.u.def[b.slots[src]]; ok && isSplat(b.bp.ops[d].op) {
			c, _ := splatValue(b.bp.ops[d].op)
			i = b.add(fuseNode{kind: fkScalar, dt: t.DType(), scalar: c})
		} else {
			i = b.leaf(b.slots[src], t.DType(), bst)
		}
	case len(t.Shape) == 0 && len(b.grp.shape) > 0:
		i = b.leaf(s, t.DType(), make([]int64, len(b.grp.shape)))
	default:
		i = b.leaf(s, t.DType(), nil)
	}
	b.memo[s] = i
	return i
}

func isSplat(op *stablehlo.Op) bool {
	_, ok := splatValue(op)
	return ok
}

// broadcastIn returns the strides a broadcast op reads its operand with
// over the group's shape, or nil: its result of the group's shape, or
// (a broadcast on the far side of a looked-through reshape) of as many
// elements, its strides carried over the reshape.
func (b *groupBuilder) broadcastIn(op *stablehlo.Op) []int64 {
	st, ok := broadcastStrides(op)
	if !ok {
		return nil
	}
	shape := staticType(op.Results[0]).Shape
	if shapeEq(shape, b.grp.shape) {
		return st
	}
	if elemCount(shape) != b.grp.n {
		return nil
	}
	st, ok = restride(shape, st, b.grp.shape)
	if !ok {
		return nil
	}
	return st
}

func (b *groupBuilder) leaf(s int, dt dtype.DType, strides []int64) int {
	b.leafRead[s] = true
	nd := fuseNode{kind: fkLeaf, dt: dt, slot: s, strides: strides}
	if strides != nil {
		nd.cshape, nd.cstrides = collapseStrides(b.grp.shape, strides)
		r := len(nd.cshape)
		nd.bcast = r == 0 || nd.cstrides[r-1] == 0
	}
	return b.add(nd)
}

// compute adds the node of a member op after its operands' nodes.
func (b *groupBuilder) compute(op *stablehlo.Op) int {
	var args [4]int
	for j, v := range op.Operands {
		args[j] = b.value(v)
	}
	nd := fuseNode{dt: staticType(op.Results[0]).DType(), args: args, name: op.Name}
	switch op.Name {
	case "stablehlo.compare":
		nd.kind = fkCompare
		nd.cmp, _ = op.Enum("comparison_direction")
	case "stablehlo.select":
		nd.kind = fkSelect
	case "stablehlo.convert":
		nd.kind = fkConvert
	default:
		if fns, ok := fusedUnary(op.Name); ok {
			nd.kind, nd.un, nd.bun = fkUnary, fns.f, fns.b
			if nd.dt == dtype.F32 {
				nd.v32, nd.s32 = fns.v32, fns.s32
			}
		} else {
			fns := binaryTable[op.Name]
			nd.kind, nd.bin, nd.bbin = fkBinary, fns.f, fns.b
		}
	}
	return b.add(nd)
}

// finish records the in-place candidates: leaves read only with identity
// indexing whose element size is the result's.
func (b *groupBuilder) finish() {
	b.foldConstSelects()
	b.foldCompares()
	b.grp.f32 = true
	for _, nd := range b.grp.nodes {
		if nd.dt == dtype.F64 {
			b.grp.f32 = false
		}
	}
	if b.grp.f32 {
		foldClamps(b.grp.nodes) // first: hardswish's chain holds clamps
		foldChains(b.grp.nodes)
	}
	b.grp.period = chunkPeriod(b.grp.nodes)
	b.grp.planes = planeOpOf(b.grp)
	ident := map[int]bool{}
	strided := map[int]bool{}
	for _, nd := range b.grp.nodes {
		if nd.kind != fkLeaf {
			continue
		}
		if nd.strides == nil && nd.dt.Size() == b.grp.dt.Size() {
			ident[nd.slot] = true
		} else {
			strided[nd.slot] = true
		}
	}
	for s := range ident {
		if !strided[s] && !b.u.arg[s] {
			b.grp.inplace = append(b.grp.inplace, s)
		}
	}
	sortInts(b.grp.inplace)
}

// minPeriod is the shortest run worth aligning chunks to: below it,
// segments cost more in per-call work than reading the leaf strided saves
// (batch norm + ReLU with runs of 16: the same time either way; of 49:
// two thirds of the time aligned; of 64: half).
const minPeriod = 16

// chunkPeriod returns the shortest inner run, of minPeriod elements or
// more, of the leaves read through strides whose inner dim is repeated
// (stride 0) or contiguous (stride 1); 0 if none.
func chunkPeriod(nodes []fuseNode) int {
	p := 0
	for i := range nodes {
		nd := &nodes[i]
		r := len(nd.cshape)
		if nd.kind != fkLeaf || nd.strides == nil || r == 0 || nd.cstrides[r-1] > 1 {
			continue
		}
		if n := int(nd.cshape[r-1]); n >= minPeriod && (p == 0 || n < p) {
			p = n
		}
	}
	return p
}

// foldCompares turns select(compare(a, b), x, y), where the compare
// feeds nothing else, into one node.
func (b *groupBuilder) foldCompares() {
	nodes := b.grp.nodes
	refs := make([]int, len(nodes))
	for _, nd := range nodes {
		n := 0
		switch nd.kind {
		case fkUnary, fkConvert:
			n = 1
		case fkBinary, fkCompare:
			n = 2
		case fkSelect:
			n = 3
		}
		for _, a := range nd.args[:n] {
			refs[a]++
		}
	}
	for i := range nodes {
		nd := &nodes[i]
		if nd.kind != fkSelect {
			continue
		}
		p := nd.args[0]
		if c := &nodes[p]; c.kind == fkCompare && refs[p] == 1 && p != len(nodes)-1 {
			nd.kind = fkCmpSelect
			nd.cmp = c.cmp
			nd.args = [4]int{c.args[0], c.args[1], nd.args[1], nd.args[2]}
			c.kind = fkNop
		}
	}
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// String describes a group (for debugging).
func (g *fusedGroup) String() string {
	return fmt.Sprintf("fusion of %d ops into %s %v%v (%d nodes)", g.nops, g.root.Name, g.dt, g.shape, len(g.nodes))
}

// foldConstSelects drops select(p, x, y) with a constant predicate p (a
// splat, such as the folded isnan of a constant clamp bound in
// nanSelect), other than the group's result: its readers read x or y.
func (b *groupBuilder) foldConstSelects() {
	nodes := b.grp.nodes
	alias := make([]int, len(nodes))
	for i := range nodes {
		alias[i] = i
		nd := &nodes[i]
		for j := range nd.args {
			nd.args[j] = alias[nd.args[j]]
		}
		if p := &nodes[nd.args[0]]; nd.kind == fkSelect && p.kind == fkScalar && i != len(nodes)-1 {
			if p.scalar != 0 {
				alias[i] = nd.args[1]
			} else {
				alias[i] = nd.args[2]
			}
			nd.kind = fkNop
		}
	}
}

// constCompare returns the value of an IEEE float compare of two splat
// constants (nanSelect's isnan of a clamp bound), computed outside the
// group: the group reads it as a constant rather than a row of i1.
func (b *groupBuilder) constCompare(op *stablehlo.Op) (float64, bool) {
	if op.Name != "stablehlo.compare" || len(op.Operands) != 2 {
		return 0, false
	}
	var v [2]float64
	for j, o := range op.Operands {
		if d := staticType(o).DType(); d != dtype.F32 && d != dtype.F64 {
			return 0, false
		}
		c, ok := b.splatOf(o)
		if !ok {
			return 0, false
		}
		v[j] = c
	}
	if ct, _ := op.Enum("compare_type"); ct != "" && ct != "NOTYPE" && ct != "FLOAT" {
		return 0, false
	}
	dir, _ := op.Enum("comparison_direction")
	var r bool
	switch x, y := v[0], v[1]; dir {
	case "EQ":
		r = x == y
	case "NE":
		r = x != y
	case "LT":
		r = x < y
	case "LE":
		r = x <= y
	case "GT":
		r = x > y
	case "GE":
		r = x >= y
	default:
		return 0, false
	}
	return float64(b2i(r)), true
}

// splatOf returns the value of v where it is a splat constant or a
// broadcast of one.
func (b *groupBuilder) splatOf(v *stablehlo.Value) (float64, bool) {
	k, ok := b.u.def[b.slots[v]]
	if !ok {
		return 0, false
	}
	op := b.bp.ops[k].op
	if op.Name == "stablehlo.broadcast_in_dim" {
		if k, ok = b.u.def[b.slots[op.Operands[0]]]; !ok {
			return 0, false
		}
		op = b.bp.ops[k].op
	}
	return splatValue(op)
}

// floatWidth is the size of a float element type, 0 for others.
func floatWidth(d dtype.DType) int {
	if d.IsFloat() {
		return d.Size()
	}
	return 0
}

// reshapesEnabled lets groups look through reshapes (tests compare).
var reshapesEnabled = true

// usersThroughReshapes returns the ops reading slot s, each reshape of s
// (a reshape op whose result is read by ops alone, not returned)
// replaced by its own users, and those reshapes.
func usersThroughReshapes(bp *blockPlan, u *blockUses, s int) (users, through []int) {
	for _, x := range u.users[s] {
		if x < len(bp.ops) && reshapesEnabled {
			pl := &bp.ops[x]
			if pl.op.Name == "stablehlo.reshape" && !pl.quant && len(pl.in) == 1 && len(pl.out) == 1 && staticType(pl.op.Results[0]) != nil {
				more, deeper := usersThroughReshapes(bp, u, pl.out[0])
				if len(more) > 0 {
					users = append(users, more...)
					through = append(through, x)
					through = append(through, deeper...)
					continue
				}
			}
		}
		users = append(users, x)
	}
	return users, through
}

// restride carries element strides st over shape from to the same
// elements viewed as shape to (a reshape: the same count, row-major
// order), or reports false where a run of dims merged or split by the
// reshape is not one linear run of the source (strides of a broadcast
// that repeats inside it).
func restride(from, st, to []int64) ([]int64, bool) {
	out := make([]int64, len(to))
	i, j := 0, 0
	for {
		for i < len(from) && from[i] == 1 {
			i++
		}
		for j < len(to) && to[j] == 1 {
			j++
		}
		if i == len(from) || j == len(to) {
			return out, i == len(from) && j == len(to)
		}
		// the smallest runs [i0, i) and [j0, j) of equal products
		i0, j0 := i, j
		pf, pt := from[i], to[j]
		i, j = i+1, j+1
		for pf != pt {
			if pf < pt {
				if i == len(from) {
					return nil, false
				}
				pf *= from[i]
				i++
			} else {
				if j == len(to) {
					return nil, false
				}
				pt *= to[j]
				j++
			}
		}
		// the source run must be linear: each dim's stride its inner
		// neighbour's times that neighbour's size (size-1 dims aside)
		inner := -1
		for q := i - 1; q >= i0; q-- {
			if from[q] == 1 {
				continue
			}
			if inner >= 0 && st[q] != st[inner]*from[inner] {
				return nil, false
			}
			inner = q
		}
		// the last non-1 dim of the run sets the innermost stride
		base := int64(0)
		for q := i - 1; q >= i0; q-- {
			if from[q] != 1 {
				base = st[q]
				break
			}
		}
		for q := j - 1; q >= j0; q-- {
			if to[q] == 1 {
				continue
			}
			out[q] = base
			base *= to[q]
		}
	}
}
