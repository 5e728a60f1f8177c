package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/sym"
)

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
		if sp, k := symPlusParts(d.Expr); sp != "" { // s+k: one whole atom s+k
			for len(atoms) > 0 && atoms[0].s == "" && atoms[0].n == 1 {
				atoms = atoms[1:]
			}
			if len(atoms) == 0 || atoms[0] != (atom{s: sp, off: k}) {
				return fmt.Errorf("dim %d (%s) does not match the input's dims", i, d)
			}
			res[i] = dimLayout{atoms[0]}
			atoms = atoms[1:]
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
				if at.off != 0 {
					return fmt.Errorf("dim %d (%s) merges a concatenated padded dim", i, d)
				}
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

// sdpa allows, for scaled_dot_product_attention and the fused CPU op
// _scaled_dot_product_flash_attention_for_cpu (whose log-sum-exp follows
// the queries), padded query and key/value sequence dims (the key dim is
// masked at run time); batch, head and feature dims must not be padded.
func (a *padAnalysis) sdpa(n *fx.Node) error {
	get := func(name string) (layout, error) {
		t := tensorArg(n, name)
		if l, ok := a.layouts[t]; ok {
			return l, nil
		}
		return a.fromMeta(t, nil)
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
	}
	for _, l := range []layout{k, v} {
		if d := l[len(l)-2]; d.padded() && d.lone() == "" {
			return fmt.Errorf("key/value sequence dim mixes a padded dim with others")
		}
	}
	ks, vs := k[len(k)-2], v[len(v)-2]
	if ks.padded() != vs.padded() || (!ks.padded() && !ks.equal(vs)) {
		return fmt.Errorf("key and value sequence dims differ")
	}
	if mname := tensorArg(n, "attn_mask"); mname != "" {
		// An explicit mask is kept where query and key are real; the
		// padded keys are masked out with it at run time (maskedAttention).
		// Its last two dims may be the query and key dims (padded alike)
		// or unpadded; others must not be padded.
		m, err := get("attn_mask")
		if err != nil {
			return err
		}
		for i, dl := range m {
			if !dl.padded() {
				continue
			}
			switch {
			case i == len(m)-1 && dl.equal(ks):
			case i == len(m)-2 && dl.equal(q[len(q)-2]):
			default:
				return fmt.Errorf("attn_mask dim %d is padded unlike the query and key dims", i)
			}
		}
	}
	if s := ks.lone(); s != "" {
		a.masks[n.Name] = keyMask{sym: s, off: ks.off(), vsym: vs.lone(), voff: vs.off()}
	}
	res := append(layout{}, q[:len(q)-1]...)
	res = append(res, v[len(v)-1])
	a.set(n.Outputs[0].Name, res)
	if len(n.Outputs) > 1 && n.Outputs[1].Kind == fx.ArgTensor {
		// the fused op's log-sum-exp, one per query: [batch, heads, L]
		a.set(n.Outputs[1].Name, append(layout{}, q[:len(q)-1]...))
	}
	return nil
}
