package stablehlo

import (
	"errors"
	"fmt"
)

// Verify checks a module: unique function names; SSA form (every operand
// defined before use, in its block or an enclosing one; every value defined
// once); per-op operand and result types through the type-inference rules
// (region signatures included: reduce bodies, sort comparators, while
// cond/body, if/case branches); func.return against the signature; func.call
// targets and types. Ops without a rule (chlo.*, check.*, unknown dialects)
// get the SSA checks only. The error names the function, the op and its
// location.
func Verify(m *Module) error {
	if m == nil {
		return fmt.Errorf("stablehlo: verify: nil module")
	}
	v := &verifier{m: m, defined: map[*Value]bool{}, funcs: map[string]*Func{}}
	for _, f := range m.Funcs {
		if f == nil {
			return fmt.Errorf("stablehlo: verify: nil function in module")
		}
		if v.funcs[f.Name] != nil {
			return fmt.Errorf("stablehlo: verify: %v: function @%s defined twice", f.Loc, f.Name)
		}
		v.funcs[f.Name] = f
	}
	var errs []error
	for _, f := range m.Funcs {
		if err := v.verifyFunc(f); err != nil {
			errs = append(errs, fmt.Errorf("stablehlo: verify: func @%s: %w", f.Name, err))
		}
	}
	return errors.Join(errs...)
}

type verifier struct {
	m       *Module
	funcs   map[string]*Func
	defined map[*Value]bool
	fn      *Func
}

func (v *verifier) verifyFunc(f *Func) error {
	if f.Type == nil {
		return fmt.Errorf("%v: no function type", f.Loc)
	}
	if f.Body == nil {
		return nil // declaration
	}
	if len(f.Body.Blocks) != 1 {
		return fmt.Errorf("%v: body has %d blocks, want 1", f.Loc, len(f.Body.Blocks))
	}
	blk := f.Body.Blocks[0]
	if blk == nil {
		return fmt.Errorf("%v: nil body block", f.Loc)
	}
	if len(blk.Args) != len(f.Type.Inputs) {
		return fmt.Errorf("%v: body has %d arguments, signature has %d", f.Loc, len(blk.Args), len(f.Type.Inputs))
	}
	for i, a := range blk.Args {
		if a == nil || !TypesCompatible(f.Type.Inputs[i], a.Type) {
			return fmt.Errorf("%v: argument %d has type %v, signature says %v", f.Loc, i, typeOf(a), f.Type.Inputs[i])
		}
	}
	if len(blk.Ops) == 0 || blk.Ops[len(blk.Ops)-1].Name != "func.return" {
		return fmt.Errorf("%v: body does not end with func.return", f.Loc)
	}
	v.fn = f
	return v.verifyBlock(blk, true)
}

// verifyBlock checks a block's ops in order; values it defines go out of
// scope when it ends.
func (v *verifier) verifyBlock(b *Block, funcBody bool) error {
	if b == nil {
		return fmt.Errorf("nil block")
	}
	var added []*Value
	defer func() {
		for _, x := range added {
			delete(v.defined, x)
		}
	}()
	for i, a := range b.Args {
		if a == nil || a.Type == nil {
			return fmt.Errorf("block argument %d has no type", i)
		}
		if v.defined[a] {
			return fmt.Errorf("block argument %d is defined twice", i)
		}
		v.defined[a] = true
		added = append(added, a)
	}
	for i, op := range b.Ops {
		if op == nil {
			return fmt.Errorf("nil op at position %d", i)
		}
		last := i == len(b.Ops)-1
		if err := v.verifyOp(op, last, funcBody); err != nil {
			return fmt.Errorf("%v: %s: %w", op.Loc, op.Name, err)
		}
		for j, r := range op.Results {
			if r == nil || r.Type == nil {
				return fmt.Errorf("%v: %s: result %d has no type", op.Loc, op.Name, j)
			}
			if v.defined[r] {
				return fmt.Errorf("%v: %s: result %d is defined twice", op.Loc, op.Name, j)
			}
			v.defined[r] = true
			added = append(added, r)
		}
	}
	return nil
}

func (v *verifier) verifyOp(op *Op, last, funcBody bool) error {
	for i, x := range op.Operands {
		if x == nil {
			return fmt.Errorf("operand %d is nil", i)
		}
		if !v.defined[x] {
			return fmt.Errorf("operand %d (%s) is used before it is defined or outside its scope", i, valueLabel(x))
		}
	}
	for i, r := range op.Regions {
		if r == nil {
			return fmt.Errorf("region %d is nil", i)
		}
		for j, b := range r.Blocks {
			if err := v.verifyBlock(b, false); err != nil {
				return fmt.Errorf("region %d block %d: %w", i, j, err)
			}
		}
	}
	switch op.Name {
	case "func.return":
		if !funcBody || !last {
			return fmt.Errorf("func.return must end a function body")
		}
		return matchTypes("returns", valueTypes(op.Operands), v.fn.Type.Results)
	case "stablehlo.return":
		if funcBody || !last {
			return fmt.Errorf("stablehlo.return must end a region")
		}
		return nil
	case "func.call":
		return v.verifyCall(op)
	}
	if err := v.verifySymbols(op.Attrs); err != nil {
		return err
	}
	if err := verifyEnums(op.Attrs); err != nil {
		return err
	}
	if !HasInferRule(op.Name) {
		return nil
	}
	want, err := InferResultTypes(op)
	if err != nil {
		return err
	}
	return matchTypes("has results", valueTypes(op.Results), want)
}

func (v *verifier) verifyCall(op *Op) error {
	name, ok := op.Symbol("callee")
	if !ok {
		return fmt.Errorf("missing attribute callee")
	}
	f := v.funcs[name]
	if f == nil || f.Type == nil {
		return fmt.Errorf("callee @%s is not defined in the module", name)
	}
	if err := matchTypes("passes", valueTypes(op.Operands), f.Type.Inputs); err != nil {
		return fmt.Errorf("call @%s: %w", name, err)
	}
	if err := matchTypes("has results", valueTypes(op.Results), f.Type.Results); err != nil {
		return fmt.Errorf("call @%s: %w", name, err)
	}
	return nil
}

// verifySymbols checks that function references in attributes (a
// composite's decomposition, a custom_call's called_computations) name
// functions of the module.
func (v *verifier) verifySymbols(attrs []NamedAttr) error {
	for _, a := range attrs {
		var refs []SymbolRefAttr
		switch x := a.Value.(type) {
		case SymbolRefAttr:
			refs = append(refs, x)
		case ArrayAttr:
			for _, e := range x {
				if r, ok := e.(SymbolRefAttr); ok {
					refs = append(refs, r)
				}
			}
		}
		for _, r := range refs {
			if v.funcs[string(r)] == nil {
				return fmt.Errorf("attribute %s refers to @%s, which is not a function of the module", a.Name, r)
			}
		}
	}
	return nil
}

// enumValues lists the values of StableHLO's enum attributes.
var enumValues = map[string][]string{
	"comparison_direction": {"EQ", "NE", "GE", "GT", "LE", "LT"},
	"comparison_type":      {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"},
	"precision":            {"DEFAULT", "HIGH", "HIGHEST"},
	"fft_type":             {"FFT", "IFFT", "RFFT", "IRFFT"},
	"transpose":            {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"},
	"rng_distribution":     {"UNIFORM", "NORMAL"},
	"rng_algorithm":        {"DEFAULT", "THREE_FRY", "PHILOX"},
	"result_accuracy_mode": {"DEFAULT", "HIGHEST", "TOLERANCE"},
}

// verifyEnums checks the values of #stablehlo<kind VALUE> attributes, in
// lists too (precision_config).
func verifyEnums(attrs []NamedAttr) error {
	var check func(name string, a Attr) error
	check = func(name string, a Attr) error {
		switch x := a.(type) {
		case *EnumAttr:
			vals, known := enumValues[x.Kind]
			if x.Dialect != "stablehlo" || !known {
				return nil
			}
			for _, v := range vals {
				if v == x.Value {
					return nil
				}
			}
			return fmt.Errorf("attribute %s: %s is not a %s (one of %v)", name, x.Value, x.Kind, vals)
		case ArrayAttr:
			for _, e := range x {
				if err := check(name, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, a := range attrs {
		if err := check(a.Name, a.Value); err != nil {
			return err
		}
	}
	return nil
}

func valueLabel(x *Value) string {
	if x.Name != "" {
		return "%" + x.Name
	}
	if x.Def != nil {
		return fmt.Sprintf("result %d of %s", x.Index, x.Def.Name)
	}
	return fmt.Sprintf("block argument %d", x.Index)
}
