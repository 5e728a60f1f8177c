package fx

import (
	"github.com/torchtpu/torchtpu/dtype"
)

// ArgKind tags the variant an Arg holds. It mirrors the Argument union of
// the export schema (as_none, as_tensor, ...).
type ArgKind uint8

// Argument variants, one per member of the schema's Argument union.
const (
	ArgInvalid         ArgKind = iota
	ArgNone                    // as_none
	ArgTensor                  // as_tensor: Name
	ArgTensors                 // as_tensors: Names
	ArgOptionalTensor          // as_optional_tensor: Name, "" for None
	ArgOptionalTensors         // as_optional_tensors: Names, "" entries for None
	ArgNestedTensors           // as_nested_tensors: NestedNames
	ArgInt                     // as_int: Int
	ArgInts                    // as_ints: Ints
	ArgIntLists                // as_int_lists: IntLists
	ArgFloat                   // as_float: Float
	ArgFloats                  // as_floats: Floats
	ArgFloatLists              // as_float_lists: FloatLists
	ArgBool                    // as_bool: Bool
	ArgBools                   // as_bools: Bools
	ArgString                  // as_string: Str
	ArgStrings                 // as_strings: Strs
	ArgSymInt                  // as_sym_int: SymInts[0] (a name or a constant)
	ArgSymInts                 // as_sym_ints: SymInts
	ArgSymFloat                // as_sym_float: SymFloats[0]
	ArgSymFloats               // as_sym_floats: SymFloats
	ArgSymBool                 // as_sym_bool: SymBools[0]
	ArgSymBools                // as_sym_bools: SymBools
	ArgScalarType              // as_scalar_type: DType
	ArgMemoryFormat            // as_memory_format: MemoryFormat
	ArgLayout                  // as_layout: Layout
	ArgDevice                  // as_device: Device
	ArgGraph                   // as_graph: Name and Graph
	ArgCustomObj               // as_custom_obj: Name and Str (the class FQN)
	ArgOperator                // as_operator: Str (a target name)
	ArgComplex                 // as_complex: Complex
	ArgStringToArg             // as_string_to_argument: Map
	ArgToken                   // a TokenArgument in a signature: Name
	numArgKinds
)

var argKindNames = [numArgKinds]string{
	"invalid", "none", "tensor", "tensors", "optional_tensor", "optional_tensors", "nested_tensors",
	"int", "ints", "int_lists", "float", "floats", "float_lists", "bool", "bools", "string", "strings",
	"sym_int", "sym_ints", "sym_float", "sym_floats", "sym_bool", "sym_bools", "scalar_type",
	"memory_format", "layout", "device", "graph", "custom_obj", "operator", "complex",
	"string_to_argument", "token",
}

// SymInt is a symbolic integer argument: a value named Name (produced by a
// node or a sym_int_values entry) or, when Name is "", the constant Const.
type SymInt struct {
	Name  string
	Const int64
}

// SymFloat is a symbolic float argument: Name or the constant Const.
type SymFloat struct {
	Name  string
	Const float64
}

// SymBool is a symbolic bool argument: Name or the constant Const.
type SymBool struct {
	Name  string
	Const bool
}

// MemoryFormat is the schema's MemoryFormat enum.
type MemoryFormat uint8

// Memory formats, with the schema's numbering.
const (
	MemoryFormatUnknown MemoryFormat = iota
	ContiguousFormat
	ChannelsLast
	ChannelsLast3d
	PreserveFormat
)

// Layout is the schema's Layout enum.
type Layout uint8

// Layouts, with the schema's numbering.
const (
	LayoutUnknown Layout = iota
	SparseCoo
	SparseCsr
	SparseCsc
	SparseBsr
	SparseBsc
	Mkldnn
	Strided
)

// Device is a device argument, e.g. {Type: "cpu", Index: -1}.
type Device struct {
	Type  string
	Index int // -1 when absent
}

// Arg is one argument or output of a node: a tagged union over the export
// schema's Argument variants. Kind says which fields are meaningful; the
// others are zero.
type Arg struct {
	Kind ArgKind

	Name        string     // Tensor, OptionalTensor ("" = None), Graph, CustomObj, Token
	Names       []string   // Tensors; OptionalTensors ("" entries = None)
	NestedNames [][]string // NestedTensors

	Int        int64
	Ints       []int64
	IntLists   [][]int64
	Float      float64
	Floats     []float64
	FloatLists [][]float64
	Bool       bool
	Bools      []bool
	Str        string   // String, Operator, CustomObj class FQN
	Strs       []string // Strings

	SymInts   []SymInt   // SymInt (one entry), SymInts
	SymFloats []SymFloat // SymFloat (one entry), SymFloats
	SymBools  []SymBool  // SymBool (one entry), SymBools

	DType        dtype.DType // ScalarType (dtype.Invalid for the schema's UNKNOWN)
	MemoryFormat MemoryFormat
	Layout       Layout
	Device       Device
	Complex      complex128
	Graph        *Graph          // Graph: the subgraph of a higher-order op
	Map          map[string]*Arg // StringToArg
}

// TensorRef returns an Arg referring to the tensor value name.
func TensorRef(name string) Arg { return Arg{Kind: ArgTensor, Name: name} }

// IsNone reports whether a is the None argument (or an OptionalTensor that
// is None).
func (a Arg) IsNone() bool {
	return a.Kind == ArgNone || a.Kind == ArgOptionalTensor && a.Name == ""
}

// TensorNames returns every tensor value name a refers to, in order,
// including those inside nested lists (not inside subgraphs). None entries
// are skipped.
func (a Arg) TensorNames() []string {
	switch a.Kind {
	case ArgTensor, ArgOptionalTensor:
		if a.Name != "" {
			return []string{a.Name}
		}
	case ArgTensors, ArgOptionalTensors:
		var out []string
		for _, n := range a.Names {
			if n != "" {
				out = append(out, n)
			}
		}
		return out
	case ArgNestedTensors:
		var out []string
		for _, l := range a.NestedNames {
			out = append(out, l...)
		}
		return out
	case ArgStringToArg:
		var out []string
		for _, k := range sortedKeys(a.Map) {
			out = append(out, a.Map[k].TensorNames()...)
		}
		return out
	}
	return nil
}

// ValueNames returns every value name a refers to: tensors, symbolic
// scalars, tokens and custom objects (not subgraph names).
func (a Arg) ValueNames() []string {
	out := a.TensorNames()
	for _, s := range a.SymInts {
		if s.Name != "" {
			out = append(out, s.Name)
		}
	}
	for _, s := range a.SymFloats {
		if s.Name != "" {
			out = append(out, s.Name)
		}
	}
	for _, s := range a.SymBools {
		if s.Name != "" {
			out = append(out, s.Name)
		}
	}
	if a.Kind == ArgToken || a.Kind == ArgCustomObj {
		out = append(out, a.Name)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}
