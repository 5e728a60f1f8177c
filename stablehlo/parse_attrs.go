package stablehlo

import (
	"math"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// bareWord is a bare identifier met in a pretty-form item (`EQ`,
// `precision = [HIGH]`, `format = e8m23`). The op parsers convert it; it
// never reaches the IR.
type bareWord string

func (bareWord) isAttr() {}

// Attribute parsing modes.
const (
	modeGeneric  = 0
	modeBare     = 1 << iota // bare identifiers are allowed (as bareWord)
	modeNoSuffix             // a number takes no `: type` (pretty items)
)

// parseAttr parses one attribute in generic syntax.
func (p *parser) parseAttr() Attr { return p.parseAttrMode(modeGeneric) }

func (p *parser) parseAttrMode(mode int) Attr {
	p.enter()
	defer p.leave()
	at := p.here()
	c := p.peek()
	switch {
	case c == 0:
		p.fail(at, "expected an attribute, found end of input")
	case c == '[':
		p.pos++
		arr := ArrayAttr{}
		if p.accept("]") {
			return arr
		}
		for {
			arr = append(arr, p.parseAttrMode(mode))
			if p.accept("]") {
				return arr
			}
			p.expect(",")
		}
	case c == '{':
		return p.parseDict()
	case c == '"':
		s := p.stringLit()
		if mode&modeNoSuffix == 0 && p.accept(":") {
			p.parseType() // a typed string; the type is dropped
		}
		return StringAttr(s)
	case c == '@':
		name, _ := p.symbolName()
		for p.accept("::") {
			sub, ok := p.symbolName()
			if !ok {
				p.fail(p.pos, "expected a symbol after '::'")
			}
			name += "::@" + sub
		}
		return SymbolRefAttr(name)
	case c == '#':
		return p.parseHashAttr()
	case c == '!' || c == '(':
		return &TypeAttr{Type: p.parseType()}
	case c == '-' || c == '+' || isDigit(c):
		return p.parseNumberAttr(mode)
	}
	id := p.ident()
	switch id {
	case "":
		p.fail(at, "expected an attribute, found %s", p.describe())
	case "true":
		return BoolAttr(true)
	case "false":
		return BoolAttr(false)
	case "unit":
		return UnitAttr{}
	case "dense":
		return p.parseDense(at)
	case "dense_resource":
		return p.parseDenseResource(at)
	case "array":
		return p.parseDenseArray(at)
	case "loc":
		if p.peek() != '(' {
			p.fail(p.pos, "expected '(' after loc")
		}
		return &OpaqueAttr{Text: "loc" + p.balanced()}
	case "affine_map", "affine_set", "sparse", "strided", "distinct", "opaque", "dense_array":
		body := p.balanced()
		return &OpaqueAttr{Text: id + body}
	case "tensor", "tuple", "complex", "none", "vector", "memref", "tf32":
		p.pos = at
		return &TypeAttr{Type: p.parseType()}
	}
	if _, err := dtype.ParseMLIR(scalarSpelling(id)); err == nil {
		p.pos = at
		return &TypeAttr{Type: p.parseType()}
	}
	if mode&modeBare != 0 {
		return bareWord(id)
	}
	p.fail(at, "unknown attribute %q", id)
	return nil
}

// parseDict parses `{name = attr, name, ...}` (a name alone is a unit).
func (p *parser) parseDict() DictAttr {
	p.enter()
	defer p.leave()
	p.expect("{")
	d := DictAttr{}
	if p.accept("}") {
		return d
	}
	var seen map[string]bool // used once the dictionary is large
	for {
		at := p.here()
		var name string
		if p.peek() == '"' {
			name = p.stringLit()
		} else {
			name = p.expectIdent("an attribute name")
		}
		var v Attr = UnitAttr{}
		if p.accept("=") {
			v = p.parseAttr()
		}
		if seen == nil && len(d) >= 16 {
			seen = make(map[string]bool, 2*len(d))
			for _, e := range d {
				seen[e.Name] = true
			}
		}
		dup := seen[name]
		if seen == nil {
			for _, e := range d {
				dup = dup || e.Name == name
			}
		} else {
			seen[name] = true
		}
		if dup {
			p.fail(at, "duplicate attribute %q", name)
		}
		d = append(d, NamedAttr{Name: name, Value: v})
		if p.accept("}") {
			SortAttrs(d)
			return d
		}
		p.expect(",")
	}
}

// parseNumberAttr parses an integer or float, with an optional `: type`.
// `: i64` and `: f64` (MLIR's defaults) leave Type nil.
func (p *parser) parseNumberAttr(mode int) Attr {
	at := p.here()
	txt := p.numberText()
	if txt == "" {
		p.fail(at, "expected a number, found %s", p.describe())
	}
	var ty Type
	if mode&modeNoSuffix == 0 && p.accept(":") {
		ty = p.parseType()
	}
	isFloatText := !isHexText(txt) && strings.ContainsAny(txt, ".eE")
	if et, ok := ty.(ElemType); ok && (et.DType.IsFloat() || isFloatText) {
		if !et.DType.IsFloat() {
			p.fail(at, "float literal %s for non-float type %s", txt, et)
		}
		bits, err := parseFloatBits(txt, et.DType)
		if err != nil {
			p.fail(at, "%v", err)
		}
		v := bitsToFloat64(et.DType, bits)
		if et.DType == dtype.F64 {
			ty = nil
		}
		return &FloatAttr{Value: v, Type: ty}
	}
	if isFloatText {
		if ty != nil {
			p.fail(at, "float literal %s with type %s", txt, ty)
		}
		v, err := strconv.ParseFloat(txt, 64)
		if err != nil && !math.IsInf(v, 0) {
			p.fail(at, "bad float %q", txt)
		}
		return &FloatAttr{Value: v}
	}
	v, err := parseIntText(txt)
	if err != nil {
		p.fail(at, "%v", err)
	}
	if et, ok := ty.(ElemType); ok {
		if et.DType == dtype.I64 && et.Quant == nil {
			ty = nil
		} else if et.DType.IsInteger() || et.DType.IsBool() {
			v = truncInt(v, et.DType)
		}
	}
	return &IntAttr{Value: v, Type: ty}
}

func isHexText(txt string) bool {
	t := strings.TrimLeft(txt, "+-")
	return len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')
}

// parseIntText parses a decimal or hex integer that fits in 64 bits
// (signed or unsigned); the result is the two's complement bits.
func parseIntText(txt string) (int64, error) {
	if v, err := strconv.ParseInt(txt, 0, 64); err == nil {
		return v, nil
	}
	if u, err := strconv.ParseUint(strings.TrimPrefix(txt, "+"), 0, 64); err == nil {
		return int64(u), nil
	}
	return 0, &SyntaxError{Msg: "integer " + txt + " out of 64-bit range"}
}

// truncInt wraps v to the width of an integer dtype, sign-extending signed
// types (as MLIR stores an APInt of that width).
func truncInt(v int64, d dtype.DType) int64 {
	b := uint(d.Bits())
	if b == 0 || b >= 64 {
		return v
	}
	if d.IsUnsigned() || d.IsBool() {
		return int64(uint64(v) & (1<<b - 1))
	}
	return v << (64 - b) >> (64 - b)
}
