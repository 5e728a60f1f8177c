package stablehlo

import "strconv"

// op prints one op in MLIR generic form:
//
//	%0:2 = "dialect.name"(%a, %b) ({ regions }) {attrs} : (T, T) -> (R, R)
func (p *printer) op(op *Op, depth int) {
	if op == nil {
		p.fail("nil op")
		return
	}
	p.indent(depth)
	operands := make([]string, len(op.Operands))
	for i, v := range op.Operands {
		n, ok := p.use(v)
		if !ok {
			p.fail("%s: operand %d is nil or not defined before its use", op.Name, i)
			return
		}
		operands[i] = n
	}
	if len(op.Results) > 0 {
		base := "%" + strconv.Itoa(p.nextVal)
		p.nextVal++
		for i, r := range op.Results {
			if r == nil {
				p.fail("%s: result %d is nil", op.Name, i)
				return
			}
			if len(op.Results) == 1 {
				p.names[r] = base
			} else {
				p.names[r] = base + "#" + strconv.Itoa(i)
			}
		}
		p.str(base)
		if len(op.Results) > 1 {
			p.str(":" + strconv.Itoa(len(op.Results)))
		}
		p.str(" = ")
	}
	p.str(quote(op.Name) + "(")
	for i, s := range operands {
		if i > 0 {
			p.str(", ")
		}
		p.str(s)
	}
	p.str(")")
	if len(op.Regions) > 0 {
		p.str(" (")
		for i, r := range op.Regions {
			if i > 0 {
				p.str(", ")
			}
			p.region(r, depth)
		}
		p.str(")")
	}
	if len(op.Attrs) > 0 {
		p.str(" ")
		p.dict(op.Attrs)
	}
	p.str(" : (")
	for i, v := range op.Operands {
		if i > 0 {
			p.str(", ")
		}
		p.typ(v.Type)
	}
	p.str(") -> ")
	if len(op.Results) == 1 && !isFuncType(op.Results[0].Type) {
		p.typ(op.Results[0].Type)
	} else {
		p.str("(")
		for i, r := range op.Results {
			if i > 0 {
				p.str(", ")
			}
			p.typ(r.Type)
		}
		p.str(")")
	}
	p.str("\n")
}

// region prints `{ ^bb0(args): ops }`; the entry label is omitted when the
// region has one block without arguments.
func (p *printer) region(r *Region, depth int) {
	if r == nil {
		p.fail("nil region")
		return
	}
	p.str("{\n")
	for bi, b := range r.Blocks {
		if b == nil {
			p.fail("nil block")
			return
		}
		if bi > 0 || len(b.Args) > 0 || len(r.Blocks) > 1 {
			p.blockHeader(b, bi, depth)
		}
		for _, op := range b.Ops {
			p.op(op, depth+1)
		}
	}
	p.indent(depth)
	p.str("}")
}

func (p *printer) blockHeader(b *Block, index, depth int) {
	p.indent(depth)
	p.str("^bb" + strconv.Itoa(index))
	if len(b.Args) > 0 {
		p.str("(")
		for i, a := range b.Args {
			if i > 0 {
				p.str(", ")
			}
			p.str(p.define(a, true) + ": ")
			if a != nil {
				p.typ(a.Type)
			}
		}
		p.str(")")
	}
	p.str(":\n")
}
