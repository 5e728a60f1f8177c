package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
)

// Rules for ops that read across a padded dim: the padded positions are
// masked with the op's identity before it runs (fill), so that what it
// computes for the valid positions is exactly what the unpadded program
// computes, whatever the padded positions held (zero-filled inputs, or
// anything an earlier op computed there: NaN and Inf included).
//
//	sum, any, all, prod, amax, amin, max.dim, min.dim, argmax, argmin,
//	logsumexp over a padded dim: masked with 0, false, true, 1, -inf, +inf
//	mean over a padded dim: a masked sum divided by the actual count
//	softmax, log_softmax over a padded dim: masked with -inf
//	mm, addmm, bmm contracting a padded dim: both operands masked with 0
//
// A padded dim here must be one padded symbol alone (a lone dim): a dim
// that merges it with others is refused.

// maskInput masks one tensor argument of a node along one dim.
type maskInput struct {
	param string // the schema parameter
	dim   int
	sym   string // the padded symbol whose actual length bounds the valid positions
	off   int64  // the dim is sym+off long (dynamic_layout.go's atom.off)
	fill  string // "zero", "one", "false", "true", "-inf", "+inf"
}

// maskSpec is how a node is lowered under padding.
type maskSpec struct {
	inputs []maskInput
	// mean: the node is a mean over masked dims: lowered as a sum divided
	// by the actual count.
	mean bool
}

type padRule func(a *padAnalysis, n *fx.Node, ins []string) error

// padRules are the ops beyond dynamic_rules.go's switch, by target
// without ".default".
var padRules = map[string]padRule{}

func init() {
	for op, fill := range map[string]string{
		"aten::sum.dim_IntList": "zero", "aten::sum": "zero", "aten::mean.dim": "zero", "aten::mean": "zero",
		"aten::any.dim": "false", "aten::any.dims": "false", "aten::any": "false",
		"aten::all.dim": "true", "aten::all.dims": "true", "aten::all": "true",
		"aten::prod.dim_int": "one", "aten::amax": "-inf", "aten::amin": "+inf",
		"aten::max.dim": "-inf", "aten::min.dim": "+inf", "aten::argmax": "-inf", "aten::argmin": "+inf",
		"aten::logsumexp": "-inf",
	} {
		padRules[op] = reduceRule(fill)
	}
	padRules["aten::_softmax"] = softmaxRule
	padRules["aten::_log_softmax"] = softmaxRule
	padRules["aten::softmax.int"] = softmaxRule
	padRules["aten::log_softmax.int"] = softmaxRule
	padRules["aten::mm"] = contractRule("self", "mat2", 0, 1, 1, 0)
	padRules["aten::addmm"] = contractRule("mat1", "mat2", 0, 1, 1, 0)
	padRules["aten::bmm"] = contractRule("self", "mat2", 1, 2, 2, 1)
	padRules["aten::cumsum"] = cumsumRule
}

// reduceDims reads the reduced dims of a reduction node (every dim when
// it has none) and keepdim.
func reduceDimsOf(n *fx.Node, rank int) ([]int, bool) {
	keep := false
	if v, ok := n.Input("keepdim"); ok && v.Kind == fx.ArgBool {
		keep = v.Bool
	}
	var dims []int64
	if v, ok := n.Input("dim"); ok {
		switch v.Kind {
		case fx.ArgInt:
			dims = []int64{v.Int}
		case fx.ArgInts:
			dims = v.Ints
		}
	}
	var out []int
	if len(dims) == 0 {
		for d := 0; d < rank; d++ {
			out = append(out, d)
		}
		return out, keep
	}
	for _, d := range dims {
		if d < 0 {
			d += int64(rank)
		}
		out = append(out, int(d))
	}
	return out, keep
}

func reduceRule(fill string) padRule {
	return func(a *padAnalysis, n *fx.Node, ins []string) error {
		self := tensorArg(n, "self")
		l, ok := a.layouts[self]
		if !ok || len(ins) != 1 {
			return fmt.Errorf("padded operand other than self")
		}
		dims, keep := reduceDimsOf(n, len(l))
		if o := op(n); o == "aten::argmax" || o == "aten::argmin" {
			if v, ok := n.Input("dim"); !ok || v.Kind != fx.ArgInt {
				// The index into the flattened tensor: the same in the
				// padded one only when padding is in the leading dim.
				for d, dl := range l {
					if d > 0 && dl.padded() {
						return fmt.Errorf("flattened argmax/argmin with a padded dim other than the first")
					}
				}
			}
		}
		reduced := map[int]bool{}
		var spec maskSpec
		for _, d := range dims {
			if d < 0 || d >= len(l) {
				return fmt.Errorf("dim %d out of range", d)
			}
			reduced[d] = true
			if !l[d].padded() {
				continue
			}
			s := l[d].lone()
			if s == "" {
				return fmt.Errorf("reduces over a dim that merges a padded dim with others")
			}
			spec.inputs = append(spec.inputs, maskInput{param: "self", dim: d, sym: s, off: l[d].off(), fill: fill})
		}
		if len(spec.inputs) > 0 {
			spec.mean = op(n) == "aten::mean.dim" || op(n) == "aten::mean"
			a.fills[n.Name] = spec
		}
		var res layout
		for d, dl := range l {
			switch {
			case !reduced[d]:
				res = append(res, dl)
			case keep:
				res = append(res, dimLayout{{n: 1}})
			}
		}
		for _, out := range n.Outputs {
			for _, name := range out.TensorNames() {
				if m := a.g.Tensor(name); m != nil && m.Rank() == len(res) {
					a.set(name, res)
				} else if a.metaPadded(name) {
					return fmt.Errorf("output %s has an unexpected shape", name)
				}
			}
		}
		return nil
	}
}

func softmaxRule(a *padAnalysis, n *fx.Node, ins []string) error {
	self := n.Inputs[0].Arg.Name
	l, ok := a.layouts[self]
	if !ok || len(ins) != 1 {
		return fmt.Errorf("padded weight or bias")
	}
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(len(l))
	}
	if d < 0 || int(d) >= len(l) {
		return fmt.Errorf("dim out of range")
	}
	if l[d].padded() {
		s := l[d].lone()
		if s == "" {
			return fmt.Errorf("normalises along a dim that merges a padded dim with others")
		}
		a.fills[n.Name] = maskSpec{inputs: []maskInput{{param: n.Inputs[0].Name, dim: int(d), sym: s, off: l[d].off(), fill: "-inf"}}}
	}
	a.set(n.Outputs[0].Name, l)
	return nil
}

// contractRule handles a matrix product lhs × rhs with lhs's free dim li
// and contracted dim lk, rhs's free dim ri and contracted dim rk (bmm's
// batch dim 0 is shared); addmm's bias is a pointwise operand of the
// result.
func contractRule(lhs, rhs string, li, lk, ri, rk int) padRule {
	return func(a *padAnalysis, n *fx.Node, ins []string) error {
		ln, rn := tensorArg(n, lhs), tensorArg(n, rhs)
		get := func(name string) (layout, error) {
			if l, ok := a.layouts[name]; ok {
				return l, nil
			}
			return a.fromMeta(name, nil)
		}
		l, err := get(ln)
		if err != nil {
			return err
		}
		r, err := get(rn)
		if err != nil {
			return err
		}
		if len(l) <= lk || len(r) <= rk || len(l) <= li || len(r) <= ri {
			return fmt.Errorf("operands of rank %d and %d", len(l), len(r))
		}
		var spec maskSpec
		if l[lk].padded() || r[rk].padded() {
			s := l[lk].lone()
			if s == "" || !l[lk].equal(r[rk]) {
				return fmt.Errorf("contracts a padded dim that is not one padded symbol on both sides")
			}
			o := l[lk].off()
			spec.inputs = []maskInput{{param: lhs, dim: lk, sym: s, off: o, fill: "zero"}, {param: rhs, dim: rk, sym: s, off: o, fill: "zero"}}
		}
		var res layout
		if li == 1 { // bmm: batch dim
			if !l[0].equal(r[0]) {
				return fmt.Errorf("batch dims differ in padding")
			}
			res = append(res, l[0])
		}
		res = append(res, l[li], r[ri])
		if bias := tensorArg(n, "self"); lhs != "self" && bias != "" {
			if bl, ok := a.layouts[bias]; ok {
				off := len(res) - len(bl)
				for i, dl := range bl {
					if off+i < 0 || (dl.padded() && !dl.equal(res[off+i])) {
						return fmt.Errorf("padded bias does not match the product")
					}
				}
			}
		}
		if len(spec.inputs) > 0 {
			a.fills[n.Name] = spec
		}
		a.set(n.Outputs[0].Name, res)
		return nil
	}
}

// cumsum along a lone padded dim needs no mask: the valid positions sum
// only valid positions before them.
func cumsumRule(a *padAnalysis, n *fx.Node, ins []string) error {
	l := a.layouts[ins[0]]
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(len(l))
	}
	if d < 0 || int(d) >= len(l) {
		return fmt.Errorf("dim out of range")
	}
	if l[d].padded() && l[d].lone() == "" {
		return fmt.Errorf("accumulates along a dim that merges a padded dim with others")
	}
	a.set(n.Outputs[0].Name, l)
	return nil
}
