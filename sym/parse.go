package sym

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Limits on untrusted expression text.
const (
	maxLen   = 1 << 16
	maxDepth = 256
)

// Parse reads an expression in sympy srepr form
// ("Add(Symbol('s0', integer=True), Integer(1))") or in sympy/Python str
// form ("s0 + 1", "2*s0**2", "s0//2", "Max(1, s0)").
func Parse(s string) (*Expr, error) {
	if len(s) > maxLen {
		return nil, fmt.Errorf("sym: expression of %d bytes is too long", len(s))
	}
	p := &parser{src: s}
	p.next()
	e, err := p.expr(0, 0)
	if err != nil {
		return nil, fmt.Errorf("sym: parsing %q: %w", clip(s), err)
	}
	if p.tok != tEOF {
		return nil, fmt.Errorf("sym: parsing %q: unexpected %q at offset %d", clip(s), p.text, p.start)
	}
	return e, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

type token uint8

const (
	tEOF token = iota
	tIdent
	tNum
	tStr
	tOp // punctuation and operators; text holds it
)

type parser struct {
	src        string
	pos, start int
	tok        token
	text       string
	err        error
}

func (p *parser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
	p.start = p.pos
	if p.pos >= len(p.src) {
		p.tok, p.text = tEOF, ""
		return
	}
	c := p.src[p.pos]
	switch {
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		for p.pos < len(p.src) && isIdent(p.src[p.pos]) {
			p.pos++
		}
		p.tok = tIdent
	case c >= '0' && c <= '9' || c == '.':
		for p.pos < len(p.src) && (isIdent(p.src[p.pos]) || p.src[p.pos] == '.' ||
			(p.src[p.pos] == '+' || p.src[p.pos] == '-') && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E')) {
			p.pos++
		}
		p.tok = tNum
	case c == '\'' || c == '"':
		end := strings.IndexByte(p.src[p.pos+1:], c)
		if end < 0 {
			p.err = fmt.Errorf("unterminated string at offset %d", p.pos)
			p.tok, p.text = tEOF, ""
			return
		}
		p.tok, p.text = tStr, p.src[p.pos+1:p.pos+1+end]
		p.pos += end + 2
		return
	default:
		p.tok = tOp
		for _, op := range []string{"**", "//", "==", "!=", "<=", ">="} {
			if strings.HasPrefix(p.src[p.pos:], op) {
				p.pos += 2
				p.text = op
				return
			}
		}
		p.pos++
	}
	p.text = p.src[p.start:p.pos]
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// binary operators: precedence and the node they build.
var binops = map[string]struct {
	prec  int
	right bool
}{
	"|": {precOr, false}, "&": {precAnd, false},
	"==": {precCmp, false}, "!=": {precCmp, false}, "<": {precCmp, false}, "<=": {precCmp, false},
	">": {precCmp, false}, ">=": {precCmp, false},
	"+": {precAdd, false}, "-": {precAdd, false},
	"*": {precMul, false}, "/": {precMul, false}, "//": {precMul, false}, "%": {precMul, false},
	"**": {precPow, true},
}

func (p *parser) expr(minPrec, depth int) (*Expr, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	lhs, err := p.unary(depth + 1)
	if err != nil {
		return nil, err
	}
	for p.tok == tOp {
		bo, ok := binops[p.text]
		if !ok || bo.prec < minPrec {
			break
		}
		op := p.text
		p.next()
		next := bo.prec + 1
		if bo.right {
			next = bo.prec
		}
		rhs, err := p.expr(next, depth+1)
		if err != nil {
			return nil, err
		}
		lhs = binary(op, lhs, rhs)
	}
	return lhs, p.err
}

func binary(op string, a, b *Expr) *Expr {
	switch op {
	case "+":
		return New(OpAdd, a, b)
	case "-":
		return New(OpAdd, a, negate(b))
	case "*":
		return New(OpMul, a, b)
	case "/":
		return New(OpTrueDiv, a, b)
	case "//":
		return New(OpFloorDiv, a, b)
	case "%":
		return New(OpPythonMod, a, b)
	case "**":
		return New(OpPow, a, b)
	case "==":
		return New(OpEq, a, b)
	case "!=":
		return New(OpNe, a, b)
	case "<":
		return New(OpLt, a, b)
	case "<=":
		return New(OpLe, a, b)
	case ">":
		return New(OpGt, a, b)
	case ">=":
		return New(OpGe, a, b)
	case "&":
		return New(OpAnd, a, b)
	}
	return New(OpOr, a, b)
}

func negate(e *Expr) *Expr {
	if v, ok := e.IsConst(); ok && v != math.MinInt64 {
		return Int(-v)
	}
	return New(OpMul, Int(-1), e)
}

func (p *parser) unary(depth int) (*Expr, error) {
	if p.tok == tOp && (p.text == "-" || p.text == "+") {
		neg := p.text == "-"
		p.next()
		x, err := p.expr(precUnary, depth+1)
		if err != nil {
			return nil, err
		}
		if neg {
			return negate(x), nil
		}
		return x, nil
	}
	return p.primary(depth)
}

func (p *parser) primary(depth int) (*Expr, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	switch p.tok {
	case tNum:
		text := p.text
		p.next()
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return Int(n), nil
		}
		return parseFloat(text)
	case tOp:
		if p.text == "(" {
			p.next()
			e, err := p.expr(0, depth+1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return e, nil
		}
	case tIdent:
		name := p.text
		p.next()
		if p.tok == tOp && p.text == "(" {
			return p.call(name, depth)
		}
		switch name {
		case "true", "True":
			return Int(1), nil
		case "false", "False":
			return Int(0), nil
		case "oo", "zoo", "nan", "int_oo":
			return nil, fmt.Errorf("unsupported constant %s", name)
		}
		return Symbol(name), nil
	}
	if p.err != nil {
		return nil, p.err
	}
	return nil, fmt.Errorf("unexpected %q at offset %d", p.text, p.start)
}

func (p *parser) expect(s string) error {
	if p.tok != tOp || p.text != s {
		if p.err != nil {
			return p.err
		}
		return fmt.Errorf("expected %q at offset %d, found %q", s, p.start, p.text)
	}
	p.next()
	return nil
}

// call parses NAME(args...) after NAME; the current token is "(".
func (p *parser) call(name string, depth int) (*Expr, error) {
	p.next()
	var args []*Expr
	var strs, kw []string
	for !(p.tok == tOp && p.text == ")") {
		if len(args)+len(strs)+len(kw) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		switch {
		case p.tok == tStr:
			strs = append(strs, p.text)
			p.next()
		case p.tok == tIdent && p.peekIs('='):
			key := p.text
			p.next()
			p.next() // '='
			if p.tok != tIdent && p.tok != tNum && p.tok != tStr {
				return nil, fmt.Errorf("bad keyword value for %s at offset %d", key, p.start)
			}
			kw = append(kw, key+"="+p.text)
			p.next()
		default:
			a, err := p.expr(0, depth+1)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
		}
		if p.tok == tEOF {
			if p.err != nil {
				return nil, p.err
			}
			return nil, fmt.Errorf("unterminated call to %s", name)
		}
	}
	p.next() // ')'
	return build(name, args, strs, kw)
}

// peekIs reports whether the next non-space byte after the current token is c
// (and, for '=', not "==").
func (p *parser) peekIs(c byte) bool {
	i := p.pos
	for i < len(p.src) && p.src[i] == ' ' {
		i++
	}
	return i < len(p.src) && p.src[i] == c && !(i+1 < len(p.src) && p.src[i+1] == '=')
}

// parseFloat reads a float constant at float64 precision (sympy writes
// Float('1.5', precision=53)); big.Rat.SetString would expand "1e999999999"
// exactly.
func parseFloat(text string) (*Expr, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("bad number %q", text)
	}
	return &Expr{Op: OpFloat, Rat: new(big.Rat).SetFloat64(f)}, nil
}
