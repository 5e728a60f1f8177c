package stablehlo

import (
	"math"
	"strconv"

	"github.com/torchtpu/torchtpu/dtype"
)

// parseQuant parses the body of !quant.uniform<...>:
// storage[<min:max>]:expressed[:axis], scale[:zp] | {scale:zp, ...}.
func (p *parser) parseQuant() *Quant {
	p.expect("<")
	q := &Quant{Axis: -1}
	st := p.pos
	sid := p.expectIdent("quantized storage type")
	d, err := dtype.ParseMLIR(scalarSpelling(sid))
	if err != nil || !(d.IsInteger() || d.IsBool()) {
		p.fail(st, "bad quantized storage type %q", sid)
	}
	q.Storage = d
	q.StorageMin, q.StorageMax = intRange(d)
	if p.accept("<") {
		q.HasRange = true
		q.StorageMin = p.parseInt64()
		p.expect(":")
		q.StorageMax = p.parseInt64()
		p.expect(">")
	}
	p.expect(":")
	et := p.parseElemType()
	if !et.DType.IsFloat() || et.Quant != nil {
		p.fail(st, "bad quantized expressed type %s", et)
	}
	q.Expressed = et.DType
	if p.accept(":") {
		q.Axis = int(p.parseInt64())
		if q.Axis < 0 {
			p.fail(st, "negative quantization axis")
		}
	}
	p.expect(",")
	if q.Axis >= 0 {
		p.expect("{")
		for {
			s, z := p.parseScaleZP()
			q.Scales = append(q.Scales, s)
			q.ZeroPoints = append(q.ZeroPoints, z)
			if p.accept("}") {
				break
			}
			p.expect(",")
		}
	} else {
		s, z := p.parseScaleZP()
		q.Scales, q.ZeroPoints = []float64{s}, []int64{z}
	}
	p.expect(">")
	return q
}

func (p *parser) parseScaleZP() (float64, int64) {
	at := p.here()
	txt := p.numberText()
	if txt == "" {
		p.fail(at, "expected a quantization scale, found %s", p.describe())
	}
	scale, err := strconv.ParseFloat(txt, 64)
	if err != nil {
		if u, err2 := strconv.ParseUint(txt, 0, 64); err2 == nil {
			scale = math.Float64frombits(u)
		} else {
			p.fail(at, "bad quantization scale %q", txt)
		}
	}
	var zp int64
	if p.accept(":") {
		zp = p.parseInt64()
	}
	return scale, zp
}

// parseInt64 reads a signed decimal or hex integer.
func (p *parser) parseInt64() int64 {
	at := p.here()
	txt := p.numberText()
	v, err := strconv.ParseInt(txt, 0, 64)
	if err != nil {
		p.fail(at, "expected an integer, found %s", p.describe())
	}
	return v
}

// intRange returns the value range of an integer dtype.
func intRange(d dtype.DType) (int64, int64) {
	b := d.Bits()
	switch {
	case d.IsBool():
		return 0, 1
	case d.IsUnsigned():
		if b >= 64 {
			return 0, math.MaxInt64
		}
		return 0, 1<<b - 1
	default:
		if b >= 64 {
			return math.MinInt64, math.MaxInt64
		}
		return -(1 << (b - 1)), 1<<(b-1) - 1
	}
}
