package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
)

// Ops that act on each element alone: a padded dim passes through.
var padPointwise = map[string]bool{
	"aten::relu": true, "aten::gelu": true, "aten::silu": true, "aten::sigmoid": true, "aten::tanh": true,
	"aten::neg": true, "aten::abs": true, "aten::exp": true, "aten::contiguous": true, "aten::clone": true,
	"aten::alias": true, "aten::detach": true, "aten::_to_copy": true, "aten::to.dtype": true,
	"aten::add.Tensor": true, "aten::sub.Tensor": true, "aten::mul.Tensor": true, "aten::div.Tensor": true,
	"aten::add.Scalar": true, "aten::sub.Scalar": true, "aten::mul.Scalar": true, "aten::div.Scalar": true,
	"aten::maximum": true, "aten::minimum": true, "aten::where.self": true, "aten::pow.Tensor_Scalar": true,
	"aten::rsqrt": true, "aten::sqrt": true, "aten::erf": true, "aten::dropout": true,
}

// Ops whose shape arguments may be padded sym ints (they reshape).
var padReshape = map[string]bool{
	"aten::view": true, "aten::reshape": true, "aten::_unsafe_view": true, "aten::unflatten.int": true,
	"aten::flatten.using_ints": true, "aten::squeeze.dim": true, "aten::squeeze.dims": true,
	"aten::unsqueeze": true,
}

// node propagates layouts through one node or says why it cannot.
func (a *padAnalysis) node(n *fx.Node) error {
	o := op(n)
	var ins []string
	symIn := false
	for _, in := range n.Inputs {
		for _, name := range in.Arg.TensorNames() {
			if _, ok := a.layouts[name]; ok {
				ins = append(ins, name)
			}
		}
		for _, s := range in.Arg.SymInts {
			if a.symVals[s.Name] {
				symIn = true
			}
		}
	}
	outPadded := false
	for _, out := range n.Outputs {
		for _, name := range out.TensorNames() {
			if a.metaPadded(name) {
				outPadded = true
			}
		}
	}
	switch {
	case o == "aten::sym_size.int":
		if l, ok := a.layouts[tensorArg(n, "self")]; ok {
			d, _ := intArg(n, "dim")
			if d < 0 {
				d += int64(len(l))
			}
			if d >= 0 && int(d) < len(l) && l[d].padded() {
				a.markSyms(n)
			}
		}
		return nil
	case len(o) > 10 && o[:10] == "_operator.":
		if symIn {
			a.markSyms(n)
		}
		return nil
	case symIn && !padReshape[o] && !padSizeArgs[o] && !padCreate[o]:
		return fmt.Errorf("uses a padded size as a value")
	case len(ins) == 0 && !outPadded:
		return nil // nothing padded here
	case len(ins) == 0 && padCreate[o]:
		return createRule(a, n, ins)
	case len(ins) == 0:
		return fmt.Errorf("creates a tensor with a padded dim from nothing padded")
	case len(n.Outputs) == 0:
		return fmt.Errorf("reads a padded tensor and returns nothing")
	}
	out := n.Outputs[0].Name
	switch {
	case o == "aten::dropout":
		if train, ok := n.Input("train"); ok && train.Kind == fx.ArgBool && train.Bool {
			return fmt.Errorf("dropout in training mode")
		}
		a.set(out, a.layouts[ins[0]])
		return nil
	case padPointwise[o]:
		return a.pointwise(n)
	case padReshape[o]:
		return a.reshape(n, ins[0])
	case o == "aten::transpose.int" || o == "aten::permute" || o == "aten::t":
		return a.permute(n, ins[0])
	case o == "aten::select.int":
		l := a.layouts[ins[0]]
		d, _ := intArg(n, "dim")
		if d < 0 {
			d += int64(len(l))
		}
		if d < 0 || int(d) >= len(l) || l[d].padded() {
			return fmt.Errorf("selects along a padded dim")
		}
		a.set(out, append(append(layout{}, l[:d]...), l[d+1:]...))
		return nil
	case o == "aten::linear":
		if len(ins) != 1 || ins[0] != tensorArg(n, "input") {
			return fmt.Errorf("padded weight or bias")
		}
		l := a.layouts[ins[0]]
		if l[len(l)-1].padded() {
			return fmt.Errorf("contracts a padded dim")
		}
		m := a.g.Tensor(out)
		if m == nil || m.Rank() != len(l) {
			return fmt.Errorf("unexpected output rank")
		}
		a.set(out, append(append(layout{}, l[:len(l)-1]...), dimLayout{{n: m.Shape[len(l)-1].Static}}))
		return nil
	case o == "aten::layer_norm":
		if len(ins) != 1 || ins[0] != n.Inputs[0].Arg.Name {
			return fmt.Errorf("padded weight or bias")
		}
		l := a.layouts[ins[0]]
		ns, _ := n.Input("normalized_shape")
		k := len(ns.Ints) + len(ns.SymInts)
		if k > len(l) {
			return fmt.Errorf("normalized_shape has %d dims, the input %d", k, len(l))
		}
		for _, dl := range l[len(l)-k:] {
			if dl.padded() {
				return fmt.Errorf("normalises over a padded dim")
			}
		}
		a.set(out, l)
		return nil
	case o == "aten::scaled_dot_product_attention", o == "aten::_scaled_dot_product_flash_attention_for_cpu":
		return a.sdpa(n)
	}
	if rule, ok := padRules[o]; ok {
		return rule(a, n, ins)
	}
	return fmt.Errorf("is not known to be safe on a padded dim")
}

func (a *padAnalysis) markSyms(n *fx.Node) {
	for _, out := range n.Outputs {
		for _, s := range out.SymInts {
			if s.Name != "" {
				a.symVals[s.Name] = true
			}
		}
		if out.Kind == fx.ArgSymInt && out.Name != "" {
			a.symVals[out.Name] = true
		}
	}
}

func tensorArg(n *fx.Node, name string) string {
	if v, ok := n.Input(name); ok && v.Kind == fx.ArgTensor {
		return v.Name
	}
	return ""
}

func intArg(n *fx.Node, name string) (int64, bool) {
	if v, ok := n.Input(name); ok && v.Kind == fx.ArgInt {
		return v.Int, true
	}
	return 0, false
}

// pointwise: every tensor operand, aligned right, must agree on each
// padded dim (a size-1 dim broadcasts).
func (a *padAnalysis) pointwise(n *fx.Node) error {
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	if m == nil {
		return fmt.Errorf("no output shape")
	}
	res := make(layout, m.Rank())
	for _, in := range n.Inputs {
		for _, name := range in.Arg.TensorNames() {
			l, ok := a.layouts[name]
			if !ok {
				if a.metaPadded(name) {
					return fmt.Errorf("operand %s has an untracked padded dim", name)
				}
				continue
			}
			off := len(res) - len(l)
			if off < 0 {
				return fmt.Errorf("operand of higher rank than the result")
			}
			for i, dl := range l {
				if !dl.padded() {
					continue
				}
				if res[off+i] != nil && !res[off+i].equal(dl) {
					return fmt.Errorf("operands disagree on a padded dim")
				}
				res[off+i] = dl
			}
		}
	}
	keep := map[int]dimLayout{}
	for i, dl := range res {
		if dl != nil {
			keep[i] = dl
		}
	}
	// Static operands must not meet a padded dim with a size other than 1.
	for _, in := range n.Inputs {
		for _, name := range in.Arg.TensorNames() {
			if _, ok := a.layouts[name]; ok {
				continue
			}
			if mm := a.g.Tensor(name); mm != nil {
				off := len(res) - mm.Rank()
				for i, d := range mm.Shape {
					if keep[off+i] != nil && !(d.IsStatic() && d.Static == 1) {
						return fmt.Errorf("operand %s meets a padded dim with size %s", name, d)
					}
				}
			}
		}
	}
	l, err := a.fromMetaKeep(out, keep)
	if err != nil {
		return err
	}
	a.set(out, l)
	return nil
}

func (a *padAnalysis) fromMetaKeep(name string, keep map[int]dimLayout) (layout, error) {
	return a.fromMeta(name, keep)
}

// permute handles transpose.int, permute and t.
func (a *padAnalysis) permute(n *fx.Node, in string) error {
	l := a.layouts[in]
	r := int64(len(l))
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	norm := func(d int64) int64 {
		if d < 0 {
			d += r
		}
		return d
	}
	switch op(n) {
	case "aten::permute":
		dims, _ := n.Input("dims")
		if len(dims.Ints) != int(r) {
			return fmt.Errorf("permutation of rank %d for rank %d", len(dims.Ints), r)
		}
		for i, d := range dims.Ints {
			perm[i] = norm(d)
		}
	default:
		d0, _ := intArg(n, "dim0")
		d1, _ := intArg(n, "dim1")
		if op(n) == "aten::t" {
			d0, d1 = 0, r-1
		}
		d0, d1 = norm(d0), norm(d1)
		if d0 < 0 || d1 < 0 || d0 >= r || d1 >= r {
			return fmt.Errorf("dims out of range")
		}
		perm[d0], perm[d1] = perm[d1], perm[d0]
	}
	res := make(layout, r)
	for i, p := range perm {
		if p < 0 || p >= r {
			return fmt.Errorf("dims out of range")
		}
		res[i] = l[p]
	}
	a.set(n.Outputs[0].Name, res)
	return nil
}
