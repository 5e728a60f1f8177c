package stablehlo

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// A dense element as written: a span of the source. Complex elements take
// two consecutive entries (real, imaginary) with kind 'c'.
type denseElem struct {
	start, end int
	kind       byte // 'n' number, 't' true, 'f' false, 'c' complex part
}

// parseDense parses the rest of `dense<...> : tensor<...>`.
func (p *parser) parseDense(at int) *DenseAttr {
	p.expect("<")
	var (
		hex    string
		isHex  bool
		elems  []denseElem
		shape  []int64
		isList bool
	)
	switch p.peek() {
	case '"':
		hat := p.here()
		hex = p.stringLit()
		if len(hex) < 2 || hex[:2] != "0x" {
			p.fail(hat, "string dense elements are not supported")
		}
		isHex = true
	case '[':
		shape = p.denseList(&elems)
		isList = true
	case '>':
		// dense<> : an empty tensor
		isList = true
		shape = []int64{0}
	default:
		p.denseScalar(&elems)
	}
	p.expect(">")
	p.expect(":")
	tat := p.here()
	tt, ok := p.parseType().(*TensorType)
	if !ok {
		p.fail(tat, "dense elements need a tensor type")
	}
	if !tt.IsStatic() {
		p.fail(tat, "dense elements need a static shape, have %s", tt)
	}
	dt := tt.Elem.DType
	if dt.Size() == 0 {
		p.fail(tat, "bad element type %s", tt.Elem)
	}
	n := tt.NumElements()
	a := &DenseAttr{Type: tt}
	var err error
	switch {
	case isHex:
		a.Value, a.Splat, err = denseFromHex(hex, dt, tt.Shape, n)
	case isList:
		if !slices.Equal(shape, tt.Shape) && !(n == 0 && len(elems) == 0) {
			p.fail(at, "dense literal of shape %v does not match type %s", shape, tt)
		}
		a.Value, err = p.denseFromElems(elems, dt, tt.Shape)
	default:
		shp := tt.Shape
		if n != 1 {
			a.Splat = true
			shp = []int64{}
		}
		a.Value, err = p.denseFromElems(elems, dt, shp)
	}
	if err != nil {
		p.fail(at, "%v", err)
	}
	return a
}

// denseList parses a nested list and returns its shape.
func (p *parser) denseList(elems *[]denseElem) []int64 {
	p.enter()
	defer p.leave()
	at := p.here()
	p.expect("[")
	if p.accept("]") {
		return []int64{0}
	}
	var sub []int64
	childList := p.peek() == '['
	n := int64(0)
	for {
		if childList {
			s := p.denseList(elems)
			if n > 0 && !slices.Equal(s, sub) {
				p.fail(at, "ragged dense literal")
			}
			sub = s
		} else {
			p.denseScalar(elems)
		}
		n++
		if p.accept("]") {
			return append([]int64{n}, sub...)
		}
		p.expect(",")
		if (p.peek() == '[') != childList {
			p.fail(p.pos, "ragged dense literal")
		}
	}
}

// denseScalar parses one element: a number, true/false or (re, im).
func (p *parser) denseScalar(elems *[]denseElem) {
	at := p.here()
	switch {
	case p.accept("("):
		for i := 0; i < 2; i++ {
			p.ws()
			st := p.pos
			if p.numberText() == "" {
				p.fail(st, "expected a number in complex literal, found %s", p.describe())
			}
			*elems = append(*elems, denseElem{st, p.pos, 'c'})
			if i == 0 {
				p.expect(",")
			}
		}
		p.expect(")")
	case p.acceptKeyword("true"):
		*elems = append(*elems, denseElem{at, p.pos, 't'})
	case p.acceptKeyword("false"):
		*elems = append(*elems, denseElem{at, p.pos, 'f'})
	default:
		p.ws()
		st := p.pos
		if p.numberText() == "" {
			p.fail(st, "expected a dense element, found %s", p.describe())
		}
		*elems = append(*elems, denseElem{st, p.pos, 'n'})
	}
}

// denseFromElems builds the literal of the given shape from parsed
// elements (already checked to match the shape's element count).
func (p *parser) denseFromElems(elems []denseElem, dt dtype.DType, shape []int64) (*literal.Literal, error) {
	lit, err := literal.New(dt, shape)
	if err != nil {
		return nil, err
	}
	per := 1
	if dt.IsComplex() {
		per = 2
	}
	if len(elems) != lit.Len()*per {
		if dt.IsComplex() && len(elems) == lit.Len() {
			return nil, fmt.Errorf("complex element type %v needs (re, im) elements", dt)
		}
		return nil, fmt.Errorf("%d elements for a %v tensor of %d", len(elems)/per, dt, lit.Len())
	}
	size := dt.Size()
	for i, e := range elems {
		txt := string(p.src[e.start:e.end])
		if dt.IsComplex() != (e.kind == 'c') {
			if dt.IsComplex() {
				return nil, fmt.Errorf("complex element type %v needs (re, im) elements", dt)
			}
			return nil, fmt.Errorf("complex element for %v tensor", dt)
		}
		var bits uint64
		switch {
		case dt.IsComplex():
			part := dt.ComplexPart()
			bits, err = parseFloatBits(txt, part)
			if err != nil {
				return nil, err
			}
			off := (i/2)*size + (i%2)*part.Size()
			putBits(lit.Data[off:], part.Size(), bits)
			continue
		case e.kind == 't' || e.kind == 'f':
			if dt != dtype.Bool {
				return nil, fmt.Errorf("boolean element for %v tensor", dt)
			}
			if e.kind == 't' {
				bits = 1
			}
		case dt.IsFloat():
			bits, err = parseFloatBits(txt, dt)
			if err != nil {
				return nil, err
			}
		default:
			v, err := intElem(txt, dt)
			if err != nil {
				return nil, err
			}
			bits = uint64(v)
		}
		putBits(lit.Data[i*size:], size, bits)
	}
	return lit, nil
}

// intElem parses an integer element and checks it fits dt (signless types
// take the union of the signed and unsigned ranges, as MLIR does). The
// result is sign-extended for signed sub-byte types.
func intElem(txt string, dt dtype.DType) (int64, error) {
	if isFloatTextStr(txt) {
		return 0, fmt.Errorf("float literal %s for %v tensor", txt, dt)
	}
	v, err := parseIntText(txt)
	if err != nil {
		return 0, err
	}
	neg := len(txt) > 0 && txt[0] == '-'
	b := uint(dt.Bits())
	if b < 64 {
		switch {
		case neg && (dt.IsUnsigned() || dt == dtype.Bool):
			return 0, fmt.Errorf("negative value %s for %v", txt, dt)
		case neg && v < -(1<<(b-1)):
			return 0, fmt.Errorf("value %s out of range for %v", txt, dt)
		case !neg && uint64(v) >= 1<<b:
			return 0, fmt.Errorf("value %s out of range for %v", txt, dt)
		}
	} else if neg && dt.IsUnsigned() {
		return 0, fmt.Errorf("negative value %s for %v", txt, dt)
	}
	return truncInt(v, dt), nil
}

// putBits stores the low size bytes of v little-endian.
func putBits(dst []byte, size int, v uint64) {
	switch size {
	case 1:
		dst[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(dst, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(dst, uint32(v))
	default:
		binary.LittleEndian.PutUint64(dst, v)
	}
}
