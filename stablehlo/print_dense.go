package stablehlo

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// hexThreshold: non-splat dense constants with more elements print as raw
// little-endian hex (`dense<"0x...">`), smaller ones as nested lists.
const hexThreshold = 16

// dense prints `dense<...> : tensor<...>`: `dense<>` when empty, one
// element when every element is equal (a splat), raw hex when large, else
// a nested list.
func (p *printer) dense(a *DenseAttr) {
	t, lit := a.Type, a.Value
	if t == nil || lit == nil {
		p.fail("dense attribute without type or value")
		return
	}
	dt := t.Elem.DType
	if lit.DType != dt || dt.Size() == 0 {
		p.fail("dense attribute of type %v holds %v data", t, lit.DType)
		return
	}
	n, err := literal.NumElements(t.Shape)
	if err != nil {
		p.fail("dense attribute type %v: %v", t, err)
		return
	}
	size := dt.Size()
	have := int64(len(lit.Data) / size)
	if len(lit.Data)%size != 0 || (a.Splat && n > 0 && have < 1) || (!a.Splat && have != n) {
		p.fail("dense attribute of type %v holds %d bytes", t, len(lit.Data))
		return
	}
	p.str("dense<")
	switch {
	case n == 0:
	case a.Splat || allEqual(lit.Data, size):
		p.elem(lit, 0)
	case n > hexThreshold && hexable(dt):
		p.str(`"0x`)
		p.hexBytes(lit.Data)
		p.str(`"`)
	default:
		idx := 0
		p.nested(lit, t.Shape, &idx)
	}
	p.str("> : ")
	p.typ(t)
}

// hexBytes writes data as upper-case hex without building a copy of it.
func (p *printer) hexBytes(data []byte) {
	const digits = "0123456789ABCDEF"
	var buf [512]byte
	for len(data) > 0 {
		n := min(len(data), len(buf)/2)
		for i, c := range data[:n] {
			buf[2*i], buf[2*i+1] = digits[c>>4], digits[c&15]
		}
		p.w.Write(buf[:2*n])
		data = data[n:]
	}
}

func allEqual(data []byte, size int) bool {
	for i := size; i+size <= len(data); i += size {
		if !bytes.Equal(data[:size], data[i:i+size]) {
			return false
		}
	}
	return true
}

// hexable reports whether MLIR's raw storage of d is our host layout:
// whole bytes per element (i1 is bit-packed and sub-byte types are not).
func hexable(d dtype.DType) bool {
	return d != dtype.Bool && d.Bits() >= 8
}

func (p *printer) nested(lit *literal.Literal, shape []int64, idx *int) {
	if len(shape) == 0 {
		p.elem(lit, *idx)
		*idx++
		return
	}
	p.str("[")
	for i := int64(0); i < shape[0]; i++ {
		if i > 0 {
			p.str(", ")
		}
		p.nested(lit, shape[1:], idx)
	}
	p.str("]")
}

// elem prints element i of lit.
func (p *printer) elem(lit *literal.Literal, i int) {
	d := lit.DType
	size := d.Size()
	raw := lit.Data[i*size : (i+1)*size]
	switch {
	case d == dtype.Bool:
		p.str(strconv.FormatBool(raw[0]&1 != 0))
	case d.IsUnsigned():
		p.str(strconv.FormatUint(lit.Uint64(i)&widthMask(d.Bits()), 10))
	case d.IsInteger():
		p.str(strconv.FormatInt(lit.Int64(i), 10))
	case d.IsComplex():
		part := d.ComplexPart()
		half := size / 2
		p.str("(" + floatText(part, raw[:half]) + ", " + floatText(part, raw[half:]) + ")")
	default:
		p.str(floatText(d, raw))
	}
}

// floatText spells one stored float element: decimal when finite (exact:
// the shortest decimal that reads back as the same float64, which holds the
// element exactly), else its bit pattern in hex as MLIR requires.
func floatText(d dtype.DType, raw []byte) string {
	var bits uint64
	for j := len(raw) - 1; j >= 0; j-- {
		bits = bits<<8 | uint64(raw[j])
	}
	lit := literal.Literal{DType: d, Shape: []int64{}, Data: raw}
	v := lit.Float64(0)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return hexFloat(bits, d.Bits())
	}
	return decimal(v)
}

func hexFloat(bits uint64, width int) string {
	digits := (width + 3) / 4
	s := strings.ToUpper(strconv.FormatUint(bits&widthMask(width), 16))
	for len(s) < digits {
		s = "0" + s
	}
	return "0x" + s
}

// decimal spells a finite float64 in MLIR float syntax (always with '.').
func decimal(v float64) string {
	s := strconv.FormatFloat(v, 'e', -1, 64)
	if !strings.Contains(s, ".") {
		k := strings.IndexByte(s, 'e')
		s = s[:k] + ".0" + s[k:]
	}
	return s
}

// formatFloatAs spells v as a float of type d (0 meaning f64): decimal when
// finite, else the bit pattern of d in hex.
func formatFloatAs(v float64, d dtype.DType) string {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		return decimal(roundTo(v, d))
	}
	if d == 0 || d == dtype.F64 {
		return hexFloat(math.Float64bits(v), 64)
	}
	lit, err := literal.New(d, nil)
	if err != nil {
		return hexFloat(math.Float64bits(v), 64)
	}
	if d == dtype.F32 {
		binary.LittleEndian.PutUint32(lit.Data, math.Float32bits(float32(v)))
	} else {
		lit.SetFloat64(0, v)
	}
	var bits uint64
	for j := len(lit.Data) - 1; j >= 0; j-- {
		bits = bits<<8 | uint64(lit.Data[j])
	}
	return hexFloat(bits, d.Bits())
}

// roundTo rounds v to the nearest value of float type d (0 or f64: v), so
// that the text spells the value the attribute will hold once parsed.
func roundTo(v float64, d dtype.DType) float64 {
	switch d {
	case 0, dtype.F64:
		return v
	case dtype.F32:
		return float64(float32(v))
	}
	lit, err := literal.New(d, nil)
	if err != nil {
		return v
	}
	lit.SetFloat64(0, v)
	return lit.Float64(0)
}

// denseArray prints array<i64: 1, 2> (array<i64> when empty).
func (p *printer) denseArray(a *DenseArrayAttr) {
	p.str("array<" + a.Elem)
	d, _ := dtype.ParseMLIR(a.Elem)
	n := len(a.Ints)
	if a.Floats != nil {
		n = len(a.Floats)
	}
	for i := 0; i < n; i++ {
		if i == 0 {
			p.str(": ")
		} else {
			p.str(", ")
		}
		switch {
		case a.Floats != nil:
			p.str(formatFloatAs(a.Floats[i], d))
		case d == dtype.Bool:
			p.str(strconv.FormatBool(a.Ints[i] != 0))
		case d.IsUnsigned():
			p.str(strconv.FormatUint(uint64(a.Ints[i])&widthMask(d.Bits()), 10))
		default:
			p.str(strconv.FormatInt(a.Ints[i], 10))
		}
	}
	p.str(">")
}
