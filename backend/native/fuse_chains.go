package native

import (
	"github.com/torchtpu/torchtpu/backend/native/vmath"
	"github.com/torchtpu/torchtpu/dtype"
)

// Common chains of a float32 fusion group run as one vector loop instead
// of one row pass per op (package vmath): each loop rounds every step as
// the ops do one by one, so the results keep their bits.

// foldChains rewrites the chains of nodes it knows into single nodes; the
// chain's inner nodes, read nowhere else, become fkNop.
func foldChains(nodes []fuseNode) {
	refs := make([]int, len(nodes))
	for _, nd := range nodes {
		for _, a := range nd.args[:nodeArity(nd.kind)] {
			refs[a]++
		}
	}
	only := func(i int, kind fuseKind, name string) bool {
		nd := &nodes[i]
		return refs[i] == 1 && nd.kind == kind && nd.name == name && nd.dt == dtype.F32
	}
	isConst := func(i int, v float32) bool {
		return nodes[i].kind == fkScalar && float32(nodes[i].scalar) == v
	}
	// plusOne returns e where node p is add(1, e) or add(e, 1), read once
	plusOne := func(p int) (int, bool) {
		if !only(p, fkBinary, "stablehlo.add") {
			return 0, false
		}
		a, b := nodes[p].args[0], nodes[p].args[1]
		switch {
		case isConst(a, 1):
			return b, true
		case isConst(b, 1):
			return a, true
		}
		return 0, false
	}
	// scaled returns x where node i is multiply(x, c), read once
	scaled := func(i int, c float32) (int, bool) {
		if !only(i, fkBinary, "stablehlo.multiply") || !isConst(nodes[i].args[1], c) {
			return 0, false
		}
		return nodes[i].args[0], true
	}
	// times returns x where node i is multiply(x, c) or multiply(c, x),
	// read once
	times := func(i int, c float32) (int, bool) {
		if !only(i, fkBinary, "stablehlo.multiply") {
			return 0, false
		}
		a, b := nodes[i].args[0], nodes[i].args[1]
		switch {
		case isConst(b, c):
			return a, true
		case isConst(a, c):
			return b, true
		}
		return 0, false
	}
	// geluTanhIn returns x and the inner nodes where node t, read once or
	// not (the root), is tanh(K2 · (x + K1 · x·x·x)) with each
	// intermediate read once, in either operand order (only x is ever a
	// NaN in the chain, so the order decides no NaN's payload)
	geluTanhIn := func(t int) (x int, inner []int, ok bool) {
		nd := &nodes[t]
		if nd.kind != fkUnary || nd.name != "stablehlo.tanh" || nd.dt != dtype.F32 {
			return 0, nil, false
		}
		t3 := nd.args[0]
		t2, ok := times(t3, vmath.GELUK2)
		if !ok || !only(t2, fkBinary, "stablehlo.add") {
			return 0, nil, false
		}
		for _, pick := range [2][2]int{{0, 1}, {1, 0}} {
			x, t1 := nodes[t2].args[pick[0]], nodes[t2].args[pick[1]]
			x3, ok := times(t1, vmath.GELUK1)
			if !ok || !only(x3, fkBinary, "stablehlo.multiply") {
				continue
			}
			p, q := nodes[x3].args[0], nodes[x3].args[1]
			if q != x {
				p, q = q, p
			}
			if q != x || !only(p, fkBinary, "stablehlo.multiply") || nodes[p].args[0] != x || nodes[p].args[1] != x {
				continue
			}
			return x, []int{t3, t2, t1, x3, p}, true
		}
		return 0, nil, false
	}
	for i := range nodes {
		nd := &nodes[i]
		if x, inner, ok := geluTanhIn(i); ok {
			// the tanh-approximate GELU's inner chain (in a training
			// graph, its tanh is saved for the backward)
			*nd = fuseNode{kind: fkUnary, dt: dtype.F32, args: [4]int{x}, name: "gelu_tanh_in", v32: vmath.GELUTanhInRow, s32: vmath.GELUTanhIn}
			for _, j := range inner {
				nodes[j].kind = fkNop
			}
			continue
		}
		if x, h, p, y, ok := geluTanhOuter(nodes, only, times, plusOne, i); ok {
			// the whole tanh-approximate GELU: (x·0.5)·(1 + tanh(...))
			*nd = fuseNode{kind: fkUnary, dt: dtype.F32, args: [4]int{x}, name: "gelu_tanh", v32: vmath.GELUTanhRow, s32: vmath.GELUTanh}
			for _, j := range []int{h, p, y} {
				nodes[j].kind = fkNop
			}
			continue
		}
		if g, x, inner, ok := geluBackwardChain(nodes, refs, i); ok {
			// the exact GELU's backward (an MLP with nn.GELU() in
			// training): 11 ops of two inputs, the gradient and x
			*nd = fuseNode{kind: fkBinary, dt: dtype.F32, args: [4]int{g, x}, name: "gelu_backward",
				v2: vmath.GELUBackwardRow, bin: geluBackward64}
			for _, j := range inner {
				nodes[j].kind = fkNop
			}
			continue
		}
		if g, x, inner, ok := geluTanhBackwardChain(nodes, refs, i); ok {
			// the tanh-approximate GELU's backward (GPT-2's MLP in
			// training): 21 ops of two inputs, the gradient and x
			*nd = fuseNode{kind: fkBinary, dt: dtype.F32, args: [4]int{g, x}, name: "gelu_tanh_backward",
				v2: vmath.GELUTanhBackwardRow, bin: geluTanhBackward64}
			for _, j := range inner {
				nodes[j].kind = fkNop
			}
			continue
		}
		if nd.kind == fkBinary && nd.name == "stablehlo.multiply" && nd.dt == dtype.F32 {
			// exact GELU as aten lowers it:
			// multiply(multiply(x, 0.5), add(1, erf(multiply(x, 1/sqrt 2))))
			h, p := nd.args[0], nd.args[1]
			x, ok1 := scaled(h, 0.5)
			e, ok2 := plusOne(p)
			if !ok1 || !ok2 || !only(e, fkUnary, "chlo.erf") {
				continue
			}
			if x2, ok := scaled(nodes[e].args[0], vmath.Rsqrt2); !ok || x2 != x {
				continue
			}
			t := nodes[e].args[0]
			*nd = fuseNode{kind: fkUnary, dt: dtype.F32, args: [4]int{x}, name: "gelu", v32: vmath.GELURow, s32: vmath.GELU}
			for _, j := range []int{h, p, e, t} {
				nodes[j].kind = fkNop
			}
			continue
		}
		if nd.kind != fkBinary || nd.name != "stablehlo.divide" || nd.dt != dtype.F32 {
			continue
		}
		// hardswish as aten lowers it (the clamps folded, fuse_clamp.go):
		// divide(multiply(x, nanmin(nanmax(add(x, 3), 0), 6)), 6)
		if x, inner, ok := hardswishChain(nodes, only, isConst, i); ok {
			*nd = fuseNode{kind: fkUnary, dt: dtype.F32, args: [4]int{x}, name: "hardswish", v32: vmath.HardswishRow, s32: vmath.Hardswish}
			for _, j := range inner {
				nodes[j].kind = fkNop
			}
			continue
		}
		// SiLU as aten lowers it: divide(x, add(1, exp(negate(x))))
		x, p := nd.args[0], nd.args[1]
		e, ok := plusOne(p)
		if !ok || !only(e, fkUnary, "stablehlo.exponential") {
			continue
		}
		n := nodes[e].args[0]
		if !only(n, fkUnary, "stablehlo.negate") || nodes[n].args[0] != x {
			continue
		}
		*nd = fuseNode{kind: fkUnary, dt: dtype.F32, args: [4]int{x}, name: "silu", v32: vmath.SiLURow, s32: vmath.SiLU}
		for _, j := range []int{p, e, n} {
			nodes[j].kind = fkNop
		}
	}
}

// geluTanhOuter matches node i as multiply(h, p) (either order) with
// h = x·0.5 and p = y + 1, y the folded inner chain of x (folded first:
// it comes before i), each read once: the nodes h, p and y it replaces.
func geluTanhOuter(nodes []fuseNode, only func(int, fuseKind, string) bool, times func(int, float32) (int, bool), plusOne func(int) (int, bool), i int) (x, h, p, y int, ok bool) {
	nd := &nodes[i]
	if nd.kind != fkBinary || nd.name != "stablehlo.multiply" || nd.dt != dtype.F32 {
		return 0, 0, 0, 0, false
	}
	for _, pick := range [2][2]int{{0, 1}, {1, 0}} {
		h, p := nd.args[pick[0]], nd.args[pick[1]]
		x, ok1 := times(h, 0.5)
		y, ok2 := plusOne(p)
		if ok1 && ok2 && only(y, fkUnary, "gelu_tanh_in") && nodes[y].args[0] == x {
			return x, h, p, y, true
		}
	}
	return 0, 0, 0, 0, false
}

// foldGELUTanhBackward switches the fold of geluTanhBackwardChain (tests
// and benchmarks compare both).
var foldGELUTanhBackward = true

// geluTanhBackward64 is vmath.GELUTanhBackward of f32 values in float64.
func geluTanhBackward64(g, x float64) float64 {
	return float64(vmath.GELUTanhBackward(float32(g), float32(x)))
}

// geluTanhBackwardChain matches node i as the tanh-approximate GELU's
// backward of the gradient g at the input x, as AOTAutograd decomposes
// it with the forward's tanh recomputed (its chain folded first into t,
// gelu_tanh_in of x, which comes before i):
//
//	a = g·(x·0.5)   q = g·(t + 1)   w = (a·(1 - t·t))·K2
//	i = (w + (w·K1)·((x·x)·3)) + q·0.5
//
// each multiply and add in either operand order, every intermediate read
// only inside the chain: t by t + 1 and twice by t·t, w twice, the others
// once (the two x·x are two nodes). It returns g, x and the nodes that i
// replaces.
//
// NaN payloads: where g and x are both NaN, which one the result carries
// follows the operand order (x86 returns the first source's NaN of two;
// any other NaN comes from one input alone or is the machine's default
// NaN, the same in any order). The vector loop has g's, as the graph
// from PyTorch orders the ops; a chain whose order picks x's is left as
// it is.
func geluTanhBackwardChain(nodes []fuseNode, refs []int, i int) (g, x int, inner []int, ok bool) {
	if !foldGELUTanhBackward {
		return 0, 0, nil, false
	}
	m := chainMatch{nodes, refs}
	if root := &nodes[i]; root.kind != fkBinary || root.name != "stablehlo.add" || root.dt != dtype.F32 {
		return 0, 0, nil, false
	}
	for _, o := range operandOrders {
		sum, half := m.arg(i, o[0]), m.arg(i, o[1])
		q, ok := m.by(half, 0.5, 1)
		if !ok || !m.is(q, "stablehlo.multiply", 1) {
			continue
		}
		for _, o := range operandOrders {
			g, p := m.arg(q, o[0]), m.arg(q, o[1])
			t, ok := m.plus(p, 1)
			if !ok || nodes[t].kind != fkUnary || nodes[t].name != "gelu_tanh_in" || nodes[t].dt != dtype.F32 || refs[t] != 3 {
				continue
			}
			x := nodes[t].args[0]
			in, ok := m.geluTanhBackwardSum(sum, g, x, t)
			if !ok {
				continue
			}
			inner := append(in, half, q, p, t)
			if g != x && m.nanFrom(inner, i, map[int]int{g: g, x: x, t: x}) != g {
				return 0, 0, nil, false
			}
			return g, x, inner, true
		}
	}
	return 0, 0, nil, false
}

// geluTanhBackwardSum matches node sum as w + (w·K1)·((x·x)·3), w =
// ((g·(x·0.5))·(1 - t·t))·K2, for geluTanhBackwardChain: its nodes.
func (m chainMatch) geluTanhBackwardSum(sum, g, x, t int) ([]int, bool) {
	if !m.is(sum, "stablehlo.add", 1) {
		return nil, false
	}
	for _, o := range operandOrders {
		w, r := m.arg(sum, o[0]), m.arg(sum, o[1])
		v, ok := m.by(w, vmath.GELUK2, 2)
		if !ok || !m.is(r, "stablehlo.multiply", 1) || !m.is(v, "stablehlo.multiply", 1) {
			continue
		}
		// r = (w·K1)·((x·x)·3)
		rs := -1
		for k, o := range operandOrders {
			e, ok1 := m.by(m.arg(r, o[0]), vmath.GELUK1, 1)
			xx, ok2 := m.by(m.arg(r, o[1]), 3, 1)
			if ok1 && ok2 && e == w && m.square(xx, x) {
				rs = k
				break
			}
		}
		if rs < 0 {
			continue
		}
		wk, c3 := m.arg(r, operandOrders[rs][0]), m.arg(r, operandOrders[rs][1])
		xx, _ := m.by(c3, 3, 1)
		// v = (g·(x·0.5))·(1 - t·t)
		for _, o := range operandOrders {
			a, u := m.arg(v, o[0]), m.arg(v, o[1])
			if !m.is(a, "stablehlo.multiply", 1) || !m.is(u, "stablehlo.subtract", 1) || !m.isConst(m.arg(u, 0), 1) || !m.square(m.arg(u, 1), t) {
				continue
			}
			for _, o := range operandOrders {
				if m.arg(a, o[0]) != g {
					continue
				}
				h := m.arg(a, o[1])
				if e, ok := m.by(h, 0.5, 1); ok && e == x {
					return []int{sum, w, r, wk, c3, xx, v, a, h, u, m.arg(u, 1)}, true
				}
			}
		}
	}
	return nil, false
}

// geluBackward64 is vmath.GELUBackward of f32 values in float64.
func geluBackward64(g, x float64) float64 {
	return float64(vmath.GELUBackward(float32(g), float32(x)))
}

// geluBackwardChain matches node i as the exact GELU's backward of the
// gradient g at the input x, as PyTorch's decomposition and aten's
// lowering of gelu_backward give it:
//
//	cdf = (erf(x·Rsqrt2) + 1)·0.5   pdf = exp((x·x)·-0.5)·KB
//	i = g·(cdf + x·pdf)
//
// each multiply and add in either operand order, every intermediate read
// once. Only x reaches the chain's inner nodes, so their order decides no
// NaN's payload; where g and x are both NaN the vector loop returns g's,
// so a root that reads the sum first is left as it is. It returns g, x
// and the nodes that i replaces.
func geluBackwardChain(nodes []fuseNode, refs []int, i int) (g, x int, inner []int, ok bool) {
	if !foldGELUBackward {
		return 0, 0, nil, false
	}
	m := chainMatch{nodes, refs}
	if root := &nodes[i]; root.kind != fkBinary || root.name != "stablehlo.multiply" || root.dt != dtype.F32 {
		return 0, 0, nil, false
	}
	g, sum := m.arg(i, 0), m.arg(i, 1)
	if !m.is(sum, "stablehlo.add", 1) {
		return 0, 0, nil, false
	}
	for _, o := range operandOrders {
		cdf, xp := m.arg(sum, o[0]), m.arg(sum, o[1])
		c1, ok := m.by(cdf, 0.5, 1)
		if !ok {
			continue
		}
		e, ok := m.plus(c1, 1)
		if !ok || !m.unary(e, "chlo.erf") {
			continue
		}
		t1 := m.arg(e, 0)
		x, ok := m.by(t1, vmath.Rsqrt2, 1)
		if !ok || !m.is(xp, "stablehlo.multiply", 1) {
			continue
		}
		for _, o := range operandOrders {
			if m.arg(xp, o[0]) != x {
				continue
			}
			pdf := m.arg(xp, o[1])
			ex, ok := m.by(pdf, vmath.GELUKB, 1)
			if !ok || !m.unary(ex, "stablehlo.exponential") {
				continue
			}
			t2 := m.arg(ex, 0)
			xx, ok := m.by(t2, -0.5, 1)
			if !ok || !m.square(xx, x) || g == x {
				continue
			}
			return g, x, []int{sum, cdf, c1, e, t1, xp, pdf, ex, t2, xx}, true
		}
	}
	return 0, 0, nil, false
}

// foldGELUBackward switches the fold of geluBackwardChain (tests compare
// both).
var foldGELUBackward = true

// unary reports whether node j is the f32 op name of one operand, read
// once.
func (m chainMatch) unary(j int, name string) bool {
	nd := &m.nodes[j]
	return nd.kind == fkUnary && nd.name == name && nd.dt == dtype.F32 && m.refs[j] == 1
}

// chainMatch holds a group's nodes and how many times each is read, for
// the matchers of the longer chains.
type chainMatch struct {
	nodes []fuseNode
	refs  []int
}

// operandOrders are the two orders of a binary node's operands.
var operandOrders = [2][2]int{{0, 1}, {1, 0}}

// arg is operand k of node j.
func (m chainMatch) arg(j, k int) int { return m.nodes[j].args[k] }

// is reports whether node j is the f32 op name, read n times.
func (m chainMatch) is(j int, name string, n int) bool {
	nd := &m.nodes[j]
	return nd.kind == fkBinary && nd.name == name && nd.dt == dtype.F32 && m.refs[j] == n
}

// isConst reports whether node j is the constant c.
func (m chainMatch) isConst(j int, c float32) bool {
	return m.nodes[j].kind == fkScalar && float32(m.nodes[j].scalar) == c
}

// by returns e where node j is multiply(e, c) or multiply(c, e), read n
// times.
func (m chainMatch) by(j int, c float32, n int) (int, bool) {
	return m.withConst(j, "stablehlo.multiply", c, n)
}

// plus returns e where node j is add(e, c) or add(c, e), read once.
func (m chainMatch) plus(j int, c float32) (int, bool) {
	return m.withConst(j, "stablehlo.add", c, 1)
}

func (m chainMatch) withConst(j int, name string, c float32, n int) (int, bool) {
	if !m.is(j, name, n) {
		return 0, false
	}
	a, b := m.arg(j, 0), m.arg(j, 1)
	switch {
	case m.isConst(b, c):
		return a, true
	case m.isConst(a, c):
		return b, true
	}
	return 0, false
}

// square reports whether node j is multiply(e, e), read once.
func (m chainMatch) square(j, e int) bool {
	return m.is(j, "stablehlo.multiply", 1) && m.arg(j, 0) == e && m.arg(j, 1) == e
}

// nanFrom returns which input's NaN the result of a matched chain
// (nodes inner, then root) carries where every input is NaN: from maps
// the inputs (and nodes of one input, such as a folded chain) to
// themselves. Each op returns its first operand's NaN, as x86 does, but
// for constants (never NaN) of the match.
func (m chainMatch) nanFrom(inner []int, root int, from map[int]int) int {
	order := append(append([]int(nil), inner...), root)
	sortInts(order)
	for _, j := range order {
		if _, ok := from[j]; ok {
			continue
		}
		a := m.nodes[j].args
		if f, ok := from[a[0]]; ok {
			from[j] = f
		} else {
			from[j] = from[a[1]]
		}
	}
	return from[root]
}

// hardswishChain matches node i, a divide, as hardswish of x: the
// inner nodes (each read once) it replaces, or false.
func hardswishChain(nodes []fuseNode, only func(int, fuseKind, string) bool, isConst func(int, float32) bool, i int) (x int, inner []int, ok bool) {
	nd := &nodes[i]
	m := nd.args[0]
	if !isConst(nd.args[1], 6) || !only(m, fkBinary, "stablehlo.multiply") {
		return 0, nil, false
	}
	for _, pick := range [2][2]int{{0, 1}, {1, 0}} { // multiply(x, clamp) or (clamp, x)
		x, c := nodes[m].args[pick[0]], nodes[m].args[pick[1]]
		if !only(c, fkBinary, nodeNaNMin) || !isConst(nodes[c].args[1], 6) {
			continue
		}
		lo := nodes[c].args[0]
		if !only(lo, fkBinary, nodeNaNMax) || !isConst(nodes[lo].args[1], 0) {
			continue
		}
		a := nodes[lo].args[0]
		if !only(a, fkBinary, "stablehlo.add") {
			continue
		}
		if p, q := nodes[a].args[0], nodes[a].args[1]; (p == x && isConst(q, 3)) || (q == x && isConst(p, 3)) {
			return x, []int{m, c, lo, a}, true
		}
	}
	return 0, nil, false
}

// nodeArity is the number of operands of a node of kind k.
func nodeArity(k fuseKind) int {
	switch k {
	case fkUnary, fkConvert:
		return 1
	case fkBinary, fkCompare:
		return 2
	case fkSelect:
		return 3
	case fkCmpSelect:
		return 4
	}
	return 0
}
