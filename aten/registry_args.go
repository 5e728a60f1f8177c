package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Args are the bound arguments of one op call: one Value per schema
// parameter, defaults filled in.
//
// The typed accessors never panic. A missing or mistyped argument records
// the first error, which Err returns and the dispatcher reports with the
// op and node; accessors then return zero values, so lowering code reads
// straight through and need not check each call.
type Args struct {
	Schema *Schema
	Values []Value // one per Schema.Params
	ctx    *LowerCtx
	err    error
}

// Bind matches positional and keyword values to the schema's parameters
// and fills defaults.
func Bind(s *Schema, positional []Value, kwargs map[string]Value) (*Args, error) {
	if s == nil {
		return nil, fmt.Errorf("no schema to bind arguments to")
	}
	a := &Args{Schema: s, Values: make([]Value, len(s.Params))}
	set := make([]bool, len(s.Params))
	if len(positional) > len(s.Params) {
		return nil, fmt.Errorf("%s: %d positional arguments, schema takes %d", s.QualifiedName(), len(positional), len(s.Params))
	}
	for i, v := range positional {
		a.Values[i], set[i] = v, true
	}
	for name, v := range kwargs {
		i := s.Param(name)
		if i < 0 {
			return nil, fmt.Errorf("%s: unknown argument %q", s.QualifiedName(), name)
		}
		if set[i] {
			return nil, fmt.Errorf("%s: argument %q given twice", s.QualifiedName(), name)
		}
		a.Values[i], set[i] = v, true
	}
	for i, p := range s.Params {
		if set[i] {
			continue
		}
		switch {
		case p.HasDefault:
			a.Values[i] = p.Default
		case p.Type.Optional:
			a.Values[i] = None()
		default:
			return nil, fmt.Errorf("%s: missing argument %q", s.QualifiedName(), p.Name)
		}
	}
	return a, nil
}

// Err returns the first accessor error.
func (a *Args) Err() error { return a.err }

// Errorf records an error (the first one wins) and returns it.
func (a *Args) Errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	if a.err == nil {
		a.err = err
	}
	return err
}

// Value returns the raw value of a parameter.
func (a *Args) Value(name string) Value {
	i := a.Schema.Param(name)
	if i < 0 {
		a.Errorf("no parameter %q in %s", name, a.Schema.Text)
		return None()
	}
	return a.Values[i]
}

// Has reports whether the parameter is present and not None.
func (a *Args) Has(name string) bool {
	i := a.Schema.Param(name)
	return i >= 0 && !a.Values[i].IsNone()
}

// Tensor returns a tensor argument. A Python scalar in the slot becomes a
// 0-dim constant of its default dtype (int64, float32, bool).
func (a *Args) Tensor(name string) *stablehlo.Value {
	v := a.Value(name)
	switch {
	case v.Kind == KTensor && v.T != nil:
		return v.T
	case v.IsScalar() && a.ctx != nil:
		s, _ := scalarOf(v)
		return a.ctx.ScalarConst(s, s.DType())
	}
	a.Errorf("argument %s: want a tensor, have %v", name, v)
	return nil
}

// OptTensor returns a Tensor? argument, nil for None.
func (a *Args) OptTensor(name string) *stablehlo.Value {
	if !a.Has(name) {
		return nil
	}
	return a.Tensor(name)
}

// Tensors returns a Tensor[] argument; with Tensor?[] elements may be nil.
func (a *Args) Tensors(name string) []*stablehlo.Value {
	v := a.Value(name)
	if v.Kind != KList {
		a.Errorf("argument %s: want a list of tensors, have %v", name, v)
		return nil
	}
	out := make([]*stablehlo.Value, len(v.List))
	for i, e := range v.List {
		switch {
		case e.Kind == KTensor && e.T != nil:
			out[i] = e.T
		case e.IsNone():
		default:
			a.Errorf("argument %s[%d]: want a tensor, have %v", name, i, e)
		}
	}
	return out
}

// Literal returns a tensor argument as a host literal (host fallbacks).
func (a *Args) Literal(name string) *literal.Literal {
	v := a.Value(name)
	if v.Kind == KTensor && v.Lit != nil {
		return v.Lit
	}
	a.Errorf("argument %s: want a host tensor, have %v", name, v)
	return nil
}

// Int returns an int or SymInt argument (a bool counts as 0/1).
func (a *Args) Int(name string) int64 {
	v := a.Value(name)
	switch v.Kind {
	case KInt:
		return v.I
	case KBool:
		if v.B {
			return 1
		}
		return 0
	}
	a.Errorf("argument %s: want an int, have %v", name, v)
	return 0
}

// OptInt returns an int? argument; ok is false for None.
func (a *Args) OptInt(name string) (v int64, ok bool) {
	if !a.Has(name) {
		return 0, false
	}
	return a.Int(name), true
}

// Ints returns an int[] / SymInt[] argument. A single int given for a
// list parameter is repeated to its fixed size, as PyTorch does.
func (a *Args) Ints(name string) []int64 {
	v := a.Value(name)
	switch v.Kind {
	case KInt:
		n := 1
		if i := a.Schema.Param(name); i >= 0 && a.Schema.Params[i].Type.N > 0 {
			n = a.Schema.Params[i].Type.N
		}
		out := make([]int64, n)
		for i := range out {
			out[i] = v.I
		}
		return out
	case KList:
		out := make([]int64, len(v.List))
		for i, e := range v.List {
			if e.Kind != KInt {
				a.Errorf("argument %s[%d]: want an int, have %v", name, i, e)
				return nil
			}
			out[i] = e.I
		}
		return out
	}
	a.Errorf("argument %s: want a list of ints, have %v", name, v)
	return nil
}

// OptInts returns an int[]? argument; ok is false for None.
func (a *Args) OptInts(name string) ([]int64, bool) {
	if !a.Has(name) {
		return nil, false
	}
	return a.Ints(name), true
}

// Float returns a float argument (ints convert).
func (a *Args) Float(name string) float64 {
	v := a.Value(name)
	if s, ok := scalarOf(v); ok {
		return s.Float()
	}
	a.Errorf("argument %s: want a float, have %v", name, v)
	return 0
}

// OptFloat returns a float? argument; ok is false for None.
func (a *Args) OptFloat(name string) (float64, bool) {
	if !a.Has(name) {
		return 0, false
	}
	return a.Float(name), true
}

// OptFloats returns a float[]? argument; ok is false for None.
func (a *Args) OptFloats(name string) ([]float64, bool) {
	if !a.Has(name) {
		return nil, false
	}
	v := a.Value(name)
	if v.Kind != KList {
		a.Errorf("argument %s: want a list of floats, have %v", name, v)
		return nil, false
	}
	out := make([]float64, len(v.List))
	for i, e := range v.List {
		s, ok := scalarOf(e)
		if !ok {
			a.Errorf("argument %s: want a list of floats, have %v", name, v)
			return nil, false
		}
		out[i] = s.Float()
	}
	return out, true
}

// Bool returns a bool argument.
func (a *Args) Bool(name string) bool {
	v := a.Value(name)
	switch v.Kind {
	case KBool:
		return v.B
	case KInt:
		return v.I != 0
	}
	a.Errorf("argument %s: want a bool, have %v", name, v)
	return false
}

// OptBool returns a bool? argument; ok is false for None.
func (a *Args) OptBool(name string) (v, ok bool) {
	if !a.Has(name) {
		return false, false
	}
	return a.Bool(name), true
}

// Scalar returns a Scalar argument (a Python number: a wrapped number for
// promotion).
func (a *Args) Scalar(name string) Scalar {
	v := a.Value(name)
	if s, ok := scalarOf(v); ok {
		return s
	}
	a.Errorf("argument %s: want a number, have %v", name, v)
	return Scalar{Kind: KInt}
}

// OptScalar returns a Scalar? argument; ok is false for None.
func (a *Args) OptScalar(name string) (Scalar, bool) {
	if !a.Has(name) {
		return Scalar{}, false
	}
	return a.Scalar(name), true
}

// Str returns a str argument (also device, layout and memory format names).
func (a *Args) Str(name string) string {
	v := a.Value(name)
	if v.Kind == KStr {
		return v.S
	}
	a.Errorf("argument %s: want a string, have %v", name, v)
	return ""
}

// OptStr returns a str? argument; ok is false for None.
func (a *Args) OptStr(name string) (string, bool) {
	if !a.Has(name) {
		return "", false
	}
	return a.Str(name), true
}

// OptDType returns a ScalarType? argument; ok is false for None.
func (a *Args) OptDType(name string) (dtype.DType, bool) {
	if !a.Has(name) {
		return dtype.Invalid, false
	}
	return a.DType(name), true
}

// DType returns a ScalarType argument.
func (a *Args) DType(name string) dtype.DType {
	v := a.Value(name)
	if v.Kind == KDType && v.DType != dtype.Invalid {
		return v.DType
	}
	a.Errorf("argument %s: want a dtype, have %v", name, v)
	return dtype.Invalid
}
