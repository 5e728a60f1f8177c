package stablehlo

// parseReduceOp parses the two pretty forms of stablehlo.reduce:
//
//	stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : sig
//	stablehlo.reduce(%x init: %z), (%y init: %w) across dimensions = [1] : sig
//	  reducer(%a: T, %c: T) (%b: U, %d: U) { ... }
//
// Operands are the inputs then the inits; the reducer block takes the
// accumulators then the values: (a, b, c, d) above.
func parseReduceOp(p *parser, op *Op, nres int) []Type {
	var inputs, inits []*Value
	for {
		p.expect("(")
		inputs = append(inputs, p.parseUse())
		p.expectKeyword("init")
		p.expect(":")
		inits = append(inits, p.parseUse())
		p.expect(")")
		if !p.accept(",") {
			break
		}
	}
	op.Operands = append(inputs, inits...)
	applyAt := -1
	var applyName string
	if p.acceptKeyword("applies") {
		applyAt = p.pos
		applyName = p.expectIdent("an op name")
		if p.peek() == '"' {
			p.fail(p.pos, "unexpected string")
		}
	}
	p.expectKeyword("across")
	p.expectKeyword("dimensions")
	p.expect("=")
	p.setAttr(op, "dimensions", i64Array(p.parseIntList()))
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	results := p.parseSig(op, nres)
	n := len(inits)
	if applyAt >= 0 {
		args := make([]*Value, 2*n)
		for i := range args {
			init := AsTensor(inits[i%n].Type)
			if init == nil {
				p.fail(applyAt, "reduce init value %d is not a tensor", i%n)
			}
			args[i] = &Value{Type: &TensorType{Shape: []int64{}, Elem: init.Elem}, Index: i}
		}
		body := NewOp(canonicalOpName(applyName), args, nil, nil)
		body.Loc = p.loc(applyAt)
		body.Results = make([]*Value, n)
		for i := range body.Results {
			body.Results[i] = &Value{Type: args[i].Type, Def: body, Index: i}
		}
		ret := &Op{Name: "stablehlo.return", Operands: body.Results, Loc: body.Loc}
		op.Regions = []*Region{{Blocks: []*Block{{Args: args, Ops: []*Op{body, ret}}}}}
		return results
	}
	p.expectKeyword("reducer")
	accs := make([]*Value, 0, n)
	vals := make([]*Value, 0, n)
	var accAt, valAt []int
	for i := 0; i < n; i++ {
		p.expect("(")
		for k := 0; k < 2; k++ {
			at := p.here()
			name, ok := p.valueName()
			if !ok {
				p.fail(at, "expected a reducer argument, found %s", p.describe())
			}
			p.expect(":")
			v := &Value{Type: p.parseType(), Name: name}
			p.skipLoc()
			if k == 0 {
				accs, accAt = append(accs, v), append(accAt, at)
				p.expect(",")
			} else {
				vals, valAt = append(vals, v), append(valAt, at)
			}
		}
		p.expect(")")
	}
	args := append(accs, vals...)
	for i, a := range args {
		a.Index = i
	}
	op.Regions = []*Region{p.parseRegionWith(args, append(accAt, valAt...))}
	return results
}

// parseWhileOp parses
//
//	stablehlo.while(%it = %init, ...) : T, ... [attributes {...}]
//	  cond { ... } do { ... }
//
// Both regions take the iteration arguments.
func parseWhileOp(p *parser, op *Op, nres int) []Type {
	p.expect("(")
	var names []string
	var ats []int
	if !p.accept(")") {
		for {
			at := p.here()
			name, ok := p.valueName()
			if !ok {
				p.fail(at, "expected an iteration argument, found %s", p.describe())
			}
			p.expect("=")
			op.Operands = append(op.Operands, p.parseUse())
			names, ats = append(names, name), append(ats, at)
			if p.accept(")") {
				break
			}
			p.expect(",")
		}
	}
	types := []Type{}
	if p.accept(":") {
		tat := p.here()
		for {
			types = append(types, p.parseType())
			if !p.accept(",") {
				break
			}
		}
		p.checkOperandCount(tat, op, len(types))
	} else if len(op.Operands) > 0 {
		p.expect(":")
	}
	if p.acceptKeyword("attributes") {
		p.addAttrs(op, p.parseDict())
	}
	args := func() []*Value {
		vs := make([]*Value, len(types))
		for i, t := range types {
			vs[i] = &Value{Type: t, Index: i, Name: names[i]}
		}
		return vs
	}
	p.expectKeyword("cond")
	cond := p.parseRegionWith(args(), ats)
	p.expectKeyword("do")
	body := p.parseRegionWith(args(), ats)
	op.Regions = []*Region{cond, body}
	return types
}

// parseConvolutionOp parses
//
//	stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f],
//	  window = {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..],
//	  rhs_dilate = [..], reverse = [..]} {attrs} : sig
func parseConvolutionOp(p *parser, op *Op, nres int) []Type {
	p.expect("(")
	op.Operands = p.parseUseList()
	p.expect(")")
	p.expectKeyword("dim_numbers")
	p.expect("=")
	p.setAttr(op, "dimension_numbers", p.parseConvDims())
	if p.accept(",") {
		p.expectKeyword("window")
		p.expect("=")
		p.parseWindow(op)
	}
	if p.peek() == '{' {
		p.addAttrs(op, p.parseDict())
	}
	return p.parseSig(op, nres)
}

// parseWindow parses convolution's `{stride = .., pad = .., ...}`.
func (p *parser) parseWindow(op *Op) {
	p.expect("{")
	if p.accept("}") {
		return
	}
	for {
		it := prettyItem{at: p.pos}
		it.key = p.expectIdent("a window field")
		p.expect("=")
		it.value = p.parseAttrMode(modeNoSuffix)
		switch it.key {
		case "stride":
			keyI64Array("window_strides")(p, op, it)
		case "pad":
			p.setAttr(op, "padding", p.paddingAttr(it))
		case "lhs_dilate":
			keyI64Array("lhs_dilation")(p, op, it)
		case "rhs_dilate":
			keyI64Array("rhs_dilation")(p, op, it)
		case "reverse":
			keyBoolArray("window_reversal")(p, op, it)
		default:
			p.fail(it.at, "unknown window field %q", it.key)
		}
		if p.accept("}") {
			return
		}
		p.expect(",")
	}
}

// parseScanOp parses
//
//	chlo.scan(%in, ...) inits(%init, ...) dimension=0 [attributes {...}]
//	  { region } : sig
//
// The two operand groups are recorded in operandSegmentSizes, as the
// generic form has them.
func parseScanOp(p *parser, op *Op, nres int) []Type {
	p.expect("(")
	ins := p.parseUseList()
	p.expect(")")
	p.expectKeyword("inits")
	p.expect("(")
	inits := p.parseUseList()
	p.expect(")")
	op.Operands = append(ins, inits...)
	p.setAttr(op, "operandSegmentSizes", &DenseArrayAttr{Elem: "i32", Ints: []int64{int64(len(ins)), int64(len(inits))}})
	p.expectKeyword("dimension")
	p.expect("=")
	p.setAttr(op, "dimension", &IntAttr{Value: p.parseInt64()})
	if p.acceptKeyword("attributes") {
		p.addAttrs(op, p.parseDict())
	}
	op.Regions = []*Region{p.parseRegion()}
	return p.parseSig(op, nres)
}
