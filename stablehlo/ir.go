// Package stablehlo is the StableHLO intermediate representation of
// torchtpu: types, attributes, operations, functions and modules; the MLIR
// text parser (pretty and generic forms) and printer; a verifier; and a
// builder with type inference used to emit programs.
//
// The IR follows MLIR's generic model: an Op has a name ("stablehlo.add"),
// operands, results, a sorted attribute dictionary and regions. Every op of
// the StableHLO spec, func.*, chlo.* and check.* is represented this way;
// typed accessors (Op.Ints, Op.Attr...) read the attributes.
package stablehlo

import (
	"fmt"
	"sort"
)

// Loc is a source position (1-based line and column), zero when unknown.
type Loc struct {
	File      string
	Line, Col int
}

func (l Loc) String() string {
	if l.Line == 0 {
		return "<unknown>"
	}
	if l.File != "" {
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
	}
	return fmt.Sprintf("%d:%d", l.Line, l.Col)
}

// Value is an SSA value: an op result or a block argument.
type Value struct {
	Type Type
	// Def is the op that defines the value (nil for a block argument), and
	// Index its position among the op's results or the block's arguments.
	Def   *Op
	Index int
	// Name is the name the value had in parsed text (without '%'), a hint
	// for the printer; may be empty.
	Name string
}

// Op is one operation.
type Op struct {
	Name     string // full name, "stablehlo.add", "func.return", "chlo.erf"
	Operands []*Value
	Results  []*Value
	Attrs    []NamedAttr // sorted by Name
	Regions  []*Region
	Loc      Loc
}

// Block is a list of ops with arguments. StableHLO regions hold one block.
type Block struct {
	Args []*Value
	Ops  []*Op
}

// Region is a list of blocks (one in StableHLO).
type Region struct {
	Blocks []*Block
}

// Func is a func.func.
type Func struct {
	Name        string
	Visibility  string // "", "public", "private", "nested"
	Type        *FuncType
	ArgAttrs    []DictAttr // per argument; nil entries allowed
	ResultAttrs []DictAttr
	Attrs       []NamedAttr // other attributes of the func op
	Body        *Region     // nil for a declaration
	Loc         Loc
}

// Module is a builtin.module.
type Module struct {
	Name  string // without '@'; may be empty
	Attrs []NamedAttr
	Funcs []*Func
	Loc   Loc
}

// Func returns the function with the given name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Entry returns the block of a single-block region.
func (r *Region) Entry() *Block {
	if r == nil || len(r.Blocks) == 0 {
		return nil
	}
	return r.Blocks[0]
}

// NewOp makes an op with results of the given types; attrs are sorted.
func NewOp(name string, operands []*Value, resultTypes []Type, attrs []NamedAttr, regions ...*Region) *Op {
	op := &Op{Name: name, Operands: operands, Regions: regions}
	op.Results = make([]*Value, len(resultTypes))
	for i, t := range resultTypes {
		op.Results[i] = &Value{Type: t, Def: op, Index: i}
	}
	op.Attrs = append([]NamedAttr(nil), attrs...)
	SortAttrs(op.Attrs)
	return op
}

// SortAttrs sorts a dictionary by name, as MLIR keeps it.
func SortAttrs(a []NamedAttr) {
	sort.SliceStable(a, func(i, j int) bool { return a[i].Name < a[j].Name })
}

// Result returns the op's only (or first) result.
func (op *Op) Result() *Value {
	if len(op.Results) == 0 {
		return nil
	}
	return op.Results[0]
}

// Attr returns the named attribute, or nil.
func (op *Op) Attr(name string) Attr {
	for _, a := range op.Attrs {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

// SetAttr sets or replaces an attribute, keeping the dictionary sorted.
func (op *Op) SetAttr(name string, v Attr) {
	for i := range op.Attrs {
		if op.Attrs[i].Name == name {
			op.Attrs[i].Value = v
			return
		}
	}
	op.Attrs = append(op.Attrs, NamedAttr{name, v})
	SortAttrs(op.Attrs)
}

// Ints reads an integer-list attribute (array<i64: ...>, [1, 2], or a
// dense<...> integer tensor). ok is false when absent or not integers.
func (op *Op) Ints(name string) (v []int64, ok bool) {
	return AttrInts(op.Attr(name))
}

// AttrInts reads an integer list from an attribute value.
func AttrInts(a Attr) ([]int64, bool) {
	switch a := a.(type) {
	case *DenseArrayAttr:
		if a.Floats != nil {
			return nil, false
		}
		return a.Ints, true
	case ArrayAttr:
		out := make([]int64, len(a))
		for i, e := range a {
			ia, ok := e.(*IntAttr)
			if !ok {
				return nil, false
			}
			out[i] = ia.Value
		}
		return out, true
	case *DenseAttr:
		if !a.Value.DType.IsInteger() && !a.Value.DType.IsBool() {
			return nil, false
		}
		n := a.Type.NumElements()
		out := make([]int64, n)
		for i := range out {
			if a.Splat {
				out[i] = a.Value.Int64(0)
			} else {
				out[i] = a.Value.Int64(i)
			}
		}
		return out, true
	}
	return nil, false
}

// Int reads an integer attribute.
func (op *Op) Int(name string) (int64, bool) {
	if a, ok := op.Attr(name).(*IntAttr); ok {
		return a.Value, true
	}
	return 0, false
}

// Bool reads a boolean attribute (a UnitAttr counts as true).
func (op *Op) Bool(name string) (bool, bool) {
	switch a := op.Attr(name).(type) {
	case BoolAttr:
		return bool(a), true
	case UnitAttr:
		return true, true
	}
	return false, false
}

// Enum reads the value of an enum attribute (e.g. "EQ").
func (op *Op) Enum(name string) (string, bool) {
	switch a := op.Attr(name).(type) {
	case *EnumAttr:
		return a.Value, true
	case StringAttr:
		return string(a), true
	}
	return "", false
}

// Symbol reads a symbol reference (without '@').
func (op *Op) Symbol(name string) (string, bool) {
	switch a := op.Attr(name).(type) {
	case SymbolRefAttr:
		return string(a), true
	case StringAttr:
		return string(a), true
	}
	return "", false
}

// Walk calls fn on every op of the region, depth first, parents first.
func (r *Region) Walk(fn func(*Op) error) error {
	if r == nil {
		return nil
	}
	for _, b := range r.Blocks {
		for _, op := range b.Ops {
			if err := fn(op); err != nil {
				return err
			}
			for _, sub := range op.Regions {
				if err := sub.Walk(fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
