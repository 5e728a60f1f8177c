package stablehlo

import "github.com/torchtpu/torchtpu/dtype"

// parseConstantOp: `stablehlo.constant [{attrs}] dense<...> : T`, or the
// half-generic `stablehlo.constant() {value = ...} : () -> T`.
func parseConstantOp(p *parser, op *Op, nres int) []Type {
	if p.accept("(") {
		p.expect(")")
		if p.accept("<") {
			p.addAttrs(op, p.parseDict())
			p.expect(">")
		}
		if p.peek() == '{' {
			p.addAttrs(op, p.parseDict())
		}
		return p.parseSig(op, nres)
	}
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	at := p.here()
	v := p.parseAttr()
	var t Type
	switch v := v.(type) {
	case *DenseAttr:
		t = v.Type
	case *IntAttr: // arith.constant 0 : index
		t = v.Type
		if t == nil {
			t = Elem(dtype.I64)
		}
	case *FloatAttr:
		t = v.Type
		if t == nil {
			t = Elem(dtype.F64)
		}
	}
	if t == nil {
		p.fail(at, "%s: expected dense<...> : tensor<...>", op.Name)
	}
	p.setAttr(op, "value", v)
	return []Type{t}
}

// parseSliceOp: `stablehlo.slice %x [start:limit[:stride], ...] : sig`.
func parseSliceOp(p *parser, op *Op, nres int) []Type {
	op.Operands = []*Value{p.parseUse()}
	p.expect("[")
	start, limit, stride := []int64{}, []int64{}, []int64{}
	if !p.accept("]") {
		for {
			start = append(start, p.parseInt64())
			p.expect(":")
			limit = append(limit, p.parseInt64())
			s := int64(1)
			if p.accept(":") {
				s = p.parseInt64()
			}
			stride = append(stride, s)
			if p.accept("]") {
				break
			}
			p.expect(",")
		}
	}
	p.setAttr(op, "start_indices", i64Array(start))
	p.setAttr(op, "limit_indices", i64Array(limit))
	p.setAttr(op, "strides", i64Array(stride))
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}

// parseGetTupleElementOp: `stablehlo.get_tuple_element %t[i] : sig`.
func parseGetTupleElementOp(p *parser, op *Op, nres int) []Type {
	op.Operands = []*Value{p.parseUse()}
	p.expect("[")
	at := p.here()
	i := p.parseInt64()
	if i < 0 || i > 1<<31-1 {
		p.fail(at, "bad tuple index %d", i)
	}
	p.expect("]")
	p.setAttr(op, "index", &IntAttr{Value: i, Type: Elem(dtype.I32)})
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}

// parseCalleeArgs parses `@name(%a, ...)`.
func (p *parser) parseCalleeArgs(op *Op) string {
	name, ok := p.symbolName()
	if !ok {
		p.fail(p.pos, "%s: expected @name, found %s", op.Name, p.describe())
	}
	p.expect("(")
	op.Operands = p.parseUseList()
	p.expect(")")
	return name
}

// parseCustomCallOp: `stablehlo.custom_call @target(%a, ...) {attrs} : sig`.
func parseCustomCallOp(p *parser, op *Op, nres int) []Type {
	name := p.parseCalleeArgs(op)
	p.setAttr(op, "call_target_name", StringAttr(name))
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}

// parseCallOp: `call @f(%a, ...) {attrs} : (T) -> R`.
func parseCallOp(p *parser, op *Op, nres int) []Type {
	name := p.parseCalleeArgs(op)
	p.setAttr(op, "callee", SymbolRefAttr(name))
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}

// parseCompositeOp: `stablehlo.composite "name" %a, ... {attrs} : sig`.
func parseCompositeOp(p *parser, op *Op, nres int) []Type {
	p.setAttr(op, "name", StringAttr(p.stringLit()))
	op.Operands = p.parseUseList()
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}

// parseTopKOp: `chlo.top_k(%x, k = N) : T -> (T, Ti)`.
func parseTopKOp(p *parser, op *Op, nres int) []Type {
	p.expect("(")
	op.Operands = []*Value{p.parseUse()}
	p.expect(",")
	p.expectKeyword("k")
	p.expect("=")
	p.setAttr(op, "k", &IntAttr{Value: p.parseInt64()})
	p.expect(")")
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}
