package native

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// A group that is one binary op between a tensor and a value per plane
// (squeeze-and-excitation's gate, x · s[c] over [b, c, h, w]; a per-row
// scale or shift) runs plane by plane: the planes of a thread's range are
// one call of the block loops (binRowsV), each plane's value its scalar
// operand. The chunked loop computes the same (the same kernels, on
// segments of a plane), but per segment it seeks the broadcast leaf's
// element and dispatches the op: on 4×4 planes, segments of 16, that was
// most of the time (576 planes of MobileNetV3-Small's last gate: 10 µs).

// planeOp is a group of that form: the root applies op (binOp's codes) to
// the identity leaf x and the broadcast leaf s (s first where sFirst),
// which holds one element per run of n output elements, in order.
type planeOp struct {
	op     int
	x, s   int // node indexes
	sFirst bool
	n      int
}

// planesEnabled switches the per-plane loop (tests compare both).
var planesEnabled = true

// planeOpOf returns g's per-plane form, or nil.
func planeOpOf(g *fusedGroup) *planeOp {
	if !planesEnabled || !simdRows || !g.f32 || g.dt != dtype.F32 || g.red != nil || len(g.nodes) == 0 {
		return nil
	}
	root := &g.nodes[len(g.nodes)-1]
	if root.kind != fkBinary || root.dt != dtype.F32 {
		return nil
	}
	op := binOp(root.name)
	if op < 0 {
		return nil
	}
	for i := range g.nodes[:len(g.nodes)-1] {
		if k := g.nodes[i].kind; k != fkLeaf && k != fkNop {
			return nil // other computed nodes
		}
	}
	a, b := root.args[0], root.args[1]
	plain := func(i int) bool {
		nd := &g.nodes[i]
		return nd.kind == fkLeaf && nd.dt == dtype.F32 && nd.strides == nil
	}
	perRun := func(i int) bool {
		nd := &g.nodes[i]
		return nd.kind == fkLeaf && nd.dt == dtype.F32 && nd.bcast && len(nd.cshape) == 2 &&
			nd.cstrides[1] == 0 && nd.cstrides[0] == 1 && nd.cshape[0]*nd.cshape[1] == int64(g.n)
	}
	p := &planeOp{op: op}
	switch {
	case plain(a) && perRun(b):
		p.x, p.s = a, b
	case perRun(a) && plain(b):
		p.x, p.s, p.sFirst = b, a, true
	default:
		return nil
	}
	p.n = int(g.nodes[p.s].cshape[1])
	if p.n < minPeriod/2 {
		return nil // runs this short: a call per run costs more than the chunks
	}
	return p
}

// run computes g (of per-plane form p) into out, run by run, and reports
// false (nothing written) where an operand is not in place as float32.
func (p *planeOp) run(g *fusedGroup, views [][]float32, leaves []*literal.Literal, out []float32) bool {
	x := views[p.x]
	if leaves[p.s] == nil {
		return false
	}
	s := f32View(leaves[p.s].Data)
	runs := g.n / p.n
	if x == nil || len(x) < g.n || len(out) < g.n || len(s) < runs {
		return false
	}
	// runs shared among the threads from 2·fuseGrain elements, as the
	// chunked loop's elements
	parallelRange(runs, max(1, planeGrain/p.n), func(lo, hi int) {
		// the planes of the range in one call (binRS or binSR per plane
		// where the block loops do not run)
		o := lo * p.n
		if p.sFirst {
			binVRows(p.op, &out[o], &x[o], &s[lo], p.n, hi-lo, p.n)
		} else {
			binRowsV(p.op, &out[o], &x[o], &s[lo], p.n, hi-lo, p.n)
		}
	})
	return true
}

// planeGrain is the elements per goroutine from which a per-plane group
// (and a pool of whole planes, fast_window.go) runs over the cores: a
// quarter of fuseGrain, as their producers, convolutions split over the
// cores by channels, leave each core's planes in its own cache
// (mobilenet_v3_large's [1, 960, 4, 4] gates at two threads 15.5 → 10 µs
// for the three).
const planeGrain = 1 << 11
