package stablehlo

// parseFunc parses
//
//	func.func [public|private|nested] @name(%a: T {attrs}, ...) -> (R {attrs}, ...)
//	    [attributes {...}] [{ body }]
//
// A declaration lists bare argument types and has no body.
func (p *parser) parseFunc() *Func {
	p.enter()
	defer p.leave()
	at := p.here()
	if !p.acceptKeyword("func.func") {
		p.expectKeyword("func")
	}
	f := &Func{Loc: p.loc(at), Type: &FuncType{Inputs: []Type{}, Results: []Type{}}}
	for _, vis := range []string{"public", "private", "nested"} {
		if p.acceptKeyword(vis) {
			f.Visibility = vis
			break
		}
	}
	name, ok := p.symbolName()
	if !ok {
		p.fail(p.pos, "expected function name (@name), found %s", p.describe())
	}
	f.Name = name
	var args []*Value
	var argNames []int
	p.expect("(")
	anyArgAttr := false
	var argAttrs []DictAttr
	if !p.accept(")") {
		for i := 0; ; i++ {
			aat := p.here()
			if n, ok := p.valueName(); ok {
				p.expect(":")
				v := &Value{Type: p.parseType(), Index: i, Name: n}
				args = append(args, v)
				argNames = append(argNames, aat)
			} else if len(args) > 0 {
				p.fail(aat, "expected %%name for argument %d of @%s", i, name)
			}
			if args == nil {
				f.Type.Inputs = append(f.Type.Inputs, p.parseType())
			} else {
				f.Type.Inputs = append(f.Type.Inputs, args[len(args)-1].Type)
			}
			var d DictAttr
			if p.peek() == '{' {
				d = p.parseDict()
				anyArgAttr = true
			}
			argAttrs = append(argAttrs, d)
			p.skipLoc()
			if p.accept(")") {
				break
			}
			p.expect(",")
		}
		if args != nil && len(args) != len(f.Type.Inputs) {
			p.fail(at, "function @%s mixes named and unnamed arguments", name)
		}
	}
	if anyArgAttr {
		f.ArgAttrs = argAttrs
	}
	if p.accept("->") {
		var resAttrs []DictAttr
		anyResAttr := false
		if p.accept("(") {
			if !p.accept(")") {
				for {
					f.Type.Results = append(f.Type.Results, p.parseType())
					var d DictAttr
					if p.peek() == '{' {
						d = p.parseDict()
						anyResAttr = true
					}
					resAttrs = append(resAttrs, d)
					if p.accept(")") {
						break
					}
					p.expect(",")
				}
			}
		} else {
			f.Type.Results = append(f.Type.Results, p.parseType())
		}
		if anyResAttr {
			f.ResultAttrs = resAttrs
		}
	}
	if p.acceptKeyword("attributes") {
		f.Attrs = p.parseDict()
	}
	if p.peek() == '{' {
		if args == nil && len(f.Type.Inputs) > 0 {
			p.fail(at, "function @%s has a body but unnamed arguments", name)
		}
		saved := p.scopes
		p.scopes = nil
		f.Body = p.parseRegionWith(args, argNames)
		p.scopes = saved
	}
	p.skipLoc()
	return f
}

// parseRegion parses `{ [^bb(args):] ops ... }` whose entry block declares
// its own arguments (or has none).
func (p *parser) parseRegion() *Region { return p.parseRegionWith(nil, nil) }

// parseRegionWith parses a region whose entry block arguments are given
// (function arguments, while iteration arguments, reducer arguments);
// argAt holds their source positions for error messages.
func (p *parser) parseRegionWith(entry []*Value, argAt []int) *Region {
	p.enter()
	defer p.leave()
	p.expect("{")
	p.pushScope()
	defer p.popScope()
	r := &Region{}
	blk := &Block{Args: entry}
	for i, v := range entry {
		if v.Name != "" {
			p.define(argAt[i], v.Name, v)
		}
	}
	if p.peek() == '^' {
		if entry != nil {
			p.fail(p.pos, "entry block of this region takes no label")
		}
		blk = p.parseBlockLabel()
	} else if p.accept("}") {
		if entry != nil {
			r.Blocks = []*Block{blk}
		}
		return r
	}
	r.Blocks = append(r.Blocks, blk)
	for {
		switch c := p.peek(); {
		case c == 0:
			p.fail(p.pos, "unterminated region: expected '}'")
		case c == '}':
			p.pos++
			return r
		case c == '^':
			blk = p.parseBlockLabel()
			r.Blocks = append(r.Blocks, blk)
		default:
			blk.Ops = append(blk.Ops, p.parseOp())
		}
	}
}

// parseBlockLabel parses `^name[(%a: T, ...)]:` and defines the arguments.
func (p *parser) parseBlockLabel() *Block {
	p.expect("^")
	p.suffixID()
	b := &Block{Args: []*Value{}}
	if p.accept("(") && !p.accept(")") {
		for i := 0; ; i++ {
			at := p.here()
			n, ok := p.valueName()
			if !ok {
				p.fail(at, "expected a block argument, found %s", p.describe())
			}
			p.expect(":")
			v := &Value{Type: p.parseType(), Index: i, Name: n}
			p.skipLoc()
			p.define(at, n, v)
			b.Args = append(b.Args, v)
			if p.accept(")") {
				break
			}
			p.expect(",")
		}
	}
	p.expect(":")
	return b
}
