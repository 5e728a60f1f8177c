package fx

import (
	"fmt"
	"strconv"
	"strings"
)

// CSE merges a pure node into an earlier one with the same target and the
// same inputs: later uses read the earlier node's outputs. It does nothing
// while the graph still mutates values (run functionalize first), since a
// mutation between two identical calls would make them differ.
func CSE(g *Graph, ops OpInfo) (bool, error) {
	for _, n := range g.Nodes {
		if len(ops.Mutates(n)) > 0 {
			return false, nil
		}
	}
	seen := map[string]*Node{}
	rename := map[string]string{}
	changed := false
	out := g.Nodes[:0]
	for _, n := range g.Nodes {
		for i := range n.Inputs {
			renameArg(&n.Inputs[i].Arg, rename)
		}
		if ops.Impure(n) {
			out = append(out, n)
			continue
		}
		key := nodeKey(n)
		prev, ok := seen[key]
		if !ok || len(prev.Outputs) != len(n.Outputs) {
			seen[key] = n
			out = append(out, n)
			continue
		}
		same := true
		for i, o := range n.Outputs {
			if o.Kind != prev.Outputs[i].Kind {
				same = false
			}
		}
		if !same {
			out = append(out, n)
			continue
		}
		for i, o := range n.Outputs {
			from, to := o.ValueNames(), prev.Outputs[i].ValueNames()
			if len(from) != len(to) {
				same = false
				break
			}
			for j := range from {
				rename[from[j]] = to[j]
			}
		}
		if !same {
			out = append(out, n)
			continue
		}
		for _, v := range n.OutputNames() {
			delete(g.Tensors, v)
		}
		changed = true
	}
	g.Nodes = out
	if changed {
		g.renameUses(len(g.Nodes), rename) // graph outputs only
		g.Reindex()
	}
	return changed, nil
}

// nodeKey is the target and the inputs, exactly (names, kinds and values).
func nodeKey(n *Node) string {
	var b strings.Builder
	b.WriteString(n.Target)
	for _, in := range n.Inputs {
		b.WriteString("|" + in.Name + "=" + strconv.FormatBool(in.Kwarg) + ":" + in.Arg.Kind.String() + ":")
		b.WriteString(argKey(in.Arg))
	}
	return b.String()
}

func argKey(a Arg) string {
	m, g := a.Map, a.Graph
	a.Map, a.Graph = nil, nil
	key := fmt.Sprintf("%#v", a) // every field, floats exactly (-0 apart from 0)
	if g != nil {
		key += fmt.Sprintf("graph@%p", g)
	}
	for _, k := range sortedKeys(m) {
		key += "|" + strconv.Quote(k) + "=" + argKey(*m[k])
	}
	return key
}
