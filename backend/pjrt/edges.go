package pjrt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// The host side of legalize's types pass: arguments of a type the device
// does not carry are converted before the upload, results converted back
// after the download. Sub-byte integers keep their bytes (one value per
// byte, sign-extended, in both types); small floats go through f32 exactly.

// convertLiteral returns l's values in element type to: the bytes
// relabelled between integer types of one byte, the values converted
// between floats.
func convertLiteral(l *literal.Literal, to dtype.DType) (*literal.Literal, error) {
	if l == nil || l.DType == to {
		return l, nil
	}
	if l.DType.Size() == 1 && to.Size() == 1 && !l.DType.IsFloat() && !to.IsFloat() {
		return &literal.Literal{DType: to, Shape: l.Shape, Data: l.Data}, nil
	}
	if !l.DType.IsFloat() || !to.IsFloat() {
		return nil, fmt.Errorf("cannot carry %v as %v", l.DType, to)
	}
	out, err := literal.New(to, l.Shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < l.Len(); i++ {
		out.SetFloat64(i, l.Float64(i))
	}
	return out, nil
}

// carrierOf is the device's type for the caller's d.
func carrierOf(d dtype.DType) dtype.DType {
	switch d {
	case dtype.I2, dtype.I4:
		return dtype.I8
	case dtype.U2, dtype.U4:
		return dtype.U8
	}
	return dtype.F32
}

func edgesToDevice(e *legalize.Edges, args []*literal.Literal) ([]*literal.Literal, error) {
	if e == nil {
		return args, nil
	}
	out := append([]*literal.Literal(nil), args...)
	for i, d := range e.Args {
		if d == dtype.Invalid || i >= len(out) {
			continue
		}
		if out[i] == nil || out[i].DType != d {
			return nil, fmt.Errorf("argument %d: want %v", i, d)
		}
		c, err := convertLiteral(out[i], carrierOf(d))
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		out[i] = c
	}
	return out, nil
}

func edgesToHost(e *legalize.Edges, outs []*literal.Literal) ([]*literal.Literal, error) {
	if e == nil {
		return outs, nil
	}
	for i, d := range e.Results {
		if d == dtype.Invalid || i >= len(outs) {
			continue
		}
		c, err := convertLiteral(outs[i], d)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		outs[i] = c
	}
	return outs, nil
}

// formatEdges writes edges for a serialized executable's header: "a"
// then the argument dtypes, "r" then the result dtypes (numbers, 0 for
// none), or "-" when there are none.
func formatEdges(e *legalize.Edges) string {
	if e == nil {
		return "-"
	}
	list := func(ds []dtype.DType) string {
		parts := make([]string, len(ds))
		for i, d := range ds {
			parts[i] = strconv.Itoa(int(d))
		}
		return strings.Join(parts, ",")
	}
	return "a" + list(e.Args) + "r" + list(e.Results)
}

func parseEdges(s string) (*legalize.Edges, error) {
	if s == "-" || s == "" {
		return nil, nil
	}
	a, r, ok := strings.Cut(strings.TrimPrefix(s, "a"), "r")
	if !ok || !strings.HasPrefix(s, "a") {
		return nil, fmt.Errorf("bad edges %q", s)
	}
	list := func(t string) ([]dtype.DType, error) {
		if t == "" {
			return nil, nil
		}
		var out []dtype.DType
		for _, p := range strings.Split(t, ",") {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n > 255 {
				return nil, fmt.Errorf("bad edges %q", s)
			}
			out = append(out, dtype.DType(n))
		}
		return out, nil
	}
	args, err := list(a)
	if err != nil {
		return nil, err
	}
	res, err := list(r)
	if err != nil {
		return nil, err
	}
	return &legalize.Edges{Args: args, Results: res}, nil
}
