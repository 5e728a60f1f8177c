package pt2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// quoteNonFinite rewrites the bare NaN, Infinity and -Infinity tokens that
// Python's json.dumps writes (torch ≤ 2.7) into the string forms torch 2.14
// writes ("NaN", "Infinity", "-Infinity"), leaving string contents alone, so
// that encoding/json accepts the document. It returns data itself when
// there is nothing to rewrite.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var out []byte
	last := 0
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		for _, tok := range []string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(data[i:], []byte(tok)) {
				out = append(out, data[last:i]...)
				out = append(out, '"')
				out = append(out, tok...)
				out = append(out, '"')
				i += len(tok) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// jfloat is a float field: a JSON number or one of the strings "NaN",
// "Infinity", "-Infinity" (or any string Python's float() accepts).
type jfloat float64

func (f *jfloat) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "NaN", "nan":
			*f = jfloat(math.NaN())
		case "Infinity", "inf":
			*f = jfloat(math.Inf(1))
		case "-Infinity", "-inf":
			*f = jfloat(math.Inf(-1))
		default:
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("bad float %q", s)
			}
			*f = jfloat(v)
		}
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = jfloat(v)
	return nil
}

// union decodes a schema union: an object with exactly one key.
func union(raw json.RawMessage) (string, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", nil, err
	}
	if len(m) != 1 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		return "", nil, fmt.Errorf("union must have exactly one member, has %d %q", len(m), keys)
	}
	for k, v := range m {
		return k, v, nil
	}
	panic("unreachable")
}

// jint decodes a JSON integer that may exceed int64 (Python ints), clamping
// to the int64 range and reporting whether it did.
type jint struct {
	V       int64
	Clamped bool
}

func (n *jint) UnmarshalJSON(b []byte) error {
	var num json.Number
	if err := json.Unmarshal(b, &num); err != nil {
		return err
	}
	if v, err := num.Int64(); err == nil {
		n.V = v
		return nil
	}
	f, err := num.Float64()
	if err != nil || math.IsNaN(f) || f != math.Trunc(f) {
		return fmt.Errorf("bad integer %s", num)
	}
	n.Clamped = true
	if f < 0 {
		n.V = math.MinInt64
	} else {
		n.V = math.MaxInt64
	}
	return nil
}
