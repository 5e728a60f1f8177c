package stablehlo

import (
	"bytes"
	"fmt"

	"github.com/torchtpu/torchtpu/limits"
)

// The MLIR text parser.
//
// Pretty (custom assembly) forms parse into exactly the IR of their generic
// form: same op name, the attribute names of StableHLO's ODS and the same
// attribute kinds (TestPrettyEqualsGeneric holds the pairs). Conventions a
// consumer can rely on:
//
//   - `return` is "func.return", `call @f` is "func.call" with callee =
//     SymbolRefAttr; custom_call's target is call_target_name = StringAttr.
//   - Integer and float attributes typed i64 / f64 (MLIR's defaults) have a
//     nil Type; other widths keep theirs (`1 : i32`).
//   - A result group `%r:2` names its values "r#0", "r#1"; `%r` alone means
//     `%r#0`. Results may go unnamed (`"x.op"() : () -> tensor<f32>`).
//   - dense<...>: a single written element for a type of several elements
//     is a Splat (a rank-0 literal of one element); otherwise the literal
//     has the type's shape. Hex data follows MLIR's layout: little-endian,
//     one element = splat, i1 bit-packed (one byte per element accepted
//     too), sub-byte types one byte each. Decimal floats round through
//     float64, as MLIR does.
//   - Locations (`loc(...)`, `#loc` aliases) are dropped; attribute and
//     type aliases are resolved. Attributes of other dialects are kept as
//     StructAttr (`#d.name<k = v>`) or verbatim as OpaqueAttr; unknown
//     types as OpaqueType.
//   - Unregistered ops are accepted in generic form only; the custom form
//     of an unknown op is an error. Generic ops at module level (such as
//     "sdy.mesh") are checked and dropped.

// Parse parses MLIR text: one Module per `// -----`-separated chunk (as
// MLIR's -split-input-file sees them). Top-level func.func ops outside any
// `module` are gathered into an implicit module. Each chunk may also hold
// several modules; all are returned in order.
//
// The text is parsed under the default limits of package limits: its size
// (TORCHTPU_MAX_PROGRAM_BYTES) and its nesting (TORCHTPU_MAX_NESTING); see
// ParseWithLimits.
func Parse(filename string, src []byte) (mods []*Module, err error) {
	return ParseWithLimits(filename, src, limits.Limits{})
}

// ParseWithLimits is Parse under the given limits (zero fields take the
// defaults). A text over ProgramBytes is refused before it is scanned.
func ParseWithLimits(filename string, src []byte, lim limits.Limits) (mods []*Module, err error) {
	if err := lim.Program("MLIR text", int64(len(src))); err != nil {
		return nil, &SyntaxError{Loc: Loc{File: filename}, Msg: err.Error(), Err: err}
	}
	s := newScanner(filename, src, lim)
	for _, ch := range splitChunks(src) {
		ms, err := parseChunk(s, ch[0], ch[1])
		if err != nil {
			return nil, err
		}
		mods = append(mods, ms...)
	}
	return mods, nil
}

// ParseModule parses text that must hold exactly one module.
func ParseModule(filename string, src []byte) (*Module, error) {
	mods, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	if len(mods) != 1 {
		return nil, &SyntaxError{Loc: Loc{File: filename}, Msg: fmt.Sprintf("expected exactly one module, found %d", len(mods))}
	}
	return mods[0], nil
}

// ParseType parses one type, e.g. "tensor<2x?xf32>".
func ParseType(text string) (t Type, err error) {
	p := newParser(newScanner("", []byte(text), limits.Limits{}))
	defer p.recover(&err)
	t = p.parseType()
	if p.peek() != 0 {
		p.fail(p.pos, "unexpected %s after type", p.describe())
	}
	return t, nil
}

// ParseAttr parses one attribute, e.g. "dense<[1, 2]> : tensor<2xi32>".
func ParseAttr(text string) (a Attr, err error) {
	p := newParser(newScanner("", []byte(text), limits.Limits{}))
	defer p.recover(&err)
	a = p.parseAttr()
	if p.peek() != 0 {
		p.fail(p.pos, "unexpected %s after attribute", p.describe())
	}
	return a, nil
}

// splitChunks returns the [start, end) byte ranges separated by lines that
// start with `// -----`.
func splitChunks(src []byte) [][2]int {
	var out [][2]int
	start := 0
	for off := 0; off < len(src); {
		nl := bytes.IndexByte(src[off:], '\n')
		lineEnd := len(src)
		if nl >= 0 {
			lineEnd = off + nl
		}
		line := bytes.TrimLeft(src[off:lineEnd], " \t")
		if bytes.HasPrefix(line, []byte("// -----")) {
			out = append(out, [2]int{start, off})
			start = lineEnd
		}
		if nl < 0 {
			break
		}
		off = lineEnd + 1
	}
	return append(out, [2]int{start, len(src)})
}

// parser holds the state of one chunk.
type parser struct {
	*scanner
	typeAliases map[string]Type
	attrAliases map[string]Attr
	scopes      []map[string]*Value
	resources   []pendingResource
	blobs       map[string]string
}

func newParser(s *scanner) *parser {
	return &parser{scanner: s, typeAliases: map[string]Type{}, attrAliases: map[string]Attr{}}
}

// recover turns a *SyntaxError panic into an error; other panics go on.
func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		se, ok := r.(*SyntaxError)
		if !ok {
			panic(r)
		}
		*err = se
	}
}

func parseChunk(s *scanner, start, end int) (mods []*Module, err error) {
	s.pos, s.end, s.depth = start, end, 0
	p := newParser(s)
	defer p.recover(&err)
	var implicit *Module
	for {
		c := p.peek()
		switch {
		case c == 0:
			p.resolveResources()
			if implicit != nil {
				mods = append(mods, implicit)
			}
			return mods, nil
		case c == '#' || c == '!':
			p.parseAliasDef()
		case p.at("{-#"):
			p.parseResourceSection()
		case p.atKeyword("module") || p.atKeyword("builtin.module"):
			mods = append(mods, p.parseModule())
		case p.atKeyword("func.func") || p.atKeyword("func"):
			if implicit == nil {
				implicit = &Module{Loc: p.loc(p.pos)}
			}
			implicit.Funcs = append(implicit.Funcs, p.parseFunc())
		default:
			p.fail(p.pos, "expected 'module' or 'func.func' at top level, found %s", p.describe())
		}
	}
}

// parseAliasDef parses `#name = attr` or `!name = type`.
func (p *parser) parseAliasDef() {
	p.ws()
	sigil := p.src[p.pos]
	p.pos++
	name := p.suffixID()
	p.expect("=")
	switch {
	case sigil == '!':
		p.typeAliases[name] = p.parseType()
	case p.atKeyword("loc"):
		p.skipLoc() // locations are dropped
	default:
		p.attrAliases[name] = p.parseAttr()
	}
}

// parseModule parses `module [@name] [attributes {...}] { funcs }`.
func (p *parser) parseModule() *Module {
	p.enter()
	defer p.leave()
	m := &Module{Loc: p.loc(p.pos)}
	if !p.acceptKeyword("module") {
		p.expectKeyword("builtin.module")
	}
	if name, ok := p.symbolName(); ok {
		m.Name = name
	}
	if p.acceptKeyword("attributes") {
		m.Attrs = p.parseDict()
	}
	p.expect("{")
	for !p.accept("}") {
		switch {
		case p.peek() == 0:
			p.fail(p.pos, "unterminated module: expected '}'")
		case p.atKeyword("func.func") || p.atKeyword("func"):
			m.Funcs = append(m.Funcs, p.parseFunc())
		case p.peek() == '"':
			// A generic op at module level (e.g. "sdy.mesh"): parsed to
			// check it, then dropped; modules hold functions only.
			p.pushScope()
			p.parseOp()
			p.popScope()
		case p.acceptKeyword("sdy.mesh"):
			// Shardy mesh declarations carry no semantics for execution.
			if _, ok := p.symbolName(); !ok {
				p.fail(p.pos, "expected @name after sdy.mesh")
			}
			p.expect("=")
			if p.peek() != '<' {
				p.fail(p.pos, "expected '<' in sdy.mesh")
			}
			p.balanced()
		default:
			p.fail(p.pos, "expected 'func.func' in module, found %s", p.describe())
		}
	}
	p.skipLoc()
	return m
}

// skipLoc skips an optional trailing `loc(...)`.
func (p *parser) skipLoc() {
	if p.atKeyword("loc") {
		p.pos += 3
		if p.peek() != '(' {
			p.fail(p.pos, "expected '(' after loc")
		}
		p.balanced()
	}
}

// Value scopes. Regions of StableHLO ops see the values of enclosing
// regions; a function body starts a fresh stack.

func (p *parser) pushScope() { p.scopes = append(p.scopes, map[string]*Value{}) }
func (p *parser) popScope()  { p.scopes = p.scopes[:len(p.scopes)-1] }

// define binds a value name in the innermost scope.
func (p *parser) define(at int, name string, v *Value) {
	sc := p.scopes[len(p.scopes)-1]
	if _, dup := sc[name]; dup {
		p.fail(at, "redefinition of value %%%s", name)
	}
	sc[name] = v
}

// lookup resolves a use `%name` or `%name#i`.
func (p *parser) lookup(at int, name string) *Value {
	if v := p.find(name); v != nil {
		return v
	}
	// %x#0 may name the only result of %x, and %x the first of a group.
	alt := name + "#0"
	if n := len(name); n > 2 && name[n-2:] == "#0" {
		alt = name[:n-2]
	}
	if v := p.find(alt); v != nil {
		return v
	}
	p.fail(at, "use of undefined value %%%s", name)
	return nil
}

func (p *parser) find(name string) *Value {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if v, ok := p.scopes[i][name]; ok {
			return v
		}
	}
	return nil
}

// parseUse reads `%name` or `%name#i` and resolves it.
func (p *parser) parseUse() *Value {
	at := p.here()
	name, ok := p.valueName()
	if !ok {
		p.fail(p.pos, "expected a value (%%name), found %s", p.describe())
	}
	if p.pos < p.end && p.src[p.pos] == '#' {
		st := p.pos
		p.pos++
		for p.pos < p.end && isDigit(p.src[p.pos]) {
			p.pos++
		}
		if p.pos == st+1 {
			p.fail(st, "expected a result number after '#'")
		}
		name += string(p.src[st:p.pos])
	}
	return p.lookup(at, name)
}

// parseUseList reads `%a, %b, ...` (possibly empty when allowEmpty).
func (p *parser) parseUseList() []*Value {
	var vs []*Value
	if p.peek() != '%' {
		return vs
	}
	for {
		vs = append(vs, p.parseUse())
		if !p.accept(",") {
			return vs
		}
		if p.peek() != '%' {
			p.fail(p.pos, "expected a value after ',', found %s", p.describe())
		}
	}
}
