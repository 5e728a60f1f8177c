package native

import "github.com/torchtpu/torchtpu/dtype"

// Common chains of a float32 fusion group run as one vector loop instead
// of one row pass per op (vmath.go): each loop rounds every step as the
// ops do one by one, so the results keep their bits.

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
	for i := range nodes {
		nd := &nodes[i]
		// SiLU as aten lowers it: divide(x, add(1, exp(negate(x))))
		if nd.kind != fkBinary || nd.name != "stablehlo.divide" || nd.dt != dtype.F32 {
			continue
		}
		x, p := nd.args[0], nd.args[1]
		if !only(p, fkBinary, "stablehlo.add") {
			continue
		}
		e := nodes[p].args[1]
		if c := &nodes[nodes[p].args[0]]; c.kind != fkScalar || c.scalar != 1 {
			c, e = &nodes[nodes[p].args[1]], nodes[p].args[0]
			if c.kind != fkScalar || c.scalar != 1 {
				continue
			}
		}
		if !only(e, fkUnary, "stablehlo.exponential") {
			continue
		}
		n := nodes[e].args[0]
		if !only(n, fkUnary, "stablehlo.negate") || nodes[n].args[0] != x {
			continue
		}
		*nd = fuseNode{kind: fkUnary, dt: dtype.F32, args: [4]int{x}, name: "silu", v32: siluRow, s32: silu32}
		for _, j := range []int{p, e, n} {
			nodes[j].kind = fkNop
		}
	}
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
