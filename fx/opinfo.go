package fx

import "strings"

// OpInfo tells graph passes what they need to know about an operator. The
// aten registry knows it exactly (from op schemas); NameOpInfo guesses it
// from PyTorch's naming conventions and is the default.
type OpInfo interface {
	// Mutates returns the names of the inputs the op writes in place, in the
	// order of the outputs that alias them (nil for functional ops).
	Mutates(n *Node) []string
	// Functional returns the functional op computing the same values as the
	// in-place target ("aten::add.Tensor" for "aten::add_.Tensor"), or "".
	Functional(target string) string
	// Impure reports whether the op has effects beyond its outputs (random
	// number generation, assertions, printing, mutation), so that it must
	// not be removed or merged.
	Impure(n *Node) bool
}

// NameOpInfo is the OpInfo of PyTorch's naming conventions: an aten op
// whose name ends in "_" (add_, copy_, index_put_) writes its "self"
// input and has the functional counterpart without the underscore.
type NameOpInfo struct{}

// splitTarget splits "aten::add_.Tensor" into "aten", "add_", "Tensor".
func splitTarget(t string) (ns, name, overload string, ok bool) {
	ns, rest, ok := strings.Cut(t, "::")
	if !ok {
		return "", "", "", false
	}
	name, overload, _ = strings.Cut(rest, ".")
	return ns, name, overload, true
}

// Mutates implements OpInfo.
func (NameOpInfo) Mutates(n *Node) []string {
	ns, name, overload, ok := splitTarget(n.Target)
	if !ok || ns != "aten" {
		return nil
	}
	if strings.HasSuffix(name, "_") && !strings.HasPrefix(name, "__") {
		if len(n.Inputs) > 0 {
			return []string{n.Inputs[0].Name}
		}
		return nil
	}
	if overload == "out" || strings.HasSuffix(overload, "_out") {
		var out []string
		for _, in := range n.Inputs {
			if in.Kwarg && (in.Name == "out" || strings.HasPrefix(in.Name, "out")) {
				out = append(out, in.Name)
			}
		}
		return out
	}
	return nil
}

// Functional implements OpInfo.
func (NameOpInfo) Functional(target string) string {
	ns, name, overload, ok := splitTarget(target)
	if !ok || ns != "aten" || !strings.HasSuffix(name, "_") || strings.HasPrefix(name, "__") {
		return ""
	}
	return ns + "::" + strings.TrimSuffix(name, "_") + "." + overload
}

// impureNames are aten ops (without overload) with effects: random number
// generation and checks.
var impureNames = map[string]bool{
	"bernoulli": true, "dropout": true, "native_dropout": true, "feature_dropout": true,
	"alpha_dropout": true, "feature_alpha_dropout": true, "multinomial": true, "normal": true,
	"poisson": true, "rand": true, "rand_like": true, "randint": true, "randint_like": true,
	"randn": true, "randn_like": true, "randperm": true, "uniform": true, "exponential": true,
	"geometric": true, "cauchy": true, "log_normal": true, "rrelu": true, "rrelu_with_noise": true,
	"_fused_dropout": true, "_assert_async": true, "_assert_scalar": true,
	"_assert_tensor_metadata": true, "sym_constrain_range": true,
	"sym_constrain_range_for_size": true, "_print": true, "_make_dep_token": true,
	"_functional_assert_async": true, "_functional_sym_constrain_range": true,
	"_functional_sym_constrain_range_for_size": true,
}

// Impure implements OpInfo.
func (o NameOpInfo) Impure(n *Node) bool {
	if len(o.Mutates(n)) > 0 || len(n.Subgraphs()) > 0 {
		return true
	}
	ns, name, _, ok := splitTarget(n.Target)
	if !ok {
		return false // _operator.*, torch.sym_*: pure scalar arithmetic
	}
	if ns != "aten" {
		return true // extension and higher-order ops: assume effects
	}
	return impureNames[name] || strings.HasPrefix(name, "_assert")
}
