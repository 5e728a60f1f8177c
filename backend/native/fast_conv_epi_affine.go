package native

import (
	"math"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend/native/vmath"
	"github.com/torchtpu/torchtpu/dtype"
)

// The affine epilogue (fast_conv_epi.go): an epilogue chain of batch
// norm's shape — x·a + b, + r (or + r·c + e, a downsampling branch's own
// batch norm), a ReLU-like select, a clamp, a last vector function — is
// recognised at plan time (setAffine) and run at run time by one vector
// kernel over rows of the convolution's output (affineRows,
// fast_conv_epi_amd64.s), with its per-channel values bound per call
// (setAffineArgs, rows).

// epiArgs is the argument block of affineRows32: rows of n elements at d
// (rows ldd apart) and r (ldr apart, flags&1), the row's a and b at
// a[i·sa] and b[i·sb], the select's constants t and xs, the clamp's
// bounds lo (flags&16) and hi (flags&32), and with flags&64 the row's
// scale and shift of r, rc[i·src] and re[i·sre] (the kernel advances
// rc and re in the block as it goes). Its layout is the assembly's.
type epiArgs struct {
	d, r     *float32
	a, b     *float32
	t, xs    float32
	n, rows  int
	ldd, ldr int
	sa, sb   int
	flags    int
	lo, hi   float32
	rc, re   *float32
	src, sre int
	z        float32 // with flags&128, the clamp's zero (affineFast)
}

// setAffine recognises batch norm's chain (and its parts, such as a
// bias): optionally a multiply by a per-channel or constant value, an add
// of one, an add of a tensor, a select (v < t) ? xs : v with constant t
// and xs (ReLU), and a clamp's nanmax and nanmin of constants (ReLU6), in
// that order, the running value always the first operand.
func (pl *convEpiPlan) setAffine() {
	nodes, ch := pl.g.nodes, pl.chain
	pl.a, pl.b, pl.r, pl.thr, pl.selVal, pl.lo, pl.hi = -1, -1, -1, -1, -1, -1, -1
	uniform := func(a int) bool {
		nd := &nodes[a]
		return nd.kind == fkScalar || nd.kind == fkLeaf && nd.strides != nil
	}
	prev := func(k int) int {
		if k > 0 {
			return ch[k-1]
		}
		return pl.self
	}
	// bin returns the other operand of chain node k when it is op name
	// with the running value first, else -1.
	bin := func(k int, name string) int {
		if k >= len(ch) {
			return -1
		}
		nd := &nodes[ch[k]]
		if nd.kind != fkBinary || nd.name != name || nd.args[0] != prev(k) || nd.args[1] == prev(k) {
			return -1
		}
		return nd.args[1]
	}
	k := 0
	if a := bin(k, "stablehlo.multiply"); a >= 0 && uniform(a) {
		pl.a, k = a, k+1
	}
	if b := bin(k, "stablehlo.add"); b >= 0 && uniform(b) {
		pl.b, k = b, k+1
	}
	pl.rc, pl.re = -1, -1
	sideUsed := 0
	if r := bin(k, "stablehlo.add"); r >= 0 && nodes[r].kind == fkLeaf && nodes[r].strides == nil {
		pl.r, k = r, k+1
	} else if r >= 0 && pl.side[r] {
		// r·c + e, computed apart from the chain (side nodes), c and e
		// per channel or constant, in either operand order
		identity := func(a int) bool { return nodes[a].kind == fkLeaf && nodes[a].strides == nil && a != pl.self }
		if l, c, e, ok := scaledShifted(nodes, r, identity, uniform); ok {
			pl.r, pl.rc, pl.re, k, sideUsed = l, c, e, k+1, 2
		}
	}
	if k < len(ch) {
		nd := &nodes[ch[k]]
		p := prev(k)
		if nd.kind == fkCmpSelect && nd.cmp == "LT" && nd.args[0] == p && nd.args[3] == p &&
			nodes[nd.args[1]].kind == fkScalar && nodes[nd.args[2]].kind == fkScalar {
			pl.thr, pl.selVal = nd.args[1], nd.args[2]
			k++
		}
	}
	if c := bin(k, nodeNaNMax); c >= 0 && nodes[c].kind == fkScalar {
		pl.lo, k = c, k+1
	}
	if c := bin(k, nodeNaNMin); c >= 0 && nodes[c].kind == fkScalar {
		pl.hi, k = c, k+1
	}
	if k == len(ch)-1 {
		if nd := &nodes[ch[k]]; nd.kind == fkUnary && nd.v32 != nil && nd.args[0] == prev(k) && vmath.Lanes() > 0 {
			pl.act, k = nd.v32, k+1
		}
	}
	sides := 0
	for _, sd := range pl.side {
		if sd {
			sides++
		}
	}
	pl.affine = k == len(ch) && sides == sideUsed && simdRows
	for _, kv := range []struct {
		node int
		k    *float32
	}{{pl.a, &pl.ka}, {pl.b, &pl.kb}, {pl.rc, &pl.kc}, {pl.re, &pl.ke}} {
		if kv.node >= 0 && nodes[kv.node].kind == fkScalar {
			*kv.k = float32(nodes[kv.node].scalar)
		}
	}
}

// scaledShifted matches node r as add(multiply(l, c), e), as batch norm
// lowers: l a tensor read in place (isLeaf), c and e uniform, the tensor
// first in each (the first source of a vector add or multiply is the one
// whose NaN comes out, so the kernel keeps the group's order). It returns
// l, c and e.
func scaledShifted(nodes []fuseNode, r int, isLeaf, uniform func(int) bool) (l, c, e int, ok bool) {
	nd := &nodes[r]
	if nd.kind != fkBinary || nd.name != "stablehlo.add" || nd.dt != dtype.F32 {
		return 0, 0, 0, false
	}
	m, e := nd.args[0], nd.args[1]
	mn := &nodes[m]
	if mn.kind != fkBinary || mn.name != "stablehlo.multiply" || mn.dt != dtype.F32 || !uniform(e) {
		return 0, 0, 0, false
	}
	if l, c = mn.args[0], mn.args[1]; !isLeaf(l) || !uniform(c) {
		return 0, 0, 0, false
	}
	return l, c, e, true
}

// setAffineArgs prepares the affine kernel's arguments, or reports false
// where a per-channel operand cannot be read in place.
func (e *convEpilogue) setAffineArgs() bool {
	operand := func(i int, k *float32) ([]float32, int, bool) {
		nd := &e.g.nodes[i]
		if nd.kind == fkScalar {
			return unsafe.Slice(k, 1), 0, true
		}
		v := viewAs[float32](e.leaves[i].Data, nd.dt)
		return v, int(nd.strides[1]), v != nil
	}
	a := &e.args
	var ok bool
	if e.a >= 0 {
		if e.av, e.sa, ok = operand(e.a, &e.ka); !ok {
			return false
		}
		a.flags |= 4
	}
	if e.b >= 0 {
		if e.bv, e.sb, ok = operand(e.b, &e.kb); !ok {
			return false
		}
		a.flags |= 8
	}
	if e.r >= 0 {
		a.flags |= 1
	}
	if e.rc >= 0 {
		if e.cv, e.sc, ok = operand(e.rc, &e.kc); !ok {
			return false
		}
		if e.ev, e.se, ok = operand(e.re, &e.ke); !ok {
			return false
		}
		a.flags |= 64
	}
	if e.thr >= 0 {
		a.t, a.xs = float32(e.g.nodes[e.thr].scalar), float32(e.g.nodes[e.selVal].scalar)
		a.flags |= 2
	}
	if e.lo >= 0 {
		a.lo = float32(e.g.nodes[e.lo].scalar)
		a.flags |= 16
	}
	if e.hi >= 0 {
		a.hi = float32(e.g.nodes[e.hi].scalar)
		a.flags |= 32
	}
	a.setFast()
	return true
}

// setFast sets flags bit 7 where the select and clamp have the AVX2
// kernel's short forms (FASTCLAMP in fast_conv_epi_amd64.s), the same
// bits as the two-sided ones: a select's value is its threshold, bit for
// bit (ReLU), no constant is a NaN, and hi is not -0 (min(-0, +0) must
// give -0, and the one-sided minimum gives its second source on a tie).
// z is lo's zero: +0 where lo is +0, else -0, which adds nothing.
func (a *epiArgs) setFast() {
	nan := func(v float32) bool { return v != v }
	negZero := math.Float32bits(float32(math.Copysign(0, -1)))
	if a.flags&2 != 0 && (math.Float32bits(a.t) != math.Float32bits(a.xs) || nan(a.t)) ||
		a.flags&16 != 0 && nan(a.lo) || a.flags&32 != 0 && (nan(a.hi) || math.Float32bits(a.hi) == negZero) {
		return
	}
	a.flags |= 128
	a.z = float32(math.Copysign(0, -1))
	if a.flags&16 != 0 && math.Float32bits(a.lo) == 0 {
		a.z = 0
	}
}

// rows runs the affine kernel over positions [pos, pos+m) of channels
// [ch, ch+rows) of image img.
func (e *convEpilogue) rows(img, ch, rows, pos, m int) {
	off := (img*e.outC+ch)*e.n + pos
	var r []float32
	if e.r >= 0 {
		r = e.views[e.r][off:]
	}
	e.rowsAt(e.out[off:], r, e.n, ch, rows, m)
}

// rowsAt runs the affine kernel over rows [0, rows) of d, m elements each
// and ld apart, with channel ch's per-channel values for the first; r
// (nil where e.r < 0) is the residual's rows, laid out as d's.
func (e *convEpilogue) rowsAt(d, r []float32, ld, ch, rows, m int) {
	a := e.args // a copy: work items run at once
	a.d, a.n, a.rows, a.ldd = &d[0], m, rows, ld
	a.a, a.b = &e.ka, &e.kb // read even where unused
	if e.r >= 0 {
		a.r, a.ldr = &r[0], ld
	}
	if e.a >= 0 {
		a.a, a.sa = &e.av[ch*e.sa], e.sa
	}
	if e.b >= 0 {
		a.b, a.sb = &e.bv[ch*e.sb], e.sb
	}
	if e.rc >= 0 {
		a.rc, a.src = &e.cv[ch*e.sc], e.sc
		a.re, a.sre = &e.ev[ch*e.se], e.se
	}
	affineRows(&a)
	if e.act != nil && m == ld {
		// whole planes: the rows lie end to end, one call for all (on
		// 4×4 images, a call per 16 elements was most of the time)
		run := d[:rows*m]
		e.act(run, run)
	} else if e.act != nil {
		for i := 0; i < rows; i++ {
			row := d[i*ld : i*ld+m]
			e.act(row, row)
		}
	}
}
