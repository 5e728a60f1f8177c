package fx

import "fmt"

// viewOps are aten ops whose output may alias their input's storage: an
// in-place op on such a value would also change the base, which this pass
// does not model.
var viewOps = map[string]bool{
	"view": true, "_unsafe_view": true, "reshape": true, "_reshape_alias": true, "select": true,
	"slice": true, "transpose": true, "t": true, "permute": true, "expand": true, "expand_as": true,
	"squeeze": true, "unsqueeze": true, "as_strided": true, "diagonal": true, "narrow": true,
	"unflatten": true, "flatten": true, "split": true, "split_with_sizes": true, "chunk": true,
	"unbind": true, "alias": true, "detach": true, "view_as": true, "movedim": true, "moveaxis": true,
	"unfold": true, "real": true, "imag": true, "swapaxes": true, "swapdims": true, "tensor_split": true,
	"view_as_real": true, "view_as_complex": true, "contiguous": true,
}

// Functionalize rewrites in-place ops (aten::add_.Tensor) into their
// functional forms (aten::add.Tensor): the node's output becomes the new
// value, and every later use of the mutated value, or of any alias the
// in-place ops returned, reads the newest value instead. A mutated graph
// input becomes an output at the front of the graph: buffer_mutation,
// parameter_mutation or user_input_mutation, as run_decompositions writes.
//
// The rewritten node keeps its output TensorMeta, whose dtype is the
// mutated tensor's: PyTorch casts an in-place result to it, so a consumer
// must convert the functional result to that dtype where they differ. The
// original target is kept in Meta["functionalized_from"].
//
// In-place ops on views (the output of view, select, slice, ...) are
// rejected with an error naming the node.
func Functionalize(g *Graph, ops OpInfo) (bool, error) {
	latest := map[string]string{}    // any alias → newest value
	root := map[string]string{}      // alias → the value first mutated
	aliases := map[string][]string{} // root → its aliases
	var order []string               // roots in order of first mutation
	producer := map[string]*Node{}
	changed := false
	for _, n := range g.Nodes {
		for i := range n.Inputs {
			renameArg(&n.Inputs[i].Arg, latest)
		}
		muts := ops.Mutates(n)
		if len(muts) == 0 {
			for _, v := range n.OutputNames() {
				producer[v] = n
			}
			continue
		}
		fn := ops.Functional(n.Target)
		if fn == "" || len(muts) != 1 || len(n.Outputs) != 1 || n.Outputs[0].Kind != ArgTensor {
			return changed, fmt.Errorf("node %s (%s) mutates %v and has no functional form%s", n.Name, n.Target, muts, srcOf(n))
		}
		arg, ok := n.Input(muts[0])
		if !ok || arg.Kind != ArgTensor {
			return changed, fmt.Errorf("node %s (%s): mutated input %s is not a tensor%s", n.Name, n.Target, muts[0], srcOf(n))
		}
		old := arg.Name
		r, ok := root[old]
		if !ok {
			r = old
			root[old] = old
			aliases[old] = []string{old}
			order = append(order, old)
		}
		if p := producer[r]; p != nil {
			if _, name, _, ok := splitTarget(p.Target); ok && viewOps[name] {
				return changed, fmt.Errorf("node %s (%s) mutates %s, a view made by %s (%s); not supported%s", n.Name, n.Target, r, p.Name, p.Target, srcOf(n))
			}
		}
		newName := n.Outputs[0].Name
		n.Meta = cloneMeta(n.Meta)
		n.Meta["functionalized_from"] = n.Target
		n.Target = fn
		root[newName] = r
		aliases[r] = append(aliases[r], newName)
		for _, a := range aliases[r] {
			latest[a] = newName
		}
		delete(latest, newName)
		producer[newName] = n
		changed = true
	}
	if !changed {
		return false, nil
	}
	g.renameUses(len(g.Nodes), latest)
	if g.Signature != nil {
		g.addMutationOutputs(order, aliases)
	}
	g.Reindex()
	return true, nil
}

// addMutationOutputs puts an output for every mutated graph input in front
// of the outputs, unless one already names it.
func (g *Graph) addMutationOutputs(order []string, aliases map[string][]string) {
	var outs []Arg
	var specs []OutputSpec
	for _, r := range order {
		final := aliases[r][len(aliases[r])-1]
		var spec *InputSpec
		for i, in := range g.Inputs {
			if in.Kind == ArgTensor && in.Name == r && i < len(g.Signature.Inputs) {
				spec = &g.Signature.Inputs[i]
			}
		}
		if spec == nil {
			continue
		}
		var kind OutputKind
		target := spec.Target
		switch spec.Kind {
		case InputBuffer:
			kind = OutputBufferMutation
		case InputParameter:
			kind = OutputParameterMutation
		case InputUser:
			kind, target = OutputUserInputMutation, r
		default:
			continue
		}
		exists := false
		for _, o := range g.Signature.Outputs {
			if o.Kind == kind && o.Target == target {
				exists = true
			}
		}
		if exists {
			continue
		}
		outs = append(outs, TensorRef(final))
		specs = append(specs, OutputSpec{Kind: kind, Arg: TensorRef(final), Target: target})
	}
	g.Outputs = append(outs, g.Outputs...)
	g.Signature.Outputs = append(specs, g.Signature.Outputs...)
}

func cloneMeta(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func srcOf(n *Node) string {
	if s := n.SourceLine(); s != "" {
		return " [" + s + "]"
	}
	return ""
}
