package aten

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
)

// Shape queries and symbolic scalar arithmetic. The runtime specialises
// every program to concrete shapes, so sym_size & co. are known while
// lowering, and the _operator.* nodes (Python arithmetic on SymInts)
// evaluate on Python scalars with Python's semantics. Runtime assertions
// check their condition on those values.

func init() {
	lower("aten::sym_size.int", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		d, err := canonDim(a.Int("dim"), c.Rank(x))
		if err != nil {
			return nil, err
		}
		if c.Rank(x) == 0 {
			return nil, fmt.Errorf("sym_size: a 0-dim tensor has no dim %d", a.Int("dim"))
		}
		return []Value{IntValue(c.Shape(x)[d])}, nil
	})
	lower("aten::sym_numel.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		n := int64(1)
		for _, d := range c.Shape(a.Tensor("self")) {
			n *= d
		}
		return []Value{IntValue(n)}, nil
	})
	lower("aten::sym_stride.int", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		d, err := canonDim(a.Int("dim"), c.Rank(x))
		if err != nil || c.Rank(x) == 0 {
			return nil, fmt.Errorf("sym_stride: bad dim %d for rank %d", a.Int("dim"), c.Rank(x))
		}
		s := int64(1)
		for _, n := range c.Shape(x)[d+1:] {
			s *= n
		}
		return []Value{IntValue(s)}, nil
	})
	lower("aten::sym_storage_offset.default", func(c *LowerCtx, a *Args) ([]Value, error) { return []Value{IntValue(0)}, nil })
	lower("aten::_assert_scalar.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		if s := a.Scalar("self"); s.Float() == 0 {
			return nil, fmt.Errorf("runtime assertion failed: %s", a.Str("assert_msg"))
		}
		return nil, nil
	})
	lower("aten::_assert_tensor_metadata.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("a")
		if d, ok := a.OptDType("dtype"); ok && d != c.DType(x) {
			return nil, fmt.Errorf("tensor metadata assertion failed: dtype %s, expected %s", torchName(c.DType(x)), torchName(d))
		}
		if size, ok := a.OptInts("size"); ok && !sameShape(size, c.Shape(x)) {
			return nil, fmt.Errorf("tensor metadata assertion failed: size %v, expected %v", c.Shape(x), size)
		}
		return nil, nil
	})
	constrain := func(c *LowerCtx, a *Args) ([]Value, error) {
		v := a.Scalar("size").Int()
		if lo, ok := a.OptInt("min"); ok && v < lo {
			return nil, fmt.Errorf("value %d is below the constrained minimum %d", v, lo)
		}
		if hi, ok := a.OptInt("max"); ok && v > hi {
			return nil, fmt.Errorf("value %d is above the constrained maximum %d", v, hi)
		}
		return nil, nil
	}
	lower("aten::sym_constrain_range.default", constrain)
	lower("aten::sym_constrain_range_for_size.default", constrain)

	for name, fn := range pyBinary {
		fn := fn
		Register(Entry{Name: "_operator." + name, Schema: "_operator::" + name + "(Scalar a, Scalar b) -> Scalar", Kind: Lowered,
			Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
				r, err := fn(a.Scalar("a"), a.Scalar("b"))
				return []Value{r}, err
			}})
	}
	Register(Entry{Name: "_operator.neg", Schema: "_operator::neg(Scalar a) -> Scalar", Kind: Lowered,
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			s := a.Scalar("a")
			if s.Kind == KFloat {
				return []Value{FloatValue(-s.F)}, nil
			}
			return []Value{IntValue(-s.Int())}, nil
		}})
	scalar1 := func(name string, fn func(s Scalar) Value) {
		Register(Entry{Name: name, Schema: "_sym::f(Scalar a) -> Scalar", Kind: Lowered,
			Lower: func(c *LowerCtx, a *Args) ([]Value, error) { return []Value{fn(a.Scalar("a"))}, nil }})
	}
	toInt := func(f func(float64) float64) func(s Scalar) Value {
		return func(s Scalar) Value {
			if s.Kind != KFloat {
				return IntValue(s.Int())
			}
			return IntValue(int64(f(s.F)))
		}
	}
	scalar1("math.ceil", toInt(math.Ceil))
	scalar1("math.floor", toInt(math.Floor))
	scalar1("math.trunc", toInt(math.Trunc))
	scalar1("torch.sym_int", toInt(math.Trunc))
	scalar1("torch.sym_float", func(s Scalar) Value { return FloatValue(s.Float()) })
	scalar1("torch.sym_not", func(s Scalar) Value { return BoolValue(s.Float() == 0) })
	scalar1("torch.sym_sqrt", func(s Scalar) Value { return FloatValue(math.Sqrt(s.Float())) })
	scalar1("_operator.abs", func(s Scalar) Value {
		if s.Kind == KFloat {
			return FloatValue(math.Abs(s.F))
		}
		return IntValue(abs64(s.Int()))
	})
	scalar1("_operator.pos", func(s Scalar) Value { return s.Value() })
	for name, pickMax := range map[string]bool{"torch.sym_max": true, "torch.sym_min": false} {
		pickMax := pickMax
		Register(Entry{Name: name, Schema: "_sym::f(Scalar a, Scalar b) -> Scalar", Kind: Lowered,
			Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
				x, y := a.Scalar("a"), a.Scalar("b")
				if (y.Float() > x.Float()) == pickMax && y.Float() != x.Float() {
					x = y
				}
				return []Value{x.Value()}, nil
			}})
	}
	Register(Entry{Name: "_operator.not_", Schema: "_operator::not_(Scalar a) -> Scalar", Kind: Lowered,
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			return []Value{BoolValue(a.Scalar("a").Float() == 0)}, nil
		}})
	Register(Entry{Name: "_operator.getitem", Schema: "_operator::getitem(Any a, int b) -> Any", Kind: Lowered,
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			l, i := a.Value("a"), a.Int("b")
			if l.Kind != KList {
				return nil, fmt.Errorf("getitem on %v", l)
			}
			if i < 0 {
				i += int64(len(l.List))
			}
			if i < 0 || i >= int64(len(l.List)) {
				return nil, fmt.Errorf("getitem index %d out of range for %d items", a.Int("b"), len(l.List))
			}
			return []Value{l.List[i]}, nil
		}})
	Register(Entry{Name: "aten::_local_scalar_dense.default", Kind: HostFallback, Host: hostItem})
	Register(Entry{Name: "aten::item.default", Kind: HostFallback, Host: hostItem})
}

// hostItem reads the only element of a tensor as a Python scalar
// (Tensor.item(); the value decides what follows, so it runs on the host).
func hostItem(h *HostCtx, a *Args) ([]Value, error) {
	{
		l := a.Literal("self")
		if l == nil || l.Len() != 1 {
			return nil, fmt.Errorf("a Tensor with %v elements cannot be converted to Scalar", l)
		}
		switch {
		case l.DType.IsFloat():
			return []Value{FloatValue(l.Float64(0))}, nil
		case l.DType == dtype.Bool:
			return []Value{BoolValue(l.Int64(0) != 0)}, nil
		}
		return []Value{IntValue(l.Int64(0))}, nil
	}
}

// pyBinary are Python's binary operators on ints, floats and bools.
var pyBinary = map[string]func(a, b Scalar) (Value, error){
	"add": arith(func(x, y int64) int64 { return x + y }, func(x, y float64) float64 { return x + y }),
	"sub": arith(func(x, y int64) int64 { return x - y }, func(x, y float64) float64 { return x - y }),
	"mul": arith(func(x, y int64) int64 { return x * y }, func(x, y float64) float64 { return x * y }),
	"floordiv": func(a, b Scalar) (Value, error) {
		if b.Float() == 0 {
			return None(), fmt.Errorf("integer division or modulo by zero")
		}
		if a.Kind == KFloat || b.Kind == KFloat {
			return FloatValue(math.Floor(a.Float() / b.Float())), nil
		}
		q := a.Int() / b.Int()
		if (a.Int()%b.Int() != 0) && ((a.Int() < 0) != (b.Int() < 0)) {
			q--
		}
		return IntValue(q), nil
	},
	"mod": func(a, b Scalar) (Value, error) {
		if b.Float() == 0 {
			return None(), fmt.Errorf("integer division or modulo by zero")
		}
		if a.Kind == KFloat || b.Kind == KFloat {
			r := math.Mod(a.Float(), b.Float())
			if r != 0 && (r < 0) != (b.Float() < 0) {
				r += b.Float()
			}
			return FloatValue(r), nil
		}
		r := a.Int() % b.Int()
		if r != 0 && (r < 0) != (b.Int() < 0) {
			r += b.Int()
		}
		return IntValue(r), nil
	},
	"truediv": func(a, b Scalar) (Value, error) {
		if b.Float() == 0 {
			return None(), fmt.Errorf("division by zero")
		}
		return FloatValue(a.Float() / b.Float()), nil
	},
	"pow": func(a, b Scalar) (Value, error) {
		if a.Kind != KFloat && b.Kind != KFloat && b.Int() >= 0 {
			r := int64(1)
			for i := int64(0); i < b.Int(); i++ {
				r *= a.Int()
			}
			return IntValue(r), nil
		}
		return FloatValue(math.Pow(a.Float(), b.Float())), nil
	},
	"eq":   cmp(func(x, y int64) bool { return x == y }, func(x, y float64) bool { return x == y }),
	"ne":   cmp(func(x, y int64) bool { return x != y }, func(x, y float64) bool { return x != y }),
	"lt":   cmp(func(x, y int64) bool { return x < y }, func(x, y float64) bool { return x < y }),
	"le":   cmp(func(x, y int64) bool { return x <= y }, func(x, y float64) bool { return x <= y }),
	"gt":   cmp(func(x, y int64) bool { return x > y }, func(x, y float64) bool { return x > y }),
	"ge":   cmp(func(x, y int64) bool { return x >= y }, func(x, y float64) bool { return x >= y }),
	"and_": func(a, b Scalar) (Value, error) { return BoolValue(a.Float() != 0 && b.Float() != 0), nil },
	"or_":  func(a, b Scalar) (Value, error) { return BoolValue(a.Float() != 0 || b.Float() != 0), nil },
}

func arith(i func(x, y int64) int64, f func(x, y float64) float64) func(a, b Scalar) (Value, error) {
	return func(a, b Scalar) (Value, error) {
		if a.Kind == KFloat || b.Kind == KFloat {
			return FloatValue(f(a.Float(), b.Float())), nil
		}
		return IntValue(i(a.Int(), b.Int())), nil
	}
}

func cmp(i func(x, y int64) bool, f func(x, y float64) bool) func(a, b Scalar) (Value, error) {
	return func(a, b Scalar) (Value, error) {
		if a.Kind != KFloat && b.Kind != KFloat {
			return BoolValue(i(a.Int(), b.Int())), nil
		}
		return BoolValue(f(a.Float(), b.Float())), nil
	}
}
