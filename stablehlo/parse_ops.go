package stablehlo

import "strconv"

// maxResults bounds `%r:N` so that a typo cannot allocate absurd memory.
const maxResults = 1 << 16

// resultDef is one `%name` or `%name:N` on the left of an op.
type resultDef struct {
	at    int
	name  string
	count int
}

// parseOp parses one operation, generic or pretty, with its results.
func (p *parser) parseOp() *Op {
	p.enter()
	defer p.leave()
	at := p.here()
	var defs []resultDef
	nres := 0
	if p.peek() == '%' {
		for {
			dat := p.here()
			name, ok := p.valueName()
			if !ok {
				p.fail(p.pos, "expected a result name, found %s", p.describe())
			}
			d := resultDef{at: dat, name: name, count: 1}
			if p.accept(":") {
				cat := p.here()
				n := p.parseInt64()
				if n < 1 || n > maxResults {
					p.fail(cat, "bad result count %d", n)
				}
				d.count = int(n)
			}
			defs = append(defs, d)
			nres += d.count
			if nres > maxResults {
				p.fail(dat, "too many results")
			}
			if !p.accept(",") {
				break
			}
		}
		p.expect("=")
	}
	opAt := p.here()
	op := &Op{Loc: p.loc(opAt)}
	var resultTypes []Type
	if p.peek() == '"' {
		op.Name = p.stringLit()
		if op.Name == "" {
			p.fail(opAt, "empty op name")
		}
		resultTypes = p.parseGenericBody(op)
	} else {
		name := p.ident()
		if name == "" {
			p.fail(opAt, "expected an operation, found %s", p.describe())
		}
		op.Name = canonicalOpName(name)
		h, ok := prettyParsers[op.Name]
		if !ok {
			h = defaultPrettyFor(op.Name)
		}
		if h == nil {
			p.fail(opAt, "unknown operation %q (custom form); use the generic form \"%s\"(...) for unregistered ops", name, name)
		}
		resultTypes = h(p, op, nres)
	}
	p.skipLoc()
	if len(resultTypes) != nres && (nres > 0 || len(resultTypes) == 0) {
		p.fail(at, "%s has %d result types but %d result names", op.Name, len(resultTypes), nres)
	}
	// Results may go unnamed (and unused): `"x.op"() : () -> tensor<f32>`.
	op.Results = make([]*Value, len(resultTypes))
	for i, t := range resultTypes {
		op.Results[i] = &Value{Type: t, Def: op, Index: i}
	}
	SortAttrs(op.Attrs)
	i := 0
	for _, d := range defs {
		for k := 0; k < d.count; k++ {
			v := op.Results[i]
			v.Name = d.name
			if d.count > 1 {
				v.Name = d.name + "#" + strconv.Itoa(k)
			}
			p.define(d.at, v.Name, v)
			i++
		}
	}
	return op
}

// canonicalOpName maps the short spellings of func ops to full names.
func canonicalOpName(name string) string {
	switch name {
	case "return":
		return "func.return"
	case "call":
		return "func.call"
	case "constant":
		return "func.constant"
	}
	return name
}

// parseGenericBody parses, after the quoted name,
//
//	(operands) [<{properties}>] [(regions)] [{attrs}] : (types) -> types
func (p *parser) parseGenericBody(op *Op) []Type {
	p.expect("(")
	op.Operands = p.parseUseList()
	p.expect(")")
	if p.peek() == '[' {
		p.fail(p.pos, "block successors are not supported")
	}
	if p.accept("<") {
		p.addAttrs(op, p.parseDict())
		p.expect(">")
	}
	if p.accept("(") {
		for {
			op.Regions = append(op.Regions, p.parseRegion())
			if p.accept(")") {
				break
			}
			p.expect(",")
		}
	}
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	p.expect(":")
	tat := p.here()
	ft, ok := p.parseType().(*FuncType)
	if !ok {
		p.fail(tat, "expected a function type (inputs) -> results for %s", op.Name)
	}
	p.checkOperandCount(tat, op, len(ft.Inputs))
	return ft.Results
}

func (p *parser) checkOperandCount(at int, op *Op, n int) {
	if n != len(op.Operands) {
		p.fail(at, "%s has %d operands but its type lists %d", op.Name, len(op.Operands), n)
	}
}

// addAttrs merges a dictionary (free of duplicates) into the op's
// attributes.
func (p *parser) addAttrs(op *Op, d DictAttr) {
	if len(op.Attrs) == 0 {
		op.Attrs = append(op.Attrs, d...)
		return
	}
	have := make(map[string]bool, len(op.Attrs))
	for _, a := range op.Attrs {
		have[a.Name] = true
	}
	for _, a := range d {
		if have[a.Name] {
			p.fail(p.pos, "%s: attribute %q given twice", op.Name, a.Name)
		}
		op.Attrs = append(op.Attrs, a)
	}
}

// setAttr sets an attribute, failing on a duplicate.
func (p *parser) setAttr(op *Op, name string, v Attr) {
	for _, a := range op.Attrs {
		if a.Name == name {
			p.fail(p.pos, "%s: attribute %q given twice", op.Name, name)
		}
	}
	op.Attrs = append(op.Attrs, NamedAttr{Name: name, Value: v})
}

// parseSig parses the `: types` of a pretty op and returns the result
// types. Accepted: a function type `(A, B) -> R`; a type list with an
// arrow `A, B -> R` (chlo); or a bare type list, which stands for the
// results when it has one entry per result, for the last operand and the
// result when there is one result (select: `pred, T`), and for operands
// only when the op has no results.
func (p *parser) parseSig(op *Op, nres int) []Type {
	p.expect(":")
	at := p.here()
	if p.peek() == '(' {
		ft, ok := p.parseType().(*FuncType)
		if !ok {
			p.fail(at, "expected a function type")
		}
		p.checkOperandCount(at, op, len(ft.Inputs))
		return ft.Results
	}
	types := []Type{p.parseType()}
	for p.accept(",") {
		types = append(types, p.parseType())
	}
	if p.accept("->") {
		if len(types) != len(op.Operands) {
			p.checkOperandCount(at, op, len(types))
		}
		return p.parseResultTypes()
	}
	switch {
	case nres == 0:
		return nil
	case len(types) == nres:
		return types
	case nres == 1:
		return types[len(types)-1:]
	}
	p.fail(at, "%s: cannot tell %d result types from %d types", op.Name, nres, len(types))
	return nil
}
