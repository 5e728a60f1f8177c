package stablehlo

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Print writes m as canonical MLIR text: module and func.func in their
// pretty form, every op in MLIR's generic form (valid for every op and
// accepted by XLA's parser), values renamed %0, %1, ... and %arg0, %arg1,
// ... in order of definition, attributes sorted, dense constants of more
// than 16 elements in raw hex, floats spelled exactly (NaN and infinities in
// hex). Locations are not printed. Printing, parsing and printing again
// gives the same text.
func Print(w io.Writer, m *Module) error {
	bw := bufio.NewWriter(w)
	p := &printer{w: bw}
	p.module(m)
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}

// String returns the canonical text of m, or a comment naming the error.
func (m *Module) String() string {
	var b strings.Builder
	if err := Print(&b, m); err != nil {
		return "// error: " + err.Error() + "\n"
	}
	return b.String()
}

// PrintOp writes one op in generic form, naming values it does not know
// by position (for error messages and debugging).
func PrintOp(op *Op) string {
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	p := &printer{w: bw, names: map[*Value]string{}, loose: true}
	p.op(op, 0)
	bw.Flush()
	return strings.TrimSpace(b.String())
}

type printer struct {
	w       *bufio.Writer
	names   map[*Value]string
	nextVal int
	nextArg int
	loose   bool // name unknown values instead of failing
	err     error
	where   string // function being printed, for errors
}

func (p *printer) str(s string) { p.w.WriteString(s) }

func (p *printer) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("stablehlo: print %s: %s", p.where, fmt.Sprintf(format, args...))
	}
}

func (p *printer) indent(n int) {
	for i := 0; i < n; i++ {
		p.str("  ")
	}
}

func (p *printer) module(m *Module) {
	if m == nil {
		p.fail("nil module")
		return
	}
	p.where = "module"
	p.str("module")
	if m.Name != "" {
		p.str(" @" + symbolName(m.Name))
	}
	if len(m.Attrs) > 0 {
		p.str(" attributes ")
		p.dict(m.Attrs)
	}
	p.str(" {\n")
	for _, f := range m.Funcs {
		p.fn(f)
	}
	p.str("}\n")
}

// symbolName spells a symbol: bare when it is an MLIR bare identifier,
// else quoted.
func symbolName(s string) string {
	if isBareID(s) {
		return s
	}
	return quote(s)
}

func isBareID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && c != '$' && c != '.' {
			return false
		}
	}
	return true
}

func (p *printer) fn(f *Func) {
	if f == nil {
		p.fail("nil function")
		return
	}
	p.where = "func @" + f.Name
	p.names = map[*Value]string{}
	p.nextVal, p.nextArg = 0, 0
	if f.Type == nil {
		p.fail("function has no type")
		return
	}
	p.str("  func.func ")
	if f.Visibility != "" {
		p.str(f.Visibility + " ")
	}
	p.str("@" + symbolName(f.Name) + "(")
	var args []*Value
	if f.Body != nil {
		if b := f.Body.Entry(); b != nil {
			args = b.Args
		}
		if len(args) != len(f.Type.Inputs) {
			p.fail("body has %d arguments, signature %d", len(args), len(f.Type.Inputs))
			return
		}
	}
	for i, t := range f.Type.Inputs {
		if i > 0 {
			p.str(", ")
		}
		if args != nil {
			p.str(p.define(args[i], true) + ": ")
		}
		p.typ(t)
		if i < len(f.ArgAttrs) && len(f.ArgAttrs[i]) > 0 {
			p.str(" ")
			p.dict(f.ArgAttrs[i])
		}
	}
	p.str(")")
	p.funcResults(f)
	if len(f.Attrs) > 0 {
		p.str(" attributes ")
		p.dict(f.Attrs)
	}
	if f.Body == nil {
		p.str("\n")
		return
	}
	p.str(" {\n")
	for bi, b := range f.Body.Blocks {
		if b == nil {
			p.fail("nil block")
			return
		}
		if bi > 0 {
			p.blockHeader(b, bi, 1)
		}
		for _, op := range b.Ops {
			p.op(op, 2)
		}
	}
	p.str("  }\n")
}

func (p *printer) funcResults(f *Func) {
	rs := f.Type.Results
	if len(rs) == 0 {
		return
	}
	hasAttrs := false
	for _, d := range f.ResultAttrs {
		hasAttrs = hasAttrs || len(d) > 0
	}
	if len(rs) == 1 && !hasAttrs && !isFuncType(rs[0]) {
		p.str(" -> ")
		p.typ(rs[0])
		return
	}
	p.str(" -> (")
	for i, t := range rs {
		if i > 0 {
			p.str(", ")
		}
		p.typ(t)
		if i < len(f.ResultAttrs) && len(f.ResultAttrs[i]) > 0 {
			p.str(" ")
			p.dict(f.ResultAttrs[i])
		}
	}
	p.str(")")
}

func isFuncType(t Type) bool {
	_, ok := t.(*FuncType)
	return ok
}

func (p *printer) typ(t Type) {
	if t == nil {
		p.fail("missing type")
		p.str("<<nil type>>")
		return
	}
	p.str(t.String())
}

// define names a value at its definition.
func (p *printer) define(v *Value, arg bool) string {
	if v == nil {
		p.fail("nil value definition")
		return "%<nil>"
	}
	var n string
	if arg {
		n = "%arg" + strconv.Itoa(p.nextArg)
		p.nextArg++
	} else {
		n = "%" + strconv.Itoa(p.nextVal)
		p.nextVal++
	}
	p.names[v] = n
	return n
}

// use spells a use of v; ok is false when v has no name in scope.
func (p *printer) use(v *Value) (string, bool) {
	if v == nil {
		return "", false
	}
	if n, ok := p.names[v]; ok {
		return n, true
	}
	if p.loose {
		if v.Name != "" {
			return "%" + v.Name, true
		}
		return "%?", true
	}
	return "", false
}
