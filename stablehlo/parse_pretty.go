package stablehlo

import (
	"strings"
)

// A prettyFunc parses the custom assembly form of one op after its name,
// filling operands, attributes and regions, and returns the result types.
// nres is the number of result names written on the left.
type prettyFunc func(p *parser, op *Op, nres int) []Type

// prettyParsers holds the ops with a form of their own; ops that follow
// the common `operands, key = value, WORD {attrs} : types` shape are
// described by prettySpecs instead. Both are filled at init.
var prettyParsers = map[string]prettyFunc{}

// prettyItem is one `key = value` of a pretty form (value2 holds the right
// side of `[..] x [..]`).
type prettyItem struct {
	at     int
	key    string
	value  Attr
	value2 Attr
}

// wordItem is a bare word of a pretty form (compare's `EQ`, `FLOAT`).
type wordItem struct {
	at   int
	word string
}

// prettyArgs is what parseItems found besides operands.
type prettyArgs struct {
	items []prettyItem
	words []wordItem
	attrs []Attr // positional attributes, e.g. check.expect_eq_const's dense<...>
	atPos []int
}

// parseItems parses a comma-separated list of operands, `key = value`,
// bare words and positional dense/array attributes.
func (p *parser) parseItems(op *Op, s *prettySpec) *prettyArgs {
	a := &prettyArgs{}
	for first := true; ; first = false {
		c := p.peek()
		at := p.here()
		switch {
		case c == '%':
			op.Operands = append(op.Operands, p.parseUse())
		case isLetter(c) || c == '_':
			id := p.ident()
			switch {
			case p.accept("="):
				it := prettyItem{at: at, key: id}
				if p.peek() == '<' {
					it.value = &StructAttr{Fields: p.parseStructFields()}
				} else {
					it.value = p.parseAttrMode(modeBare | modeNoSuffix)
				}
				if p.atKeyword("x") {
					p.pos++
					it.value2 = p.parseAttrMode(modeBare | modeNoSuffix)
				}
				a.items = append(a.items, it)
			case s.positional != "" && (id == "dense" || id == "array" || id == "dense_resource"):
				p.pos = at
				a.attrs = append(a.attrs, p.parseAttr())
				a.atPos = append(a.atPos, at)
			case len(s.words) > 0:
				a.words = append(a.words, wordItem{at, id})
			default:
				// Not an item: the end of an op without a type (e.g. a
				// bare `func.return`) followed by the next op.
				p.pos = at
				if !first {
					p.fail(at, "%s: unexpected %q", op.Name, id)
				}
				return a
			}
		default:
			if !first {
				p.fail(at, "expected an operand or attribute after ',', found %s", p.describe())
			}
			return a
		}
		if !p.accept(",") {
			return a
		}
	}
}

// keyConv converts one `key = value` into attributes of op.
type keyConv func(p *parser, op *Op, it prettyItem)

// prettySpec describes an op with the common pretty shape.
type prettySpec struct {
	keys       map[string]keyConv
	words      []wordSpec // attributes given as bare words, in order
	positional string     // attribute name for a positional attribute
	finish     func(p *parser, op *Op, a *prettyArgs)
	// emptyParens: the op is written `name()` when it has no operands.
	emptyParens bool
}

type wordSpec struct{ attr, kind string }

// prettySpecs maps op names to their spec (filled at init).
var prettySpecs = map[string]*prettySpec{}

// defaultPrettyFor returns the parser for an op without its own entry: a
// spec'd stablehlo/check/interpreter op, or any chlo op (all of which use
// the common shape); nil for unknown ops.
func defaultPrettyFor(name string) prettyFunc {
	if s, ok := prettySpecs[name]; ok {
		return specParser(s)
	}
	if strings.HasPrefix(name, "chlo.") {
		return specParser(&prettySpec{})
	}
	return nil
}

// specParser parses `items [{attrs}] [: types]` and applies the spec.
func specParser(s *prettySpec) prettyFunc {
	return func(p *parser, op *Op, nres int) []Type {
		a := &prettyArgs{}
		if s.emptyParens && p.accept("(") {
			p.expect(")") // `stablehlo.optimization_barrier()`: no operands
		} else {
			a = p.parseItems(op, s)
		}
		if p.peek() == '{' {
			p.addAttrs(op, p.parseDict())
		}
		p.applySpec(op, s, a)
		if !p.at(":") && nres == 0 && (len(op.Operands) == 0 || len(a.attrs) > 0) {
			return nil
		}
		return p.parseSig(op, nres)
	}
}

func (p *parser) applySpec(op *Op, s *prettySpec, a *prettyArgs) {
	for _, it := range a.items {
		conv, ok := s.keys[it.key]
		if !ok || (it.value2 != nil && s.finish == nil) {
			p.fail(it.at, "%s: unexpected %q", op.Name, it.key)
		}
		if conv != nil {
			conv(p, op, it)
		}
	}
	if len(a.words) > len(s.words) {
		w := a.words[len(s.words)]
		p.fail(w.at, "%s: unexpected %q", op.Name, w.word)
	}
	for i, w := range a.words {
		p.setAttr(op, s.words[i].attr, &EnumAttr{Dialect: "stablehlo", Kind: s.words[i].kind, Value: w.word})
	}
	if len(a.attrs) > 0 {
		if s.positional == "" || len(a.attrs) > 1 {
			p.fail(a.atPos[0], "%s: unexpected attribute", op.Name)
		}
		p.setAttr(op, s.positional, a.attrs[0])
	}
	if s.finish != nil {
		s.finish(p, op, a)
	}
}

// Key conversions.
