package fx

import (
	"fmt"
	"strings"
)

// String returns the schema's tag without "as_" ("tensor", "sym_ints").
func (k ArgKind) String() string {
	if k < numArgKinds {
		return argKindNames[k]
	}
	return fmt.Sprintf("ArgKind(%d)", uint8(k))
}

// String prints "cpu" or "cuda:0".
func (d Device) String() string {
	if d.Index < 0 {
		return d.Type
	}
	return fmt.Sprintf("%s:%d", d.Type, d.Index)
}

// String prints a compactly, for messages and dumps.
func (a Arg) String() string {
	switch a.Kind {
	case ArgNone:
		return "None"
	case ArgTensor, ArgToken:
		return "%" + a.Name
	case ArgOptionalTensor:
		if a.Name == "" {
			return "None"
		}
		return "%" + a.Name
	case ArgTensors, ArgOptionalTensors:
		parts := make([]string, len(a.Names))
		for i, n := range a.Names {
			parts[i] = "None"
			if n != "" {
				parts[i] = "%" + n
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ArgInt:
		return fmt.Sprint(a.Int)
	case ArgInts:
		return fmt.Sprint(a.Ints)
	case ArgFloat:
		return fmt.Sprint(a.Float)
	case ArgFloats:
		return fmt.Sprint(a.Floats)
	case ArgBool:
		return fmt.Sprint(a.Bool)
	case ArgBools:
		return fmt.Sprint(a.Bools)
	case ArgString:
		return fmt.Sprintf("%q", a.Str)
	case ArgStrings:
		return fmt.Sprintf("%q", a.Strs)
	case ArgSymInt, ArgSymInts:
		return symString(len(a.SymInts), a.Kind == ArgSymInt, func(i int) (string, any) { return a.SymInts[i].Name, a.SymInts[i].Const })
	case ArgScalarType:
		return "torch." + a.DType.Torch()
	case ArgDevice:
		return a.Device.String()
	case ArgGraph:
		return "graph:" + a.Name
	case ArgCustomObj:
		return "obj:" + a.Name
	case ArgOperator:
		return a.Str
	case ArgComplex:
		return fmt.Sprint(a.Complex)
	case ArgIntLists:
		return fmt.Sprint(a.IntLists)
	case ArgFloatLists:
		return fmt.Sprint(a.FloatLists)
	case ArgNestedTensors:
		parts := make([]string, len(a.NestedNames))
		for i, l := range a.NestedNames {
			parts[i] = Arg{Kind: ArgTensors, Names: l}.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ArgSymFloat, ArgSymFloats:
		return symString(len(a.SymFloats), a.Kind == ArgSymFloat, func(i int) (string, any) { return a.SymFloats[i].Name, a.SymFloats[i].Const })
	case ArgSymBool, ArgSymBools:
		return symString(len(a.SymBools), a.Kind == ArgSymBool, func(i int) (string, any) { return a.SymBools[i].Name, a.SymBools[i].Const })
	case ArgMemoryFormat:
		return [...]string{"unknown_format", "torch.contiguous_format", "torch.channels_last", "torch.channels_last_3d", "torch.preserve_format"}[min(int(a.MemoryFormat), 4)]
	case ArgLayout:
		if a.Layout == Strided {
			return "torch.strided"
		}
		return fmt.Sprintf("layout(%d)", a.Layout)
	case ArgStringToArg:
		parts := []string{}
		for _, k := range sortedKeys(a.Map) {
			parts = append(parts, fmt.Sprintf("%q: %s", k, a.Map[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "<" + a.Kind.String() + ">"
}

// symString formats n symbolic values (%name, or else the constant): the
// value alone when single and n is 1, else a list.
func symString(n int, single bool, at func(i int) (name string, c any)) string {
	parts := make([]string, n)
	for i := range parts {
		name, c := at(i)
		if name != "" {
			parts[i] = "%" + name
		} else {
			parts[i] = fmt.Sprint(c)
		}
	}
	if single && n == 1 {
		return parts[0]
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
