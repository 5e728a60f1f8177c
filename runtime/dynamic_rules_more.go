package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/sym"
)

// Rules for creation and layout ops under padding.

// padCreate ops make a tensor from sizes alone: a padded size gives a
// padded dim whose valid positions hold what the unpadded program's do
// (iota values and fills do not depend on the length).
var padCreate = map[string]bool{
	"aten::arange.start_step": true, "aten::arange": true, "aten::arange.start": true,
	"aten::full": true, "aten::zeros": true, "aten::ones": true, "aten::empty.memory_format": true,
	"aten::new_zeros": true, "aten::new_ones": true, "aten::new_full": true, "aten::new_empty": true,
	"aten::full_like": true, "aten::zeros_like": true, "aten::ones_like": true, "aten::empty_like": true,
	"aten::scalar_tensor": true,
}

// padSizeArgs are the ops that may take a padded size among their sym
// int arguments (as a size or a slice bound, never as a value computed
// with).
var padSizeArgs = map[string]bool{
	"aten::expand": true, "aten::slice.Tensor": true,
}

func init() {
	for op := range padCreate {
		padRules[op] = createRule
	}
	padRules["aten::expand"] = expandRule
	padRules["aten::slice.Tensor"] = sliceRule
	padRules["aten::split_with_sizes"] = splitRule
	padRules["aten::split.Tensor"] = splitRule
	padRules["aten::embedding"] = embeddingRule
	padRules["aten::native_layer_norm"] = nativeLayerNormRule
	padRules["aten::cat"] = catRule
	for _, op := range []string{
		"aten::eq.Tensor", "aten::eq.Scalar", "aten::ne.Tensor", "aten::ne.Scalar", "aten::lt.Tensor", "aten::lt.Scalar",
		"aten::le.Tensor", "aten::le.Scalar", "aten::gt.Tensor", "aten::gt.Scalar", "aten::ge.Tensor", "aten::ge.Scalar",
		"aten::logical_not", "aten::logical_and", "aten::logical_or", "aten::logical_xor",
		"aten::bitwise_and.Tensor", "aten::bitwise_or.Tensor", "aten::bitwise_xor.Tensor", "aten::bitwise_not",
		"aten::pow.Tensor_Tensor", "aten::pow.Scalar", "aten::log", "aten::log1p", "aten::expm1", "aten::sin", "aten::cos",
		"aten::reciprocal", "aten::sign", "aten::floor", "aten::ceil", "aten::round", "aten::trunc", "aten::clamp",
		"aten::clamp.Tensor", "aten::clamp_min", "aten::clamp_max", "aten::leaky_relu", "aten::hardtanh", "aten::elu",
		"aten::softplus", "aten::hardswish", "aten::hardsigmoid", "aten::mish", "aten::log_sigmoid_forward",
		"aten::where.ScalarOther", "aten::where.ScalarSelf", "aten::where.Scalar", "aten::masked_fill.Scalar",
		"aten::masked_fill.Tensor", "aten::rsub.Scalar", "aten::rsub.Tensor", "aten::remainder.Scalar",
		"aten::remainder.Tensor", "aten::fmod.Scalar", "aten::fmod.Tensor", "aten::div.Tensor_mode", "aten::div.Scalar_mode",
		"aten::isnan", "aten::isinf", "aten::nan_to_num", "aten::lerp.Scalar", "aten::lerp.Tensor", "aten::addcmul",
		"aten::addcdiv", "aten::true_divide.Tensor", "aten::atan2", "aten::erfinv", "aten::exp2", "aten::log2", "aten::log10",
		"aten::sinh", "aten::cosh", "aten::asinh", "aten::acosh", "aten::atanh", "aten::asin", "aten::acos", "aten::atan",
		"aten::tan", "aten::sgn", "aten::square", "aten::gelu_backward", "aten::threshold", "aten::threshold_backward",
		"aten::relu6", "aten::glu", "aten::lift_fresh_copy", "prims::convert_element_type", "aten::fill.Scalar",
	} {
		padPointwise[op] = true
	}
}

// createRule: the output's layout is its recorded shape.
func createRule(a *padAnalysis, n *fx.Node, ins []string) error {
	for _, out := range n.Outputs {
		for _, name := range out.TensorNames() {
			l, err := a.fromMeta(name, nil)
			if err != nil {
				return err
			}
			if o := op(n); len(ins) > 0 && (o == "aten::full_like" || o == "aten::zeros_like" || o == "aten::ones_like" || o == "aten::empty_like") {
				l = a.layouts[ins[0]]
			}
			a.set(name, l)
		}
	}
	return nil
}

// expandRule: existing dims keep their layout; a size-1 dim expanded to
// a padded size, and new leading dims, take their recorded shape.
func expandRule(a *padAnalysis, n *fx.Node, ins []string) error {
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	self := tensorArg(n, "self")
	l, tracked := a.layouts[self]
	if !tracked {
		var err error
		if l, err = a.fromMeta(self, nil); err != nil {
			return err
		}
	}
	if m == nil || m.Rank() < len(l) {
		return fmt.Errorf("unexpected output rank")
	}
	off := m.Rank() - len(l)
	keep := map[int]dimLayout{}
	for i, dl := range l {
		if dl.padded() {
			keep[off+i] = dl
		}
	}
	res, err := a.fromMeta(out, keep)
	if err != nil {
		return err
	}
	a.set(out, res)
	return nil
}

// sliceRule: a slice along an unpadded dim keeps the layout. Along a
// lone padded dim s+c (valid positions [0, s+c)), a slice [a, e) with
// step 1 whose result is s+k long is valid where k <= c-a: its positions
// read only valid ones, and in the padded program the symbolic end gives
// the padded length. A slice with static bounds below the symbol's least
// value reads valid positions only, and is static.
func sliceRule(a *padAnalysis, n *fx.Node, ins []string) error {
	self := tensorArg(n, "self")
	l, ok := a.layouts[self]
	if !ok {
		return fmt.Errorf("slices a tensor with an untracked padded dim")
	}
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(len(l))
	}
	if d < 0 || int(d) >= len(l) {
		return fmt.Errorf("dim out of range")
	}
	out := n.Outputs[0].Name
	keep := map[int]dimLayout{}
	for i, dl := range l {
		if i != int(d) && dl.padded() {
			keep[i] = dl
		}
	}
	m := a.g.Tensor(out)
	if m == nil || m.Rank() != len(l) {
		return fmt.Errorf("unexpected output rank")
	}
	if l[d].padded() {
		s := l[d].lone()
		if s == "" {
			return fmt.Errorf("slices a dim that merges a padded dim with others")
		}
		start, _ := intArg(n, "start")
		step := int64(1)
		if v, ok := intArg(n, "step"); ok {
			step = v
		}
		if step != 1 {
			return fmt.Errorf("slices a padded dim with a step")
		}
		od := m.Shape[d]
		if start < 0 { // from the end: at the actual end (dynamic_slice, dynamic_mask.go)
			end := int64(1<<63 - 1)
			if e, ok := intArg(n, "end"); ok {
				end = e
			}
			if !od.IsStatic() || (end < 0 && end <= start) || (end >= 0 && end < 1<<62) || -start > l[d].off()+a.minOf(s) {
				return fmt.Errorf("slices a padded dim from its end other than to its end")
			}
			a.tails[n.Name] = tailSlice{dim: int(d), sym: s, off: l[d].off(), start: start}
			res, err := a.fromMeta(out, keep)
			if err != nil {
				return err
			}
			a.set(out, res)
			return nil
		}
		switch {
		case od.IsStatic():
			rg, ok := a.g.Ranges[s]
			if !ok || rg.Min == nil || start+od.Static > *rg.Min+l[d].off() {
				return fmt.Errorf("a static slice of a padded dim may reach padded positions")
			}
		case od.Expr.Op == sym.OpSymbol && od.Expr.Name == s:
			if 0 > l[d].off()-start {
				return fmt.Errorf("slices past the valid positions")
			}
			keep[int(d)] = dimLayout{{s: s}}
		case symPlus(od.Expr) == s:
			_, k := symPlusParts(od.Expr)
			if k > l[d].off()-start {
				return fmt.Errorf("slices past the valid positions")
			}
			keep[int(d)] = dimLayout{{s: s, off: k}}
		default:
			return fmt.Errorf("slices a padded dim to %s", od)
		}
	}
	res, err := a.fromMeta(out, keep)
	if err != nil {
		return err
	}
	a.set(out, res)
	return nil
}

// splitRule: a split along an unpadded dim; each piece keeps the other
// dims' layouts.
func splitRule(a *padAnalysis, n *fx.Node, ins []string) error {
	self := tensorArg(n, "self")
	l := a.layouts[self]
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(len(l))
	}
	if d < 0 || int(d) >= len(l) || l[d].padded() {
		return fmt.Errorf("splits along a padded dim")
	}
	keep := map[int]dimLayout{}
	for i, dl := range l {
		if i != int(d) && dl.padded() {
			keep[i] = dl
		}
	}
	for _, out := range n.Outputs {
		for _, name := range out.TensorNames() {
			res, err := a.fromMeta(name, keep)
			if err != nil {
				return err
			}
			a.set(name, res)
		}
	}
	return nil
}

// embeddingRule: rows of an unpadded table picked by padded indices (a
// padded index position holds whatever index, a valid one once the
// inputs are zero-padded; its row is sliced away).
func embeddingRule(a *padAnalysis, n *fx.Node, ins []string) error {
	if _, padded := a.layouts[tensorArg(n, "weight")]; padded {
		return fmt.Errorf("padded embedding table")
	}
	il, ok := a.layouts[tensorArg(n, "indices")]
	if !ok {
		return fmt.Errorf("untracked indices")
	}
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	if m == nil || m.Rank() != len(il)+1 || !m.Shape[len(il)].IsStatic() {
		return fmt.Errorf("unexpected output shape")
	}
	a.set(out, append(append(layout{}, il...), dimLayout{{n: m.Shape[len(il)].Static}}))
	return nil
}

// nativeLayerNormRule: normalised over unpadded trailing dims; mean and
// rstd keep the leading layouts.
func nativeLayerNormRule(a *padAnalysis, n *fx.Node, ins []string) error {
	in := tensorArg(n, "input")
	l, ok := a.layouts[in]
	if !ok || len(ins) != 1 {
		return fmt.Errorf("padded weight or bias")
	}
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
	keep := map[int]dimLayout{}
	for i, dl := range l[:len(l)-k] {
		if dl.padded() {
			keep[i] = dl
		}
	}
	for i, out := range n.Outputs {
		for _, name := range out.TensorNames() {
			if i == 0 {
				a.set(name, l)
				continue
			}
			res, err := a.fromMeta(name, keep)
			if err != nil {
				return err
			}
			a.set(name, res)
		}
	}
	return nil
}

// catRule: a concatenation along an unpadded dim (the pieces agree on
// the padded dims), or along a padded dim with one padded piece: static
// pieces before it shift the valid positions (a prefix still); static
// pieces after it are written at the actual end (a dynamic_update_slice,
// dynamic_mask.go: a KV cache growing by one token).
func catRule(a *padAnalysis, n *fx.Node, ins []string) error {
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	if m == nil {
		return fmt.Errorf("no output shape")
	}
	d, _ := intArg(n, "dim")
	if d < 0 {
		d += int64(m.Rank())
	}
	if d < 0 || int(d) >= m.Rank() {
		return fmt.Errorf("dim out of range")
	}
	keep := map[int]dimLayout{}
	tv, _ := n.Input("tensors")
	names := tv.TensorNames()
	var before, after int64
	padIdx := -1
	for pi, name := range names {
		l, tracked := a.layouts[name]
		if !tracked {
			pm := a.g.Tensor(name)
			if pm != nil && pm.Rank() == 1 && pm.Shape[0].IsStatic() && pm.Shape[0].Static == 0 {
				continue // an empty 1-D piece: cat skips it
			}
			if pm == nil || pm.Rank() != m.Rank() {
				return fmt.Errorf("piece %s of another rank", name)
			}
			if !pm.Shape[d].IsStatic() {
				continue // only matters along a padded dim: checked below
			}
			if padIdx < 0 {
				before += pm.Shape[d].Static
			} else {
				after += pm.Shape[d].Static
			}
			continue
		}
		if len(l) != m.Rank() {
			return fmt.Errorf("pieces of rank %d for rank %d", len(l), m.Rank())
		}
		for i, dl := range l {
			if !dl.padded() {
				if i == int(d) {
					if padIdx < 0 {
						before += dl[0].n
					} else {
						after += dl[0].n
					}
				}
				continue
			}
			if i == int(d) {
				if padIdx >= 0 || dl.lone() == "" {
					return fmt.Errorf("concatenates two padded pieces along a padded dim")
				}
				padIdx = pi
				keep[i] = dl
				continue
			}
			if keep[i] != nil && !keep[i].equal(dl) {
				return fmt.Errorf("pieces disagree on a padded dim")
			}
			keep[i] = dl
		}
	}
	if padIdx >= 0 {
		dl := keep[int(d)]
		s := dl.lone()
		keep[int(d)] = dimLayout{{s: s, off: dl.off() + before + after}}
		if after > 0 {
			a.catTails[n.Name] = catTail{dim: int(d), sym: s, off: dl.off() + before, piece: padIdx}
		}
	}
	res, err := a.fromMeta(out, keep)
	if err != nil {
		return err
	}
	a.set(out, res)
	return nil
}

// catTail is a concatenation along a padded dim with static pieces after
// the padded one: they go at the actual end.
type catTail struct {
	dim   int
	sym   string
	off   int64 // valid positions up to the end of the padded piece: sym+off
	piece int   // index of the padded piece
}

// tailSlice is a slice [start:] (start < 0) along a padded dim, lowered
// as a dynamic_slice at the actual length.
type tailSlice struct {
	dim   int
	sym   string
	off   int64
	start int64
}

// minOf is the least value of a symbol (its range's minimum, else 1).
func (a *padAnalysis) minOf(s string) int64 {
	if rg, ok := a.g.Ranges[s]; ok && rg.Min != nil {
		return *rg.Min
	}
	return 1
}
