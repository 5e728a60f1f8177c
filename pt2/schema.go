package pt2

import "encoding/json"

// JSON shapes of the export serde schema (torch/_export/serde/schema.py).
// Unions stay json.RawMessage and are decoded by the converters; missing
// fields (the 2.6 encoding omits None) decode to their zero value, which is
// the schema default.

type jExportedProgram struct {
	GraphModule      *jGraphModule     `json:"graph_module"`
	OpsetVersion     map[string]int    `json:"opset_version"`
	RangeConstraints map[string]jRange `json:"range_constraints"`
	SchemaVersion    *jSchemaVersion   `json:"schema_version"`
	Verifiers        []string          `json:"verifiers"`
	Dialect          string            `json:"dialect"` // schema < 8
	TorchVersion     string            `json:"torch_version"`
}

type jSchemaVersion struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
}

type jRange struct {
	MinVal *jint `json:"min_val"`
	MaxVal *jint `json:"max_val"`
}

type jGraphModule struct {
	Graph     *jGraph           `json:"graph"`
	Signature *jGraphSignature  `json:"signature"`
	Metadata  map[string]string `json:"metadata"`
}

type jGraph struct {
	Inputs               []json.RawMessage          `json:"inputs"`
	Outputs              []json.RawMessage          `json:"outputs"`
	Nodes                []jNode                    `json:"nodes"`
	TensorValues         map[string]jTensorMeta     `json:"tensor_values"`
	SymIntValues         map[string]json.RawMessage `json:"sym_int_values"`
	SymBoolValues        map[string]json.RawMessage `json:"sym_bool_values"`
	SymFloatValues       map[string]json.RawMessage `json:"sym_float_values"`
	IsSingleTensorReturn bool                       `json:"is_single_tensor_return"`
	CustomObjValues      map[string]jCustomObj      `json:"custom_obj_values"`
}

type jNode struct {
	Target                  string            `json:"target"`
	Inputs                  []jNamedArgument  `json:"inputs"`
	Outputs                 []json.RawMessage `json:"outputs"`
	Metadata                map[string]string `json:"metadata"`
	IsHopSingleTensorReturn *bool             `json:"is_hop_single_tensor_return"`
	Name                    *string           `json:"name"`
}

type jNamedArgument struct {
	Name string          `json:"name"`
	Arg  json.RawMessage `json:"arg"`
	Kind *int            `json:"kind"`
}

type jTensorMeta struct {
	DType         int               `json:"dtype"`
	Sizes         []json.RawMessage `json:"sizes"`
	RequiresGrad  bool              `json:"requires_grad"`
	Device        *jDevice          `json:"device"`
	Strides       []json.RawMessage `json:"strides"`
	StorageOffset json.RawMessage   `json:"storage_offset"`
	Layout        int               `json:"layout"`
}

type jDevice struct {
	Type  string `json:"type"`
	Index *int   `json:"index"`
}

type jSymExpr struct {
	ExprStr string          `json:"expr_str"`
	Hint    json.RawMessage `json:"hint"`
}

type jCustomObj struct {
	Name     string `json:"name"`
	ClassFQN string `json:"class_fqn"`
}

type jGraphArgument struct {
	Name  string  `json:"name"`
	Graph *jGraph `json:"graph"`
}

type jComplex struct {
	Real jfloat `json:"real"`
	Imag jfloat `json:"imag"`
}

type jGraphSignature struct {
	InputSpecs  []json.RawMessage `json:"input_specs"`
	OutputSpecs []json.RawMessage `json:"output_specs"`
}

// jSpec covers the fields of every InputSpec / OutputSpec member.
type jSpec struct {
	Arg                json.RawMessage `json:"arg"`
	ParameterName      string          `json:"parameter_name"`
	BufferName         string          `json:"buffer_name"`
	Persistent         *bool           `json:"persistent"`
	TensorConstantName string          `json:"tensor_constant_name"`
	CustomObjName      string          `json:"custom_obj_name"`
	UserInputName      string          `json:"user_input_name"`
	Name               string          `json:"name"`  // constant_input
	Value              json.RawMessage `json:"value"` // constant_input
}

type jPayloadConfig struct {
	Config map[string]jPayloadMeta `json:"config"`
}

type jPayloadMeta struct {
	PathName   string       `json:"path_name"`
	IsParam    bool         `json:"is_param"`
	UsePickle  bool         `json:"use_pickle"`
	TensorMeta *jTensorMeta `json:"tensor_meta"`
}
