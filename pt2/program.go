package pt2

import (
	"encoding/json"
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/limits"
)

// SupportedSchemaMajor is the export schema major version this reader
// understands (torch 2.6 wrote 8.2, torch 2.14 writes 8.20).
const SupportedSchemaMajor = 8

// decodeProgram parses a serialized ExportedProgram under the default
// limits.
func decodeProgram(data []byte) (*fx.Graph, *jExportedProgram, error) {
	return decodeProgramLimits(data, limits.Limits{})
}

// decodeProgramLimits parses a serialized ExportedProgram; its nesting is
// checked against lim before it is decoded.
func decodeProgramLimits(data []byte, lim limits.Limits) (*fx.Graph, *jExportedProgram, error) {
	if err := lim.JSONDepth("program", data); err != nil {
		return nil, nil, err
	}
	var ep jExportedProgram
	if err := json.Unmarshal(quoteNonFinite(data), &ep); err != nil {
		return nil, nil, fmt.Errorf("bad JSON: %w", err)
	}
	if ep.SchemaVersion == nil {
		return nil, nil, fmt.Errorf("no schema_version")
	}
	if v := ep.SchemaVersion; v.Major != SupportedSchemaMajor && !(v.Major == 0 && v.Minor == 0) {
		return nil, nil, fmt.Errorf("schema version %d.%d is not supported (need major %d)", v.Major, v.Minor, SupportedSchemaMajor)
	}
	if ep.GraphModule == nil || ep.GraphModule.Graph == nil {
		return nil, nil, fmt.Errorf("no graph_module.graph")
	}
	d := &decoder{}
	g, err := d.graph(ep.GraphModule.Graph)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: %w", err)
	}
	if ep.GraphModule.Signature == nil {
		return nil, nil, fmt.Errorf("no graph_module.signature")
	}
	if g.Signature, err = d.signature(ep.GraphModule.Signature); err != nil {
		return nil, nil, fmt.Errorf("signature: %w", err)
	}
	if err := checkSignature(g); err != nil {
		return nil, nil, fmt.Errorf("signature: %w", err)
	}
	g.Ranges = map[string]fx.Range{}
	for s, r := range ep.RangeConstraints {
		var fr fx.Range
		if r.MinVal != nil && !r.MinVal.Clamped {
			v := r.MinVal.V
			fr.Min = &v
		}
		if r.MaxVal != nil && !r.MaxVal.Clamped {
			v := r.MaxVal.V
			fr.Max = &v
		}
		g.Ranges[s] = fr
	}
	return g, &ep, nil
}

func (d *decoder) signature(js *jGraphSignature) (*fx.Signature, error) {
	sig := &fx.Signature{}
	for i, raw := range js.InputSpecs {
		s, err := d.inputSpec(raw)
		if err != nil {
			return nil, fmt.Errorf("input_specs[%d]: %w", i, err)
		}
		sig.Inputs = append(sig.Inputs, s)
	}
	for i, raw := range js.OutputSpecs {
		s, err := d.outputSpec(raw)
		if err != nil {
			return nil, fmt.Errorf("output_specs[%d]: %w", i, err)
		}
		sig.Outputs = append(sig.Outputs, s)
	}
	return sig, nil
}

func (d *decoder) inputSpec(raw json.RawMessage) (fx.InputSpec, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.InputSpec{}, err
	}
	kind, ok := fx.ParseInputKind(tag)
	if !ok {
		return fx.InputSpec{}, fmt.Errorf("unknown input spec %q", tag)
	}
	var js jSpec
	if err := unmarshal(v, &js); err != nil {
		return fx.InputSpec{}, fmt.Errorf("%s: %w", tag, err)
	}
	s := fx.InputSpec{Kind: kind}
	switch kind {
	case fx.InputUser:
		s.Arg, err = d.arg(js.Arg)
	case fx.InputParameter, fx.InputBuffer, fx.InputTensorConstant:
		s.Arg.Kind = fx.ArgTensor
		s.Arg.Name, err = tensorName(js.Arg)
		s.Target = map[fx.InputKind]string{fx.InputParameter: js.ParameterName, fx.InputBuffer: js.BufferName,
			fx.InputTensorConstant: js.TensorConstantName}[kind]
		if err == nil && s.Target == "" {
			err = fmt.Errorf("no target name")
		}
		s.Persistent = kind == fx.InputBuffer && (js.Persistent == nil || *js.Persistent)
	case fx.InputCustomObj:
		var c jCustomObj
		err = unmarshal(js.Arg, &c)
		s.Arg = fx.Arg{Kind: fx.ArgCustomObj, Name: c.Name, Str: c.ClassFQN}
		s.Target = js.CustomObjName
	case fx.InputToken:
		s.Arg.Kind = fx.ArgToken
		s.Arg.Name, err = tensorName(js.Arg)
	case fx.InputConstant:
		s.Target = js.Name
		s.Value, err = d.arg(js.Value) // ConstantValue shares Argument's tags
		s.Arg = s.Value
	}
	if err != nil {
		return fx.InputSpec{}, fmt.Errorf("%s: %w", tag, err)
	}
	return s, nil
}

func (d *decoder) outputSpec(raw json.RawMessage) (fx.OutputSpec, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.OutputSpec{}, err
	}
	kind, ok := fx.ParseOutputKind(tag)
	if !ok {
		return fx.OutputSpec{}, fmt.Errorf("unknown output spec %q", tag)
	}
	var js jSpec
	if err := unmarshal(v, &js); err != nil {
		return fx.OutputSpec{}, fmt.Errorf("%s: %w", tag, err)
	}
	s := fx.OutputSpec{Kind: kind}
	switch kind {
	case fx.OutputUser:
		s.Arg, err = d.arg(js.Arg)
	case fx.OutputToken:
		s.Arg.Kind = fx.ArgToken
		s.Arg.Name, err = tensorName(js.Arg)
	default:
		s.Arg.Kind = fx.ArgTensor
		s.Arg.Name, err = tensorName(js.Arg)
		s.Target = js.BufferName + js.ParameterName + js.UserInputName
	}
	if err != nil {
		return fx.OutputSpec{}, fmt.Errorf("%s: %w", tag, err)
	}
	return s, nil
}

// checkSignature ties the specs to the graph's inputs and outputs.
func checkSignature(g *fx.Graph) error {
	sig := g.Signature
	if len(sig.Inputs) != len(g.Inputs) {
		return fmt.Errorf("%d input specs for %d graph inputs", len(sig.Inputs), len(g.Inputs))
	}
	if len(sig.Outputs) != len(g.Outputs) {
		return fmt.Errorf("%d output specs for %d graph outputs", len(sig.Outputs), len(g.Outputs))
	}
	targets := map[string]bool{}
	for i, s := range sig.Inputs {
		if got, want := s.Arg.ValueNames(), g.Inputs[i].ValueNames(); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("input spec %d (%s) names %v, graph input %d is %v", i, s.Kind, got, i, want)
		}
		if s.Target != "" && s.Kind != fx.InputConstant {
			key := s.Kind.String() + ":" + s.Target
			if targets[key] {
				return fmt.Errorf("input spec %d: %s %q appears twice", i, s.Kind, s.Target)
			}
			targets[key] = true
		}
	}
	for i, s := range sig.Outputs {
		if got, want := s.Arg.ValueNames(), g.Outputs[i].ValueNames(); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("output spec %d (%s) names %v, graph output %d is %v", i, s.Kind, got, i, want)
		}
	}
	return nil
}
