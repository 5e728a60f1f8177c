package fx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/sym"
)

// Dim is one size (or stride) of a tensor: a static value, or a symbolic
// expression over the export's size symbols (then Expr != nil and Hint, if
// HasHint, is the value seen at export time).
type Dim struct {
	Static  int64
	Expr    *sym.Expr
	Hint    int64
	HasHint bool
}

// StaticDim returns a static Dim.
func StaticDim(n int64) Dim { return Dim{Static: n} }

// IsStatic reports whether d has a fixed value.
func (d Dim) IsStatic() bool { return d.Expr == nil }

// Eval returns d's value for the given symbol bindings.
func (d Dim) Eval(bindings map[string]int64) (int64, error) {
	if d.Expr == nil {
		return d.Static, nil
	}
	return d.Expr.Eval(bindings)
}

// String prints "4" or the expression ("s77", "2*s77").
func (d Dim) String() string {
	if d.Expr == nil {
		return fmt.Sprint(d.Static)
	}
	return d.Expr.String()
}

// TensorMeta is the type of a tensor value: element type and shape, plus
// what the export recorded about its layout.
type TensorMeta struct {
	DType         dtype.DType
	Shape         []Dim
	Strides       []Dim
	StorageOffset Dim
	RequiresGrad  bool
	Device        Device
	Layout        Layout
}

// Rank is the number of dims.
func (m *TensorMeta) Rank() int { return len(m.Shape) }

// IsStatic reports whether every dim is static.
func (m *TensorMeta) IsStatic() bool {
	for _, d := range m.Shape {
		if !d.IsStatic() {
			return false
		}
	}
	return true
}

// StaticShape returns the shape if every dim is static.
func (m *TensorMeta) StaticShape() ([]int64, bool) {
	out := make([]int64, len(m.Shape))
	for i, d := range m.Shape {
		if !d.IsStatic() {
			return nil, false
		}
		out[i] = d.Static
	}
	return out, true
}

// EvalShape returns the concrete shape for the given symbol bindings.
func (m *TensorMeta) EvalShape(bindings map[string]int64) ([]int64, error) {
	out := make([]int64, len(m.Shape))
	for i, d := range m.Shape {
		v, err := d.Eval(bindings)
		if err != nil {
			return nil, fmt.Errorf("dim %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// Symbols returns the distinct size symbols used in the shape, sorted.
func (m *TensorMeta) Symbols() []string {
	seen := map[string]bool{}
	for _, d := range m.Shape {
		if d.Expr != nil {
			for _, s := range d.Expr.Symbols() {
				seen[s] = true
			}
		}
	}
	return sortedKeys(seen)
}

// String prints e.g. "f32[s77,16]".
func (m *TensorMeta) String() string {
	parts := make([]string, len(m.Shape))
	for i, d := range m.Shape {
		parts[i] = d.String()
	}
	return fmt.Sprintf("%v[%s]", m.DType, strings.Join(parts, ","))
}

// Range is the export's range constraint for a size symbol. A nil bound is
// unbounded.
type Range struct {
	Min, Max *int64
}

// String prints "[1, 64]" with "-inf"/"inf" for unbounded ends.
func (r Range) String() string {
	lo, hi := "-inf", "inf"
	if r.Min != nil {
		lo = fmt.Sprint(*r.Min)
	}
	if r.Max != nil {
		hi = fmt.Sprint(*r.Max)
	}
	return "[" + lo + ", " + hi + "]"
}

// Contains reports whether v lies within the range.
func (r Range) Contains(v int64) bool {
	return (r.Min == nil || v >= *r.Min) && (r.Max == nil || v <= *r.Max)
}

// SymValue is an entry of the graph's sym_int_values / sym_float_values /
// sym_bool_values: a symbolic scalar value and what the export knew of it.
type SymValue struct {
	Expr    *sym.Expr // nil when the value is a constant
	Int     int64     // constant or hint
	Float   float64
	Bool    bool
	HasHint bool
}

func sortStrings(s []string) { sort.Strings(s) }
