package aten

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// Default values of schema parameters: Python literals, lists (a bare
// value for a sized list repeats), ScalarType codes and names, and the
// identifiers native_functions.yaml uses (Mean, contiguous_format).

// namedDefaults are the identifiers native_functions.yaml uses as defaults.
var namedDefaults = map[string]Value{
	"Mean":              IntValue(1), // at::Reduction::Mean
	"Sum":               IntValue(2),
	"contiguous_format": StrValue("contiguous_format"),
}

// parseDefault converts a default's text into a Value of the parameter type.
func parseDefault(t Type, s string) (Value, error) {
	if s == "None" {
		return None(), nil
	}
	if t.List {
		if strings.HasPrefix(s, "[") {
			var items []Value
			for _, e := range splitTop(s[1 : len(s)-1]) {
				v, err := parseScalarDefault(t.Base, strings.TrimSpace(e))
				if err != nil {
					return Value{}, err
				}
				items = append(items, v)
			}
			return ListValue(items...), nil
		}
		// "int[2] stride=1" repeats the value to the list size.
		v, err := parseScalarDefault(t.Base, s)
		if err != nil {
			return Value{}, err
		}
		n := t.N
		if n == 0 {
			n = 1
		}
		items := make([]Value, n)
		for i := range items {
			items[i] = v
		}
		return ListValue(items...), nil
	}
	return parseScalarDefault(t.Base, s)
}

func parseScalarDefault(base, s string) (Value, error) {
	if base == "ScalarType" {
		return scalarTypeDefault(s)
	}
	if v, ok := namedDefaults[s]; ok {
		return v, nil
	}
	switch {
	case s == "True" || s == "False":
		return BoolValue(s == "True"), nil
	case len(s) >= 2 && (s[0] == '\'' || s[0] == '"'):
		return StrValue(s[1 : len(s)-1]), nil
	}
	if base == "float" || strings.ContainsAny(s, ".e") && base != "str" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return Value{}, err
		}
		if base == "float" || strings.ContainsAny(s, ".e") {
			return FloatValue(f), nil
		}
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return IntValue(i), nil
	}
	return StrValue(s), nil
}

// c10ScalarTypes maps c10::ScalarType codes (as PyTorch prints defaults in
// schemas, "dtype=4") to dtypes.
var c10ScalarTypes = map[int64]dtype.DType{
	0: dtype.U8, 1: dtype.I8, 2: dtype.I16, 3: dtype.I32, 4: dtype.I64, 5: dtype.F16, 6: dtype.F32,
	7: dtype.F64, 9: dtype.C64, 10: dtype.C128, 11: dtype.Bool, 15: dtype.BF16,
}

// scalarTypeDefault reads a ScalarType default: a c10 code or a name.
func scalarTypeDefault(s string) (Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		if d, ok := c10ScalarTypes[i]; ok {
			return DTypeValue(d), nil
		}
		return Value{}, fmt.Errorf("unknown ScalarType code %d", i)
	}
	d, err := dtype.ParseTorch(s)
	if err != nil {
		return Value{}, err
	}
	return DTypeValue(d), nil
}
