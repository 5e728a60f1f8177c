package aten

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// In-place ("aten::add_.Tensor") and out= ("aten::atan2.out") overloads are
// not written: deriveVariant builds them from the functional entry. The
// derived lowering runs the functional one and casts each result to the
// dtype of the tensor it writes (PyTorch's in-place casting rule: no
// float→integral, non-bool→bool or complex→real). The runtime rebinds the
// mutated arguments (Param.Mutable) to the returned values.

// deriveVariant returns a derived entry for name, or nil. regMu is held.
func deriveVariant(name string) *Entry {
	ns, op, ok := strings.Cut(name, "::")
	if !ok {
		return nil
	}
	base, overload, _ := strings.Cut(op, ".")
	switch {
	case strings.HasSuffix(base, "_") && !strings.HasSuffix(base, "__"):
		fn := registry[ns+"::"+strings.TrimSuffix(base, "_")+"."+overload]
		if fn == nil || fn.Kind == HostFallback {
			return nil
		}
		fs, err := fn.parsed()
		if err != nil {
			return nil
		}
		text := schemaText(name)
		if text == "" {
			text = inplaceSchema(fs, strings.TrimSuffix(op, "."+overload)+"."+overload)
		}
		s, err := ParseSchema(text)
		if err != nil || s.Param("self") < 0 {
			return nil
		}
		return &Entry{Name: name, Kind: fn.Kind, Lower: variantLower(fn, []string{"self"}), schema: parsedSchema(s), Base: fn, Schema: text, File: fn.File}
	case overload == "out" || strings.HasSuffix(overload, "_out"):
		text := schemaText(name)
		if text == "" {
			return nil
		}
		s, err := ParseSchema(text)
		if err != nil {
			return nil
		}
		var outs []string
		for _, p := range s.Params {
			if p.Mutable {
				outs = append(outs, p.Name)
			}
		}
		fn := functionalFor(ns+"::"+base, s, outs)
		if fn == nil {
			return nil
		}
		return &Entry{Name: name, Kind: fn.Kind, Lower: variantLower(fn, outs), schema: parsedSchema(s), Base: fn, Schema: text, File: fn.File}
	}
	return nil
}

// inplaceSchema writes the in-place schema of a functional one.
func inplaceSchema(s *Schema, op string) string {
	var b strings.Builder
	b.WriteString(op + "(")
	kw := false
	for i, p := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		if p.KwargOnly && !kw {
			b.WriteString("*, ")
			kw = true
		}
		t := p.Type.String()
		if p.Name == "self" {
			t = "Tensor(a!)"
		}
		b.WriteString(t + " " + p.Name)
		if p.HasDefault {
			b.WriteString("=" + defaultText(p.Default))
		}
	}
	b.WriteString(") -> Tensor(a!)")
	return b.String()
}

func defaultText(v Value) string {
	switch v.Kind {
	case KStr:
		return "'" + v.S + "'"
	case KList:
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = defaultText(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return v.String()
}

// functionalFor finds the registered overload of base whose parameters are
// the out= schema's minus the outputs.
func functionalFor(base string, s *Schema, outs []string) *Entry {
	for name, e := range registry {
		if !strings.HasPrefix(name, base+".") || e.Base != nil || e.Kind == HostFallback {
			continue
		}
		es, err := e.parsed()
		if err != nil {
			continue
		}
		fp := es.Params
		if len(fp)+len(outs) != len(s.Params) || len(es.Returns) != len(outs) {
			continue
		}
		match := true
		for _, p := range fp {
			i := s.Param(p.Name)
			if i < 0 || s.Params[i].Type.String() != p.Type.String() {
				match = false
				break
			}
		}
		if match {
			return e
		}
	}
	return nil
}

// variantLower runs fn and casts result i to the dtype of writes[i].
func variantLower(fn *Entry, writes []string) LowerFunc {
	return func(ctx *LowerCtx, args *Args) ([]Value, error) {
		fs, err := fn.parsed()
		if err != nil {
			return nil, err
		}
		kw := map[string]Value{}
		for i, p := range fs.Params {
			name := p.Name
			if i == 0 && args.Schema.Param(name) < 0 && args.Schema.Param("self") == 0 {
				name = "self" // dropout(Tensor input, …) vs dropout_(Tensor(a!) self, …)
			}
			kw[p.Name] = args.Value(name)
		}
		fargs, err := Bind(fs, nil, kw)
		if err != nil {
			return nil, err
		}
		res, err := fn.Call(ctx, fargs)
		if err != nil {
			return nil, err
		}
		if len(res) != len(writes) {
			return nil, fmt.Errorf("%s returns %d values for %d outputs", fn.Name, len(res), len(writes))
		}
		for i, w := range writes {
			dst := args.Tensor(w)
			if dst == nil || res[i].T == nil {
				continue
			}
			dt, from := ctx.DType(dst), ctx.DType(res[i].T)
			if !dtype.CanCast(from, dt) {
				return nil, fmt.Errorf("result type %s can't be cast to the desired output type %s", from.Torch(), dt.Torch())
			}
			if !sameShape(ctx.Shape(dst), ctx.Shape(res[i].T)) {
				return nil, fmt.Errorf("output with shape %v doesn't match the broadcast shape %v", ctx.Shape(dst), ctx.Shape(res[i].T))
			}
			res[i] = TensorValue(ctx.Convert(res[i].T, dt))
		}
		return res, nil
	}
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
