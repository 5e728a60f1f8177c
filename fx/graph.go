// Package fx is torchtpu's aten graph IR: the program a torch.export archive
// holds (or the Go tracer records), with the graph signature that says which
// inputs are parameters, buffers, constants or user inputs and which outputs
// are mutations or user outputs, and TensorMeta with symbolic dims.
//
// A Graph mirrors the export schema closely; pt2.Read builds one from the
// archive JSON. Names are the export's value names; a value is produced by
// exactly one graph input or node output. Targets are normalized to the aten
// registry's spelling ("aten::add.Tensor", see NormalizeTarget).
//
// Passes (functionalize, cse, dce) form a named, ordered table, Passes,
// applied by RunPasses with per-pass disabling, dumps and a verifier
// (Graph.Verify). What a pass must know about an operator comes through
// OpInfo; NameOpInfo derives it from PyTorch's naming conventions, and the
// aten registry can supply an exact one from op schemas.
package fx

import (
	"fmt"
	"strings"
)

// Graph is one graph: the top-level program or the body of a higher-order op.
type Graph struct {
	// Inputs are the placeholders. For the top-level graph they are in
	// signature order: Signature.Inputs[i] describes Inputs[i].
	Inputs []Arg
	// Nodes in execution order.
	Nodes []*Node
	// Outputs; Signature.Outputs[i] describes Outputs[i].
	Outputs []Arg

	// Tensors holds the TensorMeta of every tensor value by name.
	Tensors map[string]*TensorMeta
	// SymInts, SymFloats and SymBools hold the symbolic scalar values.
	SymInts   map[string]SymValue
	SymFloats map[string]SymValue
	SymBools  map[string]SymValue
	// CustomObjs maps a custom object value to its class FQN.
	CustomObjs map[string]string
	// IsSingleTensorReturn is set for subgraphs returning a bare tensor.
	IsSingleTensorReturn bool

	// Signature is nil for subgraphs.
	Signature *Signature
	// Ranges are the range constraints per size symbol ("s77"); top-level only.
	Ranges map[string]Range

	producer map[string]*Node // lazily built by index()
}

// Node is one operator call.
type Node struct {
	// Name is the node's name (the export's Node.name, or its first output
	// name for archives that predate it).
	Name string
	// Target is the normalized operator name: "aten::add.Tensor",
	// "aten::view.default" (the default overload is spelled out),
	// "higher_order::cond", "_operator.mul", "torch.sym_max", "ns::op" for
	// extension ops "#ns:op". See NormalizeTarget.
	Target string
	// RawTarget is the target exactly as serialized.
	RawTarget string
	// Inputs are the arguments actually passed, in schema order; defaults
	// are omitted by the export and must be filled from the op schema.
	Inputs []NamedArg
	// Outputs: one Arg per returned value.
	Outputs []Arg
	// Meta is the export metadata (stack_trace, nn_module_stack, ...).
	Meta map[string]string
	// IsHOPSingleTensorReturn marks a higher-order op returning a bare tensor.
	IsHOPSingleTensorReturn bool
}

// NamedArg is one input of a node.
type NamedArg struct {
	Name string // the schema argument name ("self", "other"); "" for HOP inputs
	Arg  Arg
	// Kwarg is set for keyword-only arguments (kind 2 in the archive);
	// archives older than the field (torch ≤ 2.7) leave it false, so match
	// arguments by Name.
	Kwarg bool
}

// Signature is the export's graph signature.
type Signature struct {
	Inputs  []InputSpec
	Outputs []OutputSpec
}

// InputKind says what a graph input is.
type InputKind uint8

// Input kinds.
const (
	InputUser           InputKind = iota + 1 // user_input: a runtime input (or a baked-in scalar)
	InputParameter                           // parameter
	InputBuffer                              // buffer
	InputTensorConstant                      // tensor_constant
	InputCustomObj                           // custom_obj
	InputToken                               // token
	InputConstant                            // constant_input: a Python constant
)

var inputKindNames = map[InputKind]string{
	InputUser: "user_input", InputParameter: "parameter", InputBuffer: "buffer",
	InputTensorConstant: "tensor_constant", InputCustomObj: "custom_obj", InputToken: "token",
	InputConstant: "constant_input",
}

// String returns the schema's tag.
func (k InputKind) String() string {
	if s, ok := inputKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("InputKind(%d)", uint8(k))
}

// ParseInputKind returns the kind the schema's tag names.
func ParseInputKind(tag string) (InputKind, bool) {
	for k, s := range inputKindNames {
		if s == tag {
			return k, true
		}
	}
	return 0, false
}

// InputSpec describes one graph input.
type InputSpec struct {
	Kind InputKind
	// Arg is the placeholder (a tensor, a token, a custom object, or for
	// user inputs possibly a constant scalar argument).
	Arg Arg
	// Target is the FQN of the parameter, buffer, tensor constant or custom
	// object; the name of a constant_input.
	Target string
	// Persistent is set for persistent buffers.
	Persistent bool
	// Value is the constant of a constant_input (ArgNone/Int/Float/String/Bool).
	Value Arg
}

// OutputKind says what a graph output is.
type OutputKind uint8

// Output kinds.
const (
	OutputUser              OutputKind = iota + 1 // user_output
	OutputLoss                                    // loss_output
	OutputBufferMutation                          // buffer_mutation: new value of buffer Target
	OutputGradientToParam                         // gradient_to_parameter
	OutputGradientToInput                         // gradient_to_user_input
	OutputUserInputMutation                       // user_input_mutation
	OutputToken                                   // token
	OutputParameterMutation                       // parameter_mutation
)

var outputKindNames = map[OutputKind]string{
	OutputUser: "user_output", OutputLoss: "loss_output", OutputBufferMutation: "buffer_mutation",
	OutputGradientToParam: "gradient_to_parameter", OutputGradientToInput: "gradient_to_user_input",
	OutputUserInputMutation: "user_input_mutation", OutputToken: "token",
	OutputParameterMutation: "parameter_mutation",
}

// String returns the schema's tag.
func (k OutputKind) String() string {
	if s, ok := outputKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("OutputKind(%d)", uint8(k))
}

// ParseOutputKind returns the kind the schema's tag names.
func ParseOutputKind(tag string) (OutputKind, bool) {
	for k, s := range outputKindNames {
		if s == tag {
			return k, true
		}
	}
	return 0, false
}

// OutputSpec describes one graph output.
type OutputSpec struct {
	Kind OutputKind
	Arg  Arg
	// Target is the buffer / parameter FQN or user input name the output
	// mutates or is the gradient of.
	Target string
}

// StackTrace returns the node's Python stack trace, or "".
func (n *Node) StackTrace() string { return n.Meta["stack_trace"] }

// SourceLine returns the most useful frame of the stack trace compacted to
// one line ("File \"m.py\", line 12, in forward x = self.fc(x)"), for
// error messages: the last frame outside torch's own sources and generated
// code, or else the last frame.
func (n *Node) SourceLine() string {
	st := strings.TrimSpace(n.StackTrace())
	if st == "" {
		return ""
	}
	frames := strings.Split(st, "File \"")
	var last string
	for i := len(frames) - 1; i >= 1; i-- {
		f := strings.Join(strings.Fields("File \""+frames[i]), " ")
		if last == "" {
			last = f
		}
		file, _, _ := strings.Cut(frames[i], "\"")
		if !strings.HasPrefix(file, "<") && !strings.Contains(file, "/torch/") {
			return f
		}
	}
	if last == "" {
		return strings.Join(strings.Fields(st), " ")
	}
	return last
}

// Input returns the named input and whether it was passed.
func (n *Node) Input(name string) (Arg, bool) {
	for _, a := range n.Inputs {
		if a.Name == name {
			return a.Arg, true
		}
	}
	return Arg{}, false
}

// Subgraphs returns the subgraphs passed to a higher-order op, in order.
func (n *Node) Subgraphs() []*Graph {
	var out []*Graph
	for _, a := range n.Inputs {
		if a.Arg.Kind == ArgGraph && a.Arg.Graph != nil {
			out = append(out, a.Arg.Graph)
		}
	}
	return out
}

// OutputNames returns the value names the node defines.
func (n *Node) OutputNames() []string {
	var out []string
	for _, o := range n.Outputs {
		out = append(out, o.ValueNames()...)
	}
	return out
}

// String prints "add = aten::add.Tensor(self=%x, other=%y)".
func (n *Node) String() string {
	var b strings.Builder
	b.WriteString(strings.Join(n.OutputNames(), ", "))
	b.WriteString(" = ")
	b.WriteString(n.Target)
	b.WriteByte('(')
	for i, a := range n.Inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		if a.Name != "" {
			b.WriteString(a.Name + "=")
		}
		b.WriteString(a.Arg.String())
	}
	b.WriteByte(')')
	return b.String()
}

// NormalizeTarget turns a serialized target into the registry form:
// "torch.ops.aten.add.Tensor" → "aten::add.Tensor",
// "torch.ops.higher_order.cond" → "higher_order::cond",
// "#ns:op" → "ns::op". Other targets ("_operator.mul", "torch.sym_max",
// "math.trunc") are returned unchanged.
func NormalizeTarget(raw string) string {
	if rest, ok := strings.CutPrefix(raw, "torch.ops."); ok {
		if ns, op, ok := strings.Cut(rest, "."); ok && ns != "" && op != "" {
			return ns + "::" + op
		}
		return raw
	}
	if rest, ok := strings.CutPrefix(raw, "#"); ok {
		if ns, op, ok := strings.Cut(rest, ":"); ok {
			return ns + "::" + op
		}
	}
	return raw
}
