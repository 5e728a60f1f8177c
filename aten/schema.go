package aten

import (
	"fmt"
	"strconv"
	"strings"
)

// Schema is a parsed function schema, e.g.
//
//	add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
type Schema struct {
	Name     string // qualified base name: "aten::add"
	Overload string // "Tensor"; "" for the default overload
	Params   []Param
	Returns  []Param
	Text     string // the schema as written
}

// Param is one argument or return of a schema.
type Param struct {
	Name      string // "" for an unnamed return
	Type      Type
	KwargOnly bool // after the `*` separator
	// Alias is the alias set ("a" in Tensor(a) or Tensor(a!)); Mutable is
	// set for "!": the op writes to this argument.
	Alias   string
	Mutable bool
	// HasDefault is set when the schema gives a default; Default is its
	// parsed value (a None Value for "None").
	HasDefault bool
	Default    Value
}

// Type is a schema type: a base type, optionally a list (fixed size N > 0
// when written "int[2]"), optionally optional, with an optional element
// type for lists ("Tensor?[]").
type Type struct {
	Base     string // "Tensor", "int", "SymInt", "float", "bool", "Scalar", "ScalarType", "str", ...
	ElemOpt  bool   // list elements are optional: Tensor?[]
	List     bool
	N        int // fixed list size, 0 when unsized
	Optional bool
}

func (t Type) String() string {
	s := t.Base
	if t.ElemOpt {
		s += "?"
	}
	if t.List {
		if t.N > 0 {
			s += "[" + strconv.Itoa(t.N) + "]"
		} else {
			s += "[]"
		}
	}
	if t.Optional {
		s += "?"
	}
	return s
}

// IsTensor reports whether the type is Tensor or Tensor? (not a list).
func (t Type) IsTensor() bool { return t.Base == "Tensor" && !t.List }

// QualifiedName returns "aten::add.Tensor" ("aten::abs.default" for a
// default overload, as fx.Node.Target spells it): the key of the registry.
func (s *Schema) QualifiedName() string {
	if s.Overload == "" {
		return s.Name + ".default"
	}
	return s.Name + "." + s.Overload
}

// Param returns the index of the named parameter, or -1.
func (s *Schema) Param(name string) int {
	for i, p := range s.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Mutates reports whether the schema writes to one of its arguments.
func (s *Schema) Mutates() bool {
	for _, p := range s.Params {
		if p.Mutable {
			return true
		}
	}
	return false
}

// ParseSchema parses one schema. A name without a namespace gets "aten::".
func ParseSchema(text string) (*Schema, error) {
	text = strings.TrimSpace(text)
	open := strings.IndexByte(text, '(')
	if open <= 0 {
		return nil, fmt.Errorf("schema %q: missing '('", text)
	}
	closeAt, err := matchParen(text, open)
	if err != nil {
		return nil, fmt.Errorf("schema %q: %w", text, err)
	}
	s := &Schema{Text: text}
	name := strings.TrimSpace(text[:open])
	if !strings.Contains(name, "::") {
		name = "aten::" + name
	}
	if i := strings.LastIndexByte(name, '.'); i > strings.Index(name, "::") {
		s.Name, s.Overload = name[:i], name[i+1:]
	} else {
		s.Name = name
	}
	if s.Params, err = parseParams(text[open+1:closeAt], true); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	rest := strings.TrimSpace(text[closeAt+1:])
	if !strings.HasPrefix(rest, "->") {
		return nil, fmt.Errorf("schema %s: missing '->'", name)
	}
	rest = strings.TrimSpace(rest[2:])
	if strings.HasPrefix(rest, "(") {
		end, err := matchParen(rest, 0)
		if err != nil {
			return nil, fmt.Errorf("schema %s returns: %w", name, err)
		}
		rest = rest[1:end]
	}
	if s.Returns, err = parseParams(rest, false); err != nil {
		return nil, fmt.Errorf("schema %s returns: %w", name, err)
	}
	return s, nil
}

func matchParen(s string, open int) (int, error) {
	depth := 0
	quote := byte(0)
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unbalanced parentheses")
}

// splitTop splits on commas outside brackets and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" || len(out) > 0 {
		out = append(out, s[start:])
	}
	return out
}

func parseParams(s string, args bool) ([]Param, error) {
	var ps []Param
	kw := false
	for _, f := range splitTop(s) {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("empty parameter")
		}
		if f == "*" {
			kw = true
			continue
		}
		p, err := parseParam(f, args)
		if err != nil {
			return nil, err
		}
		p.KwargOnly = kw
		ps = append(ps, p)
	}
	return ps, nil
}

// parseParam reads "Tensor(a!)? self=None" and the like.
func parseParam(f string, isArg bool) (Param, error) {
	var p Param
	def := ""
	if eq := strings.IndexByte(f, '='); eq >= 0 {
		def = strings.TrimSpace(f[eq+1:])
		f = strings.TrimSpace(f[:eq])
		p.HasDefault = true
	}
	// The type runs to the last space outside parentheses.
	typ, name := f, ""
	if sp := strings.LastIndexByte(f, ' '); sp >= 0 && !strings.Contains(f[sp:], ")") {
		typ, name = strings.TrimSpace(f[:sp]), f[sp+1:]
	}
	if isArg && name == "" {
		return p, fmt.Errorf("parameter %q has no name", f)
	}
	p.Name = name
	// Alias annotation: Tensor(a!) or Tensor(a -> *).
	if i := strings.IndexByte(typ, '('); i >= 0 {
		j := strings.IndexByte(typ, ')')
		if j < i {
			return p, fmt.Errorf("bad alias annotation in %q", f)
		}
		ann := strings.TrimSpace(typ[i+1 : j])
		typ = typ[:i] + typ[j+1:]
		if strings.HasSuffix(ann, "!") {
			p.Mutable = true
			ann = strings.TrimSuffix(ann, "!")
		}
		if k := strings.Index(ann, "->"); k >= 0 {
			ann = strings.TrimSpace(ann[:k])
		}
		p.Alias = ann
	}
	t, err := parseType(typ)
	if err != nil {
		return p, fmt.Errorf("parameter %q: %w", f, err)
	}
	p.Type = t
	if p.HasDefault {
		v, err := parseDefault(t, def)
		if err != nil {
			return p, fmt.Errorf("parameter %s default %q: %w", name, def, err)
		}
		p.Default = v
	}
	return p, nil
}

func parseType(s string) (Type, error) {
	var t Type
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") {
		t.Optional = true
		s = s[:len(s)-1]
	}
	if strings.HasSuffix(s, "]") {
		i := strings.LastIndexByte(s, '[')
		if i < 0 {
			return t, fmt.Errorf("bad type %q", s)
		}
		t.List = true
		if n := s[i+1 : len(s)-1]; n != "" {
			k, err := strconv.Atoi(n)
			if err != nil {
				return t, fmt.Errorf("bad list size in %q", s)
			}
			t.N = k
		}
		s = s[:i]
		if strings.HasSuffix(s, "?") {
			t.ElemOpt = true
			s = s[:len(s)-1]
		}
	}
	if s == "" || strings.ContainsAny(s, " ()[]?") {
		return t, fmt.Errorf("bad type %q", s)
	}
	t.Base = s
	return t, nil
}
