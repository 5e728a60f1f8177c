package stablehlo

import (
	"encoding/binary"
)

// pendingResource is a dense_resource<name> whose blob comes from the
// `{-# dialect_resources: ... #-}` section, usually at the end of the file.
type pendingResource struct {
	at   int
	name string
	attr *DenseAttr
}

// parseDenseResource parses the rest of `dense_resource<name> : type`; the
// data is filled in by resolveResources.
func (p *parser) parseDenseResource(at int) *DenseAttr {
	p.expect("<")
	p.ws()
	name := p.suffixID()
	p.expect(">")
	p.expect(":")
	tat := p.here()
	tt, ok := p.parseType().(*TensorType)
	if !ok || !tt.IsStatic() || tt.Elem.DType.Size() == 0 {
		p.fail(tat, "dense_resource needs a static tensor type")
	}
	a := &DenseAttr{Type: tt}
	p.resources = append(p.resources, pendingResource{at: at, name: name, attr: a})
	return a
}

// parseResourceSection parses `{-# name: { dialect: { key: "0x..." } } #-}`
// and records the builtin blobs.
func (p *parser) parseResourceSection() {
	p.expect("{-#")
	if p.blobs == nil {
		p.blobs = map[string]string{}
	}
	for !p.accept("#-}") {
		if p.peek() == 0 {
			p.fail(p.pos, "unterminated resource section")
		}
		p.expectIdent("a resource section name")
		p.expect(":")
		p.expect("{")
		for !p.accept("}") {
			dialect := p.expectIdent("a dialect name")
			p.expect(":")
			p.expect("{")
			for !p.accept("}") {
				p.ws()
				key := p.suffixID()
				p.expect(":")
				if p.peek() == '"' {
					v := p.stringLit()
					if dialect == "builtin" {
						p.blobs[key] = v
					}
				} else {
					p.parseAttr()
				}
				if !p.accept(",") && p.peek() != '}' {
					p.fail(p.pos, "expected ',' or '}' in resource section, found %s", p.describe())
				}
			}
			if !p.accept(",") && p.peek() != '}' {
				p.fail(p.pos, "expected ',' or '}' in resource section, found %s", p.describe())
			}
		}
		p.accept(",")
	}
}

// resolveResources fills dense_resource attributes from their blobs.
func (p *parser) resolveResources() {
	for _, r := range p.resources {
		blob, ok := p.blobs[r.name]
		if !ok {
			p.fail(r.at, "unknown dense resource %q", r.name)
		}
		if len(blob) < 2 || blob[:2] != "0x" {
			p.fail(r.at, "dense resource %q is not a hex blob", r.name)
		}
		raw, err := decodeHex(blob[2:])
		if err != nil || len(raw) < 4 {
			p.fail(r.at, "bad dense resource %q", r.name)
		}
		align := binary.LittleEndian.Uint32(raw)
		if align == 0 || align&(align-1) != 0 {
			p.fail(r.at, "dense resource %q: bad alignment %d", r.name, align)
		}
		hexData := "0x" + blob[10:]
		tt := r.attr.Type
		lit, splat, err := denseFromHex(hexData, tt.Elem.DType, tt.Shape, tt.NumElements())
		if err != nil {
			p.fail(r.at, "dense resource %q: %v", r.name, err)
		}
		r.attr.Value, r.attr.Splat = lit, splat
	}
}
