package stablehlo

import (
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// parseDenseArray parses the rest of `array<i64: 1, 2>`.
func (p *parser) parseDenseArray(at int) Attr {
	p.expect("<")
	elem := p.expectIdent("array element type")
	a := &DenseArrayAttr{Elem: elem}
	var d dtype.DType
	switch elem {
	case "i1", "i8", "i16", "i32", "i64":
		d, _ = dtype.ParseMLIR(elem)
		a.Ints = []int64{}
	case "f32", "f64":
		d, _ = dtype.ParseMLIR(elem)
		a.Floats = []float64{}
	default:
		p.fail(at, "unsupported array element type %q", elem)
	}
	if p.accept(">") {
		return a
	}
	p.expect(":")
	for {
		vat := p.here()
		switch {
		case p.acceptKeyword("true"):
			a.Ints = append(a.Ints, 1)
		case p.acceptKeyword("false"):
			a.Ints = append(a.Ints, 0)
		default:
			txt := p.numberText()
			if txt == "" {
				p.fail(vat, "expected an array element, found %s", p.describe())
			}
			if a.Floats != nil {
				bits, err := parseFloatBits(txt, d)
				if err != nil {
					p.fail(vat, "%v", err)
				}
				a.Floats = append(a.Floats, bitsToFloat64(d, bits))
			} else {
				v, err := intElem(txt, d)
				if err != nil {
					p.fail(vat, "bad %s array element: %v", elem, err)
				}
				a.Ints = append(a.Ints, v)
			}
		}
		if p.accept(">") {
			return a
		}
		p.expect(",")
	}
}

func isFloatTextStr(txt string) bool { return !isHexText(txt) && strings.ContainsAny(txt, ".eE") }

// tryParse runs f; on a syntax error it restores the position and reports
// false.
func (p *parser) tryParse(f func()) (ok bool) {
	pos, depth := p.pos, p.depth
	defer func() {
		if r := recover(); r != nil {
			if _, isSyn := r.(*SyntaxError); !isSyn {
				panic(r)
			}
			p.pos, p.depth = pos, depth
			ok = false
		}
	}()
	f()
	return true
}
