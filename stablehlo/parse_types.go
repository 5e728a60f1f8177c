package stablehlo

import (
	"strconv"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// parseType parses any type.
func (p *parser) parseType() Type {
	p.enter()
	defer p.leave()
	at := p.here()
	switch p.peek() {
	case '(':
		return p.parseFuncType()
	case '!':
		return p.parseBangType()
	}
	id := p.ident()
	switch id {
	case "":
		p.fail(at, "expected a type, found %s", p.describe())
	case "tensor":
		return p.parseTensorBody(at)
	case "tuple":
		p.expect("<")
		t := &TupleType{Elems: []Type{}}
		if p.accept(">") {
			return t
		}
		for {
			t.Elems = append(t.Elems, p.parseType())
			if p.accept(">") {
				return t
			}
			p.expect(",")
		}
	case "complex":
		return p.finishComplex(at)
	case "memref", "vector":
		// Builtin types StableHLO does not use, kept verbatim.
		if p.peek() != '<' {
			p.fail(p.pos, "expected '<' after %s", id)
		}
		return &OpaqueType{Text: id + p.balanced()}
	case "none", "tf32":
		return &OpaqueType{Text: id}
	}
	d, err := dtype.ParseMLIR(scalarSpelling(id))
	if err != nil {
		p.fail(at, "unknown type %q", id)
	}
	return Elem(d)
}

// scalarSpelling maps spellings dtype does not know to ones it does:
// signed integers siN are StableHLO's signless iN.
func scalarSpelling(id string) string {
	if len(id) > 2 && id[0] == 's' && id[1] == 'i' {
		return id[1:]
	}
	return id
}

func (p *parser) finishComplex(at int) Type {
	p.expect("<")
	part := p.expectIdent("complex element type")
	p.expect(">")
	switch part {
	case "f32":
		return Elem(dtype.C64)
	case "f64":
		return Elem(dtype.C128)
	}
	p.fail(at, "unsupported type complex<%s>", part)
	return nil
}

// parseElemType parses the element type of a tensor.
func (p *parser) parseElemType() ElemType {
	at := p.here()
	t := p.parseType()
	e, ok := t.(ElemType)
	if !ok {
		p.fail(at, "expected an element type, found %s", t)
	}
	return e
}

// parseBangType parses !stablehlo.token, !quant.uniform<...>, a type
// alias, or keeps any other dialect type verbatim.
func (p *parser) parseBangType() Type {
	at := p.here()
	p.pos++ // '!'
	name := p.suffixID()
	switch name {
	case "stablehlo.token":
		return TokenType{}
	case "quant.uniform":
		q := p.parseQuant()
		return ElemType{DType: q.Storage, Quant: q}
	}
	if t, ok := p.typeAliases[name]; ok {
		return t
	}
	if p.pos < p.end && p.src[p.pos] == '<' {
		body := p.balanced()
		return &OpaqueType{Text: "!" + name + body}
	}
	if !containsDot(name) {
		p.fail(at, "undefined type alias !%s", name)
	}
	return &OpaqueType{Text: "!" + name}
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

// parseTensorBody parses `<dims x elem [, encoding]>` after "tensor".
func (p *parser) parseTensorBody(at int) *TensorType {
	p.expect("<")
	t := &TensorType{Shape: []int64{}}
	for {
		p.ws()
		if p.pos >= p.end {
			p.fail(at, "unterminated tensor type")
		}
		c := p.src[p.pos]
		if c == '*' {
			p.fail(p.pos, "unranked tensors are not supported")
		}
		if c != '?' && !isDigit(c) {
			break
		}
		st := p.pos
		if c == '?' {
			p.pos++
			t.Shape = append(t.Shape, Dynamic)
		} else {
			for p.pos < p.end && isDigit(p.src[p.pos]) {
				p.pos++
			}
			n, err := strconv.ParseInt(string(p.src[st:p.pos]), 10, 64)
			if err != nil {
				p.fail(st, "dimension %s out of range", p.src[st:p.pos])
			}
			t.Shape = append(t.Shape, n)
		}
		if p.pos >= p.end || p.src[p.pos] != 'x' {
			p.fail(p.pos, "expected 'x' after dimension in tensor type")
		}
		p.pos++
	}
	var static []int64
	for _, d := range t.Shape {
		if d != Dynamic {
			static = append(static, d)
		}
	}
	if _, err := literal.NumElements(static); err != nil {
		p.fail(at, "bad tensor type: %v", err)
	}
	t.Elem = p.parseElemType()
	if p.accept(",") {
		p.parseEncoding(t)
	}
	p.expect(">")
	return t
}

// parseEncoding parses a tensor encoding: #stablehlo.bounds<16, ?> or
// #stablehlo.type_extensions<bounds = [16, ?]> set Bounds; any other
// encoding is parsed and dropped.
func (p *parser) parseEncoding(t *TensorType) {
	at := p.here()
	var b []int64
	switch {
	case p.accept("#stablehlo.bounds<"):
		b = p.parseBoundList(">")
	case p.accept("#stablehlo.type_extensions<") || p.accept("#mhlo.type_extensions<"):
		p.expectKeyword("bounds")
		p.expect("=")
		p.expect("[")
		b = p.parseBoundList("]")
		p.expect(">")
	default:
		p.parseAttr()
		return
	}
	if len(b) != len(t.Shape) {
		p.fail(at, "bounds have %d entries for a rank-%d tensor", len(b), len(t.Shape))
	}
	t.Bounds = b
}

// parseBoundList parses `16, ?, ...` up to and including close.
func (p *parser) parseBoundList(close string) []int64 {
	b := []int64{}
	if p.accept(close) {
		return b
	}
	for {
		if p.accept("?") {
			b = append(b, Dynamic)
		} else {
			v := p.parseInt64()
			if v < 0 {
				p.fail(p.pos, "negative bound %d", v)
			}
			b = append(b, v)
		}
		if p.accept(close) {
			return b
		}
		p.expect(",")
	}
}

// parseFuncType parses `(T, ...) -> T` or `(T, ...) -> (T, ...)`.
func (p *parser) parseFuncType() *FuncType {
	ft := &FuncType{Inputs: p.parseParenTypes(), Results: []Type{}}
	p.expect("->")
	ft.Results = p.parseResultTypes()
	return ft
}

// parseParenTypes parses `(T, ...)`.
func (p *parser) parseParenTypes() []Type {
	p.expect("(")
	ts := []Type{}
	if p.accept(")") {
		return ts
	}
	for {
		ts = append(ts, p.parseType())
		if p.accept(")") {
			return ts
		}
		p.expect(",")
	}
}

// parseResultTypes parses the part after '->': one type or a
// parenthesized list. A parenthesized function type is not allowed there.
func (p *parser) parseResultTypes() []Type {
	if p.peek() == '(' {
		return p.parseParenTypes()
	}
	return []Type{p.parseType()}
}
