package pt2

import (
	"encoding/json"
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
)

// scalarTypes maps the schema's ScalarType enum to dtypes. COMPLEXHALF (9)
// has no dtype here and is rejected.
var scalarTypes = map[int]dtype.DType{
	1: dtype.U8, 2: dtype.I8, 3: dtype.I16, 4: dtype.I32, 5: dtype.I64, 6: dtype.F16, 7: dtype.F32,
	8: dtype.F64, 10: dtype.C64, 11: dtype.C128, 12: dtype.Bool, 13: dtype.BF16, 28: dtype.U16,
	29: dtype.F8E4M3FN, 30: dtype.F8E5M2, 31: dtype.F8E4M3FNUZ, 32: dtype.F8E5M2FNUZ,
	33: dtype.F8E8M0FNU, 34: dtype.U32, 35: dtype.U64,
}

func scalarType(n int) (dtype.DType, error) {
	if n == 0 {
		return dtype.Invalid, nil
	}
	d, ok := scalarTypes[n]
	if !ok {
		return dtype.Invalid, fmt.Errorf("unsupported scalar type %d", n)
	}
	return d, nil
}

// decoder converts schema JSON into fx values; depth bounds nested graphs.
type decoder struct {
	depth int
}

const maxGraphDepth = 32

func unmarshal(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return fmt.Errorf("missing value")
	}
	return json.Unmarshal(raw, v)
}

func tensorName(raw json.RawMessage) (string, error) {
	var t struct {
		Name *string `json:"name"`
	}
	if err := unmarshal(raw, &t); err != nil {
		return "", err
	}
	if t.Name == nil || *t.Name == "" {
		return "", fmt.Errorf("tensor argument without a name")
	}
	return *t.Name, nil
}

func tensorNames(raw json.RawMessage) ([]string, error) {
	var list []json.RawMessage
	if err := unmarshal(raw, &list); err != nil {
		return nil, err
	}
	out := make([]string, len(list))
	for i, r := range list {
		n, err := tensorName(r)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

func optionalTensor(raw json.RawMessage) (string, error) {
	tag, v, err := union(raw)
	if err != nil {
		return "", err
	}
	switch tag {
	case "as_tensor":
		return tensorName(v)
	case "as_none":
		return "", nil
	}
	return "", fmt.Errorf("unknown optional tensor member %q", tag)
}

// arg decodes one Argument union.
func (d *decoder) arg(raw json.RawMessage) (fx.Arg, error) {
	tag, v, err := union(raw)
	if err != nil {
		return fx.Arg{}, err
	}
	a, err := d.argMember(tag, v)
	if err != nil {
		return fx.Arg{}, fmt.Errorf("%s: %w", tag, err)
	}
	return a, nil
}

func (d *decoder) argMember(tag string, v json.RawMessage) (fx.Arg, error) {
	var a fx.Arg
	var err error
	switch tag {
	case "as_none":
		a.Kind = fx.ArgNone
	case "as_tensor":
		a.Kind = fx.ArgTensor
		a.Name, err = tensorName(v)
	case "as_tensors":
		a.Kind = fx.ArgTensors
		a.Names, err = tensorNames(v)
	case "as_optional_tensor":
		a.Kind = fx.ArgOptionalTensor
		a.Name, err = optionalTensor(v)
	case "as_optional_tensors":
		a.Kind = fx.ArgOptionalTensors
		a.Names, err = list(v, optionalTensor)
	case "as_nested_tensors":
		a.Kind = fx.ArgNestedTensors
		a.NestedNames, err = list(v, tensorNames)
	case "as_int":
		a.Kind = fx.ArgInt
		err = unmarshal(v, &a.Int)
	case "as_ints":
		a.Kind = fx.ArgInts
		err = unmarshal(v, &a.Ints)
	case "as_int_lists":
		a.Kind = fx.ArgIntLists
		err = unmarshal(v, &a.IntLists)
	case "as_float":
		a.Kind = fx.ArgFloat
		var f jfloat
		err = unmarshal(v, &f)
		a.Float = float64(f)
	case "as_floats":
		a.Kind = fx.ArgFloats
		a.Floats, err = floats(v)
	case "as_float_lists":
		a.Kind = fx.ArgFloatLists
		a.FloatLists, err = list(v, floats)
	case "as_bool":
		a.Kind = fx.ArgBool
		err = unmarshal(v, &a.Bool)
	case "as_bools":
		a.Kind = fx.ArgBools
		err = unmarshal(v, &a.Bools)
	case "as_string":
		a.Kind = fx.ArgString
		err = unmarshal(v, &a.Str)
	case "as_strings":
		a.Kind = fx.ArgStrings
		err = unmarshal(v, &a.Strs)
	case "as_operator":
		a.Kind = fx.ArgOperator
		err = unmarshal(v, &a.Str)
	case "as_sym_int":
		a.Kind = fx.ArgSymInt
		var s fx.SymInt
		s, err = symInt(v)
		a.SymInts = []fx.SymInt{s}
	case "as_sym_ints":
		a.Kind = fx.ArgSymInts
		a.SymInts, err = list(v, symInt)
	case "as_sym_float":
		a.Kind = fx.ArgSymFloat
		var s fx.SymFloat
		s, err = symFloat(v)
		a.SymFloats = []fx.SymFloat{s}
	case "as_sym_floats":
		a.Kind = fx.ArgSymFloats
		a.SymFloats, err = list(v, symFloat)
	case "as_sym_bool":
		a.Kind = fx.ArgSymBool
		var s fx.SymBool
		s, err = symBool(v)
		a.SymBools = []fx.SymBool{s}
	case "as_sym_bools":
		a.Kind = fx.ArgSymBools
		a.SymBools, err = list(v, symBool)
	case "as_scalar_type":
		a.Kind = fx.ArgScalarType
		var n int
		if err = unmarshal(v, &n); err == nil {
			a.DType, err = scalarType(n)
		}
	case "as_memory_format":
		a.Kind = fx.ArgMemoryFormat
		var n int
		err = unmarshal(v, &n)
		if err == nil && (n < 0 || n > int(fx.PreserveFormat)) {
			err = fmt.Errorf("unknown memory format %d", n)
		}
		a.MemoryFormat = fx.MemoryFormat(n)
	case "as_layout":
		a.Kind = fx.ArgLayout
		var n int
		err = unmarshal(v, &n)
		if err == nil && (n < 0 || n > int(fx.Strided)) {
			err = fmt.Errorf("unknown layout %d", n)
		}
		a.Layout = fx.Layout(n)
	case "as_device":
		a.Kind = fx.ArgDevice
		a.Device, err = device(v)
	case "as_graph":
		a.Kind = fx.ArgGraph
		var g jGraphArgument
		if err = unmarshal(v, &g); err == nil {
			a.Name = g.Name
			if g.Graph == nil {
				return a, fmt.Errorf("graph argument %q without a graph", g.Name)
			}
			a.Graph, err = d.subgraph(g.Graph)
		}
	case "as_custom_obj":
		a.Kind = fx.ArgCustomObj
		var c jCustomObj
		err = unmarshal(v, &c)
		a.Name, a.Str = c.Name, c.ClassFQN
	case "as_complex":
		a.Kind = fx.ArgComplex
		var c jComplex
		err = unmarshal(v, &c)
		a.Complex = complex(float64(c.Real), float64(c.Imag))
	case "as_string_to_argument":
		a.Kind = fx.ArgStringToArg
		var m map[string]json.RawMessage
		if err = unmarshal(v, &m); err == nil {
			a.Map = make(map[string]*fx.Arg, len(m))
			for k, r := range m {
				sub, err := d.arg(r)
				if err != nil {
					return a, fmt.Errorf("[%q]: %w", k, err)
				}
				a.Map[k] = &sub
			}
		}
	default:
		return a, fmt.Errorf("unknown argument kind")
	}
	return a, err
}

func floats(raw json.RawMessage) ([]float64, error) {
	var fs []jfloat
	if err := unmarshal(raw, &fs); err != nil {
		return nil, err
	}
	out := make([]float64, len(fs))
	for i, f := range fs {
		out[i] = float64(f)
	}
	return out, nil
}
