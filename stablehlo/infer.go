package stablehlo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// An inferFunc computes the result types of an op from its operands,
// attributes and regions. For ops whose result type is not determined by
// those (reshape, convert, iota, custom_call...), the rule validates the
// types already in op.Results and returns them; when op.Results is empty it
// reports errResultTypeNeeded. Rules never panic on malformed ops.
type inferFunc func(op *Op) ([]Type, error)

// inferRules maps an op name to its rule. The op families register their
// rules from their own files (infer_*.go) in init.
var inferRules = map[string]inferFunc{}

func registerInfer(rule inferFunc, names ...string) {
	for _, n := range names {
		if _, dup := inferRules[n]; dup {
			panic("stablehlo: duplicate inference rule for " + n)
		}
		inferRules[n] = rule
	}
}

// errResultTypeNeeded is returned by rules of ops whose result type cannot be
// inferred when the op carries no result types.
var errResultTypeNeeded = errors.New("result type must be given: it is not determined by the operands")

// HasInferRule reports whether the op name has a type-inference rule.
func HasInferRule(name string) bool {
	_, ok := inferRules[name]
	return ok
}

// InferResultTypes returns the result types of op, computed from its
// operands, attributes and regions. For ops whose result types are not
// inferable it checks op.Results against the op's constraints and returns
// them. The error names the op and its operand types.
func InferResultTypes(op *Op) ([]Type, error) {
	rule, ok := inferRules[op.Name]
	if !ok {
		return nil, fmt.Errorf("%s: no type inference rule", op.Name)
	}
	for i, v := range op.Operands {
		if v == nil || v.Type == nil {
			return nil, fmt.Errorf("%s: operand %d is undefined", op.Name, i)
		}
	}
	ts, err := rule(op)
	if err != nil {
		return nil, fmt.Errorf("%s%s: %w", op.Name, signature(op), err)
	}
	return ts, nil
}

// signature describes an op's operand types for error messages.
func signature(op *Op) string {
	parts := make([]string, len(op.Operands))
	for i, v := range op.Operands {
		if v == nil || v.Type == nil {
			parts[i] = "<undefined>"
		} else {
			parts[i] = v.Type.String()
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// --- helpers shared by the rules ---

func operandTensor(op *Op, i int) (*TensorType, error) {
	if i >= len(op.Operands) {
		return nil, fmt.Errorf("missing operand %d (have %d)", i, len(op.Operands))
	}
	t := AsTensor(op.Operands[i].Type)
	if t == nil {
		return nil, fmt.Errorf("operand %d has type %v, want a tensor", i, op.Operands[i].Type)
	}
	return t, nil
}

func operandTensors(op *Op) ([]*TensorType, error) {
	out := make([]*TensorType, len(op.Operands))
	for i := range op.Operands {
		t, err := operandTensor(op, i)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func wantOperands(op *Op, n int) error {
	if len(op.Operands) != n {
		return fmt.Errorf("has %d operands, want %d", len(op.Operands), n)
	}
	return nil
}

// soleOperand checks that op has exactly one operand, a tensor, and
// returns its type.
func soleOperand(op *Op) (*TensorType, error) {
	if err := wantOperands(op, 1); err != nil {
		return nil, err
	}
	return operandTensor(op, 0)
}

// soleOperandAndResult returns the tensor type of an op's one operand and
// the declared tensor type of its result 0, checked in that order.
func soleOperandAndResult(op *Op) (t, r *TensorType, err error) {
	if t, err = soleOperand(op); err != nil {
		return nil, nil, err
	}
	if r, err = givenResult(op, 0); err != nil {
		return nil, nil, err
	}
	return t, r, nil
}

// givenResult returns the declared tensor type of result i.
func givenResult(op *Op, i int) (*TensorType, error) {
	if len(op.Results) <= i || op.Results[i] == nil {
		return nil, errResultTypeNeeded
	}
	t := AsTensor(op.Results[i].Type)
	if t == nil {
		return nil, fmt.Errorf("result %d has type %v, want a tensor", i, op.Results[i].Type)
	}
	return t, nil
}

// givenTypes returns all declared result types (any kind).
func givenTypes(op *Op) ([]Type, error) {
	if op.Results == nil {
		return nil, errResultTypeNeeded
	}
	out := make([]Type, len(op.Results))
	for i, r := range op.Results {
		if r == nil || r.Type == nil {
			return nil, errResultTypeNeeded
		}
		out[i] = r.Type
	}
	return out, nil
}

func givenOnly(op *Op) ([]Type, error) { return givenTypes(op) }

// givenElem returns the declared element type of result i when present.
func givenElem(op *Op, i int) (ElemType, bool) {
	if len(op.Results) <= i || op.Results[i] == nil {
		return ElemType{}, false
	}
	t := AsTensor(op.Results[i].Type)
	if t == nil {
		return ElemType{}, false
	}
	return t.Elem, true
}

func dimsCompatible(a, b int64) bool { return a == b || a == Dynamic || b == Dynamic }

func shapesCompatible(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !dimsCompatible(a[i], b[i]) {
			return false
		}
	}
	return true
}

// mergeShapes returns the most static shape compatible with both.
func mergeShapes(a, b []int64) []int64 {
	out := append([]int64(nil), a...)
	for i := range out {
		if out[i] == Dynamic && i < len(b) {
			out[i] = b[i]
		}
	}
	return out
}

// elemsCompatible compares element types; quantized types are compared
// loosely (their parameters may legitimately differ between operands and
// results), as are a quantized type and its expressed type's storage.
func elemsCompatible(a, b ElemType) bool {
	if a.Quant != nil || b.Quant != nil {
		return true
	}
	return a.DType == b.DType
}

// TypesCompatible reports whether an inferred type agrees with a declared
// one: same kind, rank and element type, dims equal unless one is dynamic.
func TypesCompatible(inferred, declared Type) bool {
	switch a := inferred.(type) {
	case *TensorType:
		b, ok := declared.(*TensorType)
		return ok && shapesCompatible(a.Shape, b.Shape) && elemsCompatible(a.Elem, b.Elem)
	case *TupleType:
		b, ok := declared.(*TupleType)
		if !ok || len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !TypesCompatible(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	case nil:
		return declared == nil
	}
	return inferred.String() == declared.String()
}

func scalarOf(e ElemType) *TensorType { return &TensorType{Shape: []int64{}, Elem: e} }

func withShape(t *TensorType, shape []int64) *TensorType {
	return &TensorType{Shape: shape, Elem: t.Elem}
}

func withElem(t *TensorType, e ElemType) *TensorType {
	return &TensorType{Shape: append([]int64{}, t.Shape...), Elem: e}
}

func boolLike(t *TensorType) *TensorType { return withElem(t, Elem(dtype.Bool)) }

func tensorsToTypes(ts ...*TensorType) []Type {
	out := make([]Type, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

// intsAttr reads a required integer-list attribute.
func intsAttr(op *Op, name string) ([]int64, error) {
	v, ok := op.Ints(name)
	if !ok {
		if op.Attr(name) == nil {
			return nil, fmt.Errorf("missing attribute %s", name)
		}
		return nil, fmt.Errorf("attribute %s is not an integer list", name)
	}
	return v, nil
}

// optInts reads an optional integer-list attribute, with def when absent.
func optInts(op *Op, name string, def []int64) ([]int64, error) {
	if op.Attr(name) == nil {
		return def, nil
	}
	return intsAttr(op, name)
}

func intAttr(op *Op, name string) (int64, error) {
	switch a := op.Attr(name).(type) {
	case *IntAttr:
		return a.Value, nil
	case nil:
		return 0, fmt.Errorf("missing attribute %s", name)
	}
	return 0, fmt.Errorf("attribute %s is not an integer", name)
}

func optInt(op *Op, name string, def int64) (int64, error) {
	if op.Attr(name) == nil {
		return def, nil
	}
	return intAttr(op, name)
}

func filled(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// checkDimIndex checks that d is a dimension index of a rank-r tensor.
func checkDimIndex(what string, d int64, r int) error {
	if d < 0 || d >= int64(r) {
		return fmt.Errorf("%s %d out of range for rank %d", what, d, r)
	}
	return nil
}

// checkUniqueDims checks that every index is in [0, r) and appears once.
func checkUniqueDims(what string, ds []int64, r int) error {
	seen := map[int64]bool{}
	for _, d := range ds {
		if err := checkDimIndex(what, d, r); err != nil {
			return err
		}
		if seen[d] {
			return fmt.Errorf("%s %v repeats dimension %d", what, ds, d)
		}
		seen[d] = true
	}
	return nil
}

func contains(ds []int64, d int64) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}
