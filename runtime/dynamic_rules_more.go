package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
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
		"aten::softplus", "aten::hardswish", "aten::hardsigmoid", "aten::mish",
		"aten::where.ScalarOther", "aten::where.ScalarSelf", "aten::where.Scalar", "aten::masked_fill.Scalar",
		"aten::masked_fill.Tensor", "aten::rsub.Scalar", "aten::rsub.Tensor", "aten::remainder.Scalar",
		"aten::remainder.Tensor", "aten::fmod.Scalar", "aten::fmod.Tensor", "aten::div.Tensor_mode", "aten::div.Scalar_mode",
		"aten::isnan", "aten::isinf", "aten::nan_to_num", "aten::lerp.Scalar", "aten::lerp.Tensor", "aten::addcmul",
		"aten::addcdiv", "aten::true_divide.Tensor", "aten::atan2", "aten::erfinv", "aten::exp2", "aten::log2", "aten::log10",
		"aten::sinh", "aten::cosh", "aten::asinh", "aten::acosh", "aten::atanh", "aten::asin", "aten::acos", "aten::atan",
		"aten::tan", "aten::sgn", "aten::square", "aten::gelu_backward", "aten::threshold", "aten::threshold_backward",
		"aten::relu6", "aten::lift_fresh_copy", "prims::convert_element_type", "aten::fill.Scalar",
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
