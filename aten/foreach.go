package aten

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The multi-tensor ops of PyTorch's optimizers (torch._foreach_*): one call
// applies an elementwise op to every tensor of a list, so an AdamW step over
// a model is a dozen calls rather than ten per parameter. Each item rounds
// as PyTorch's CPU kernel for the single-tensor op does:
//
//   - add, sub and mul with a number: the number converted to the item's
//     result dtype (a wrapped number's promotion), then the op, as the
//     in-place forms the optimizers call round (PyTorch's functional
//     _foreach_mul keeps a bfloat16 list's number in float32: the one
//     case here a last bit apart from it);
//   - div by a number: the number in the op-math dtype (div_true_kernel
//     keeps float32 for bfloat16);
//   - alpha (add, sub) and value (addcmul, addcdiv): self ± alpha * other,
//     self + value * t1 / t2 in the op-math dtype, rounded once;
//   - lerp's weight in the op-math dtype, lerp's formula.
//
// A number arrives as a program argument, a 0-d float64, int64, bool or
// complex128 tensor holding the Python value (the tpu device passes them
// so, and a step size that changes every step keeps the program), or as a
// constant; both compute the same.

func init() {
	for _, b := range []struct {
		name, hlo string
		alpha     bool
		tensor    bool // has the .Tensor overload (a 0-d tensor for every item)
	}{
		{"add", "add", true, true},
		{"sub", "subtract", true, false},
		{"mul", "multiply", false, true},
		{"div", "divide", false, true},
	} {
		alpha := ""
		if b.alpha {
			alpha = ", *, Scalar alpha=1"
		}
		// PyTorch's CPU division by a number keeps it in the op-math
		// dtype (div_true_kernel), not rounded to the result's
		fe := foreachBinary{elem: "aten::" + b.name + ".Tensor", hlo: b.hlo, alpha: b.alpha, numOpMath: b.name == "div"}
		registerForeach(fmt.Sprintf("_foreach_%s.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]", b.name), fe.scalar("scalar", false))
		registerForeach(fmt.Sprintf("_foreach_%s.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]", b.name), fe.scalar("scalars", true))
		registerForeach(fmt.Sprintf("_foreach_%s.List(Tensor[] self, Tensor[] other%s) -> Tensor[]", b.name, alpha), fe.list)
		if b.tensor {
			registerForeach(fmt.Sprintf("_foreach_%s.Tensor(Tensor[] self, Tensor other%s) -> Tensor[]", b.name, alpha), fe.tensor)
		}
	}
	for _, op := range []string{"addcmul", "addcdiv"} {
		fe := foreachAddc{div: op == "addcdiv"}
		registerForeach(fmt.Sprintf("_foreach_%s.Scalar(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> Tensor[]", op), fe.lower("value", false))
		registerForeach(fmt.Sprintf("_foreach_%s.ScalarList(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> Tensor[]", op), fe.lower("scalars", true))
	}
	registerForeach("_foreach_lerp.Scalar(Tensor[] self, Tensor[] tensors1, Scalar weight) -> Tensor[]", foreachLerp("weight", false, false))
	registerForeach("_foreach_lerp.ScalarList(Tensor[] self, Tensor[] tensors1, Scalar[] weight) -> Tensor[]", foreachLerp("weight", true, false))
	registerForeach("_foreach_lerp.List(Tensor[] self, Tensor[] tensors1, Tensor[] weights) -> Tensor[]", foreachLerp("weights", true, true))
	for _, op := range []string{"abs", "exp", "expm1", "neg", "reciprocal", "sigmoid", "sign", "sqrt"} {
		elem := "aten::" + op + ".default"
		registerForeach(fmt.Sprintf("_foreach_%s(Tensor[] self) -> Tensor[]", op), func(c *LowerCtx, a *Args) ([]Value, error) {
			return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
				return c.Call1(elem, TensorValue(x)), nil
			})
		})
	}
	// clip_grad_norm_'s norms: ord is a constant (the tpu device passes
	// only the numbers an optimizer changes as values)
	registerForeach("_foreach_norm.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype=None) -> Tensor[]", func(c *LowerCtx, a *Args) ([]Value, error) {
		ord, dt := a.Value("ord"), a.Value("dtype")
		if _, ok := scalarOf(ord); !ok {
			return nil, fmt.Errorf("ord must be a number, have %v", ord)
		}
		return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
			// linalg_vector_norm(self, ord, dim=None, keepdim=False, *, dtype)
			return c.Call1("aten::linalg_vector_norm", TensorValue(x), ord, None(), BoolValue(false), dt), nil
		})
	})
	registerForeach("_foreach_zero(Tensor[] self) -> Tensor[] self_out", func(c *LowerCtx, a *Args) ([]Value, error) {
		return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
			return c.Splat(c.DType(x), c.Shape(x), 0), nil
		})
	})
}

func registerForeach(schema string, fn LowerFunc) {
	name, _, _ := strings.Cut(schema, "(")
	if !strings.Contains(name, ".") {
		name += ".default"
	}
	Register(Entry{Name: "aten::" + name, Schema: schema, Kind: Lowered, Lower: fn})
}

// foreachEach maps fn over the self list and returns the list of results;
// an item's entry that fails (LowerCtx.Call1) fails the call.
func foreachEach(c *LowerCtx, a *Args, fn func(i int, x *stablehlo.Value) (*stablehlo.Value, error)) ([]Value, error) {
	xs := a.Tensors("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	outs := make([]Value, len(xs))
	for i, x := range xs {
		if x == nil {
			return nil, fmt.Errorf("self[%d] is None", i)
		}
		y, err := fn(i, x)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		outs[i] = TensorValue(y)
	}
	return []Value{ListValue(outs...)}, c.Err()
}

// listItem returns item i of list argument name, which must have n items.
func listItem(a *Args, name string, i, n int) Value {
	v := a.Value(name)
	if v.Kind != KList || len(v.List) != n {
		a.Errorf("argument %s: want a list of %d items, have %v", name, n, v)
		return None()
	}
	return v.List[i]
}

// numOperand is how a number argument (a Python value, or a program
// argument holding one) ranks in type promotion: a wrapped number of its
// kind.
func numOperand(c *LowerCtx, v Value) (Operand, error) {
	if v.Kind == KTensor && v.T != nil {
		if c.Rank(v.T) != 0 {
			return Operand{}, fmt.Errorf("a number argument is a tensor of shape %v", c.Shape(v.T))
		}
		switch dt := c.DType(v.T); {
		case dt.IsComplex():
			return ScalarOperand(Scalar{Kind: KComplex}), nil
		case dt.IsFloat():
			return ScalarOperand(Scalar{Kind: KFloat}), nil
		case dt == dtype.Bool:
			return ScalarOperand(Scalar{Kind: KBool}), nil
		default:
			return ScalarOperand(Scalar{Kind: KInt}), nil
		}
	}
	s, ok := scalarOf(v)
	if !ok {
		return Operand{}, fmt.Errorf("want a number, have %v", v)
	}
	return ScalarOperand(s), nil
}

// itemNum returns the number argument arg for item i of n (item i of a
// Scalar[] when perItem) and how it ranks in type promotion.
func itemNum(c *LowerCtx, a *Args, arg string, perItem bool, i, n int) (Value, Operand, error) {
	v := a.Value(arg)
	if perItem {
		v = listItem(a, arg, i, n)
	}
	if a.Err() != nil {
		return v, Operand{}, a.Err()
	}
	op, err := numOperand(c, v)
	return v, op, err
}

// numAs returns a number argument as a 0-d tensor of dt, the Python value
// converted once. A binary op converts a wrapped number to the result
// dtype (bfloat16 + 0.3 adds bfloat16(0.3)), lerp its weight to the
// op-math dtype; as a 0-d tensor of the result's kind it leaves the
// result dtype as the wrapped number gave it.
func numAs(c *LowerCtx, v Value, dt dtype.DType) *stablehlo.Value {
	if v.Kind == KTensor && v.T != nil {
		return c.Convert(v.T, dt)
	}
	s, _ := scalarOf(v)
	return c.ScalarConst(s, dt)
}

type foreachBinary struct {
	elem, hlo string // the single-tensor entry, the StableHLO op
	alpha     bool
	numOpMath bool // a number in the op-math dtype, not the result's
}

// integralTakes reports a number of kind op that an integral result
// dtype dt cannot take (a float alpha or value for integer tensors).
func integralTakes(dt dtype.DType, op Operand) bool {
	k := op.Promotion().DType
	return !dt.IsFloat() && !dt.IsComplex() && (k.IsFloat() || k.IsComplex())
}

// scalar: elem(self[i], number) with the number wrapped.
func (f foreachBinary) scalar(arg string, perItem bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		n := len(a.Tensors("self"))
		return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
			v, op, err := itemNum(c, a, arg, perItem, i, n)
			if err != nil {
				return nil, err
			}
			dt := c.ResultType(TensorOperand(x), op)
			if f.numOpMath {
				dt = OpMath(dt)
			}
			return c.Call1(f.elem, TensorValue(x), TensorValue(numAs(c, v, dt))), nil
		})
	}
}

// binary: elem(self[i], other) for other an item of a list or one tensor,
// times alpha first.
func (f foreachBinary) binary(c *LowerCtx, a *Args, x, other *stablehlo.Value) (*stablehlo.Value, error) {
	if !f.alpha {
		return c.Call1(f.elem, TensorValue(x), TensorValue(other)), nil
	}
	alpha := a.Value("alpha")
	op, err := numOperand(c, alpha)
	if err != nil {
		return nil, fmt.Errorf("alpha: %w", err)
	}
	dt := c.ResultType(TensorOperand(x), TensorOperand(other))
	if integralTakes(dt, op) {
		return nil, fmt.Errorf("for integral input tensors, argument alpha must not be a floating point number")
	}
	if s, ok := scalarOf(alpha); ok && s.Kind != KComplex && s.Float() == 1 {
		return c.Call1(f.elem, TensorValue(x), TensorValue(other)), nil
	}
	// PyTorch's kernel: self ± alpha * other in the op-math dtype, alpha
	// converted to it, rounded once
	return pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		return c.Binary(f.hlo, xs[0], c.Binary("multiply", xs[2], xs[1]))
	}, TensorOperand(x), TensorOperand(other), TensorOperand(numAs(c, alpha, OpMath(dt)))), nil
}

func (f foreachBinary) list(c *LowerCtx, a *Args) ([]Value, error) {
	others := a.Tensors("other")
	n := len(a.Tensors("self"))
	if a.Err() == nil && len(others) != n {
		return nil, fmt.Errorf("other has %d tensors, self %d", len(others), n)
	}
	return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
		if others[i] == nil {
			return nil, fmt.Errorf("other[%d] is None", i)
		}
		return f.binary(c, a, x, others[i])
	})
}

func (f foreachBinary) tensor(c *LowerCtx, a *Args) ([]Value, error) {
	other := a.Tensor("other")
	if a.Err() != nil {
		return nil, a.Err()
	}
	return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
		return f.binary(c, a, x, other)
	})
}

// foreachAddc: self + tensor1 * value / tensor2 (or * tensor2).
type foreachAddc struct{ div bool }

func (f foreachAddc) lower(arg string, perItem bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		n := len(a.Tensors("self"))
		t1s, t2s := a.Tensors("tensor1"), a.Tensors("tensor2")
		if a.Err() == nil && (len(t1s) != n || len(t2s) != n) {
			return nil, fmt.Errorf("tensor1 and tensor2 have %d and %d tensors, self %d", len(t1s), len(t2s), n)
		}
		return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
			t1, t2 := t1s[i], t2s[i]
			if t1 == nil || t2 == nil {
				return nil, fmt.Errorf("tensor1[%d] or tensor2[%d] is None", i, i)
			}
			v, op, err := itemNum(c, a, arg, perItem, i, n)
			if err != nil {
				return nil, err
			}
			dt := c.ResultType(TensorOperand(x), TensorOperand(t1), TensorOperand(t2))
			if f.div && !dt.IsFloat() && !dt.IsComplex() {
				return nil, fmt.Errorf("integer division with addcdiv is no longer supported")
			}
			if integralTakes(dt, op) {
				return nil, fmt.Errorf("a floating point value for integral tensors")
			}
			// PyTorch's CPU kernel: self + value * t1 / t2 (* t2) in the
			// op-math dtype, the value converted to it, rounded once
			hlo := "multiply"
			if f.div {
				hlo = "divide"
			}
			return pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
				return c.Binary("add", xs[0], c.Binary(hlo, c.Binary("multiply", xs[3], xs[1]), xs[2]))
			}, TensorOperand(x), TensorOperand(t1), TensorOperand(t2), TensorOperand(numAs(c, v, OpMath(dt)))), nil
		})
	}
}

// foreachLerp: lerp(self[i], tensors1[i], weight) with weight a number, a
// list of numbers or a list of tensors.
func foreachLerp(arg string, perItem, tensors bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		n := len(a.Tensors("self"))
		ends := a.Tensors("tensors1")
		if a.Err() == nil && len(ends) != n {
			return nil, fmt.Errorf("tensors1 has %d tensors, self %d", len(ends), n)
		}
		return foreachEach(c, a, func(i int, x *stablehlo.Value) (*stablehlo.Value, error) {
			if ends[i] == nil {
				return nil, fmt.Errorf("tensors1[%d] is None", i)
			}
			if tensors {
				w := listItem(a, arg, i, n)
				if a.Err() != nil {
					return nil, a.Err()
				}
				return c.Call1("aten::lerp.Tensor", TensorValue(x), TensorValue(ends[i]), w), nil
			}
			w, op, err := itemNum(c, a, arg, perItem, i, n)
			if err != nil {
				return nil, err
			}
			dt := c.ResultType(TensorOperand(x), TensorOperand(ends[i]), op)
			return c.Call1("aten::lerp.Tensor", TensorValue(x), TensorValue(ends[i]), TensorValue(numAs(c, w, OpMath(dt)))), nil
		})
	}
}
