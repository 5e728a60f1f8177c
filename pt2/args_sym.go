package pt2

import (
	"encoding/json"
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
)

// symArg decodes a Sym{Int,Float,Bool}Argument: {"as_name": s} or a constant.
func symArg(raw json.RawMessage, constTag string, c any) (string, error) {
	tag, v, err := union(raw)
	if err != nil {
		return "", err
	}
	switch tag {
	case "as_name":
		var s string
		if err := unmarshal(v, &s); err != nil {
			return "", err
		}
		if s == "" {
			return "", fmt.Errorf("symbolic argument with an empty name")
		}
		return s, nil
	case constTag:
		return "", unmarshal(v, c)
	}
	return "", fmt.Errorf("unknown symbolic argument member %q", tag)
}

func list[T any](raw json.RawMessage, f func(json.RawMessage) (T, error)) ([]T, error) {
	var items []json.RawMessage
	if err := unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]T, len(items))
	for i, it := range items {
		v, err := f(it)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func symInt(raw json.RawMessage) (fx.SymInt, error) {
	var s fx.SymInt
	var err error
	s.Name, err = symArg(raw, "as_int", &s.Const)
	return s, err
}

func symFloat(raw json.RawMessage) (fx.SymFloat, error) {
	var s fx.SymFloat
	var f jfloat
	var err error
	s.Name, err = symArg(raw, "as_float", &f)
	s.Const = float64(f)
	return s, err
}

func symBool(raw json.RawMessage) (fx.SymBool, error) {
	var s fx.SymBool
	var err error
	s.Name, err = symArg(raw, "as_bool", &s.Const)
	return s, err
}

func device(raw json.RawMessage) (fx.Device, error) {
	var d jDevice
	if err := unmarshal(raw, &d); err != nil {
		return fx.Device{}, err
	}
	return convDevice(&d), nil
}

func convDevice(d *jDevice) fx.Device {
	if d == nil {
		return fx.Device{Type: "cpu", Index: -1}
	}
	out := fx.Device{Type: d.Type, Index: -1}
	if d.Index != nil {
		out.Index = *d.Index
	}
	return out
}
