package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/sym"
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
	case symIn && !padReshape[o]:
		return fmt.Errorf("uses a padded size as a value")
	case len(ins) == 0 && !outPadded:
		return nil // nothing padded here
	case len(ins) == 0:
		return fmt.Errorf("creates a tensor with a padded dim from nothing padded")
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
	case o == "aten::layer_norm" || o == "aten::softmax.int" || o == "aten::_softmax" || o == "aten::log_softmax.int" || o == "aten::_log_softmax":
		if len(ins) != 1 || ins[0] != n.Inputs[0].Arg.Name {
			return fmt.Errorf("padded weight or bias")
		}
		l := a.layouts[ins[0]]
		k := 1
		if o == "aten::layer_norm" {
			ns, _ := n.Input("normalized_shape")
			k = len(ns.Ints) + len(ns.SymInts)
		} else {
			d, _ := intArg(n, "dim")
			if d < 0 {
				d += int64(len(l))
			}
			if d < 0 || int(d) >= len(l) || l[d].padded() {
				return fmt.Errorf("normalises along a padded dim")
			}
			k = 0
		}
		for _, dl := range l[len(l)-k:] {
			if dl.padded() {
				return fmt.Errorf("normalises over a padded dim")
			}
		}
		a.set(out, l)
		return nil
	case o == "aten::scaled_dot_product_attention":
		return a.sdpa(n)
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

// reshape matches the output's recorded dims against the input's atoms,
// major to minor: static dims consume (and may split) static atoms; a
// padded dim c*s consumes whole atoms until it holds s and the factor c.
func (a *padAnalysis) reshape(n *fx.Node, in string) error {
	var atoms []atom
	for _, dl := range a.layouts[in] {
		atoms = append(atoms, dl...)
	}
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	if m == nil {
		return fmt.Errorf("no output shape")
	}
	res := make(layout, m.Rank())
	for i, d := range m.Shape {
		if d.IsStatic() {
			need := d.Static
			var dl dimLayout
			for need > 1 {
				for len(atoms) > 0 && atoms[0].s == "" && atoms[0].n == 1 {
					atoms = atoms[1:]
				}
				if len(atoms) == 0 || atoms[0].s != "" {
					return fmt.Errorf("dim %d (%d) would take part of a padded dim", i, d.Static)
				}
				at := atoms[0]
				switch {
				case at.n <= need && need%at.n == 0:
					need /= at.n
					atoms = atoms[1:]
				case at.n > need && at.n%need == 0:
					atoms[0].n = at.n / need
					need = 1
				default:
					return fmt.Errorf("dim %d (%d) does not split the input dims evenly", i, d.Static)
				}
			}
			res[i] = append(dl, atom{n: d.Static})
			continue
		}
		coef, syms, ok := monomial(d.Expr)
		if !ok {
			return fmt.Errorf("dim %d is %s, not a product of a constant and symbols", i, d)
		}
		want := map[string]bool{}
		for _, s := range syms {
			if !a.padded[s] {
				return fmt.Errorf("dim %d is %s, with a symbol that is not padded", i, d)
			}
			want[s] = true
		}
		var dl dimLayout
		prod := int64(1)
		for len(want) > 0 || prod != coef {
			if len(atoms) == 0 {
				return fmt.Errorf("dim %d (%s) does not match the input's dims", i, d)
			}
			at := atoms[0]
			atoms = atoms[1:]
			if at.s != "" {
				if !want[at.s] {
					return fmt.Errorf("dim %d (%s) would hold padded %s", i, d, at.s)
				}
				delete(want, at.s)
			} else {
				prod *= at.n
				if prod > coef || coef%prod != 0 {
					return fmt.Errorf("dim %d (%s) does not match the input's dims", i, d)
				}
			}
			dl = append(dl, at)
		}
		res[i] = dl
	}
	for _, at := range atoms {
		if at.s != "" || at.n != 1 {
			return fmt.Errorf("input dims left over")
		}
	}
	a.set(out, res)
	return nil
}

// monomial reads c*s1*s2... (or a lone symbol).
func monomial(e *sym.Expr) (int64, []string, bool) {
	switch e.Op {
	case sym.OpSymbol:
		return 1, []string{e.Name}, true
	case sym.OpMul:
		c := int64(1)
		var syms []string
		for _, x := range e.Args {
			switch x.Op {
			case sym.OpInt:
				c *= x.Int
			case sym.OpSymbol:
				syms = append(syms, x.Name)
			default:
				return 0, nil, false
			}
		}
		return c, syms, c > 0
	}
	return 0, nil, false
}

// sdpa allows padded query and key/value sequence dims (the key dim is
// masked at run time); batch, head and feature dims must not be padded.
func (a *padAnalysis) sdpa(n *fx.Node) error {
	get := func(name string) (layout, error) {
		t := tensorArg(n, name)
		if l, ok := a.layouts[t]; ok {
			return l, nil
		}
		return a.fromMeta(t, nil)
	}
	if m := tensorArg(n, "attn_mask"); m != "" {
		return fmt.Errorf("an explicit attn_mask with padding is not supported")
	}
	if v, ok := n.Input("dropout_p"); ok && v.Kind == fx.ArgFloat && v.Float != 0 {
		return fmt.Errorf("attention dropout")
	}
	q, err := get("query")
	if err != nil {
		return err
	}
	k, err := get("key")
	if err != nil {
		return err
	}
	v, err := get("value")
	if err != nil {
		return err
	}
	for _, l := range []layout{q, k, v} {
		if len(l) < 2 || l[len(l)-1].padded() {
			return fmt.Errorf("padded feature dim")
		}
		for _, dl := range l[:len(l)-2] {
			if dl.padded() {
				return fmt.Errorf("padded batch or head dim")
			}
		}
		if d := l[len(l)-2]; d.padded() && d.lone() == "" {
			return fmt.Errorf("sequence dim mixes a padded dim with others")
		}
	}
	ks, vs := k[len(k)-2], v[len(v)-2]
	if !ks.equal(vs) {
		return fmt.Errorf("key and value sequence dims differ")
	}
	if s := ks.lone(); s != "" {
		a.masks[n.Name] = s
	}
	res := append(layout{}, q[:len(q)-1]...)
	res = append(res, v[len(v)-1])
	a.set(n.Outputs[0].Name, res)
	return nil
}
