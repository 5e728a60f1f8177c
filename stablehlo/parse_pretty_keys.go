package stablehlo

import (
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// asInts reads `[1, 2]` (or array<i64: ...>) from a pretty value.
func (p *parser) asInts(it prettyItem, v Attr) []int64 {
	if d, ok := v.(*DenseArrayAttr); ok && d.Floats == nil {
		return d.Ints
	}
	arr, ok := v.(ArrayAttr)
	if !ok {
		p.fail(it.at, "%s: expected a list of integers", it.key)
	}
	out := make([]int64, len(arr))
	for i, e := range arr {
		switch e := e.(type) {
		case *IntAttr:
			out[i] = e.Value
		case BoolAttr:
			if e {
				out[i] = 1
			}
		default:
			p.fail(it.at, "%s: expected a list of integers", it.key)
		}
	}
	return out
}

func i64Array(v []int64) *DenseArrayAttr { return &DenseArrayAttr{Elem: "i64", Ints: v} }

func keyI64Array(attr string) keyConv {
	return func(p *parser, op *Op, it prettyItem) { p.setAttr(op, attr, i64Array(p.asInts(it, it.value))) }
}

func keyBoolArray(attr string) keyConv {
	return func(p *parser, op *Op, it prettyItem) {
		v := p.asInts(it, it.value)
		for _, x := range v {
			if x != 0 && x != 1 {
				p.fail(it.at, "%s: expected booleans", it.key)
			}
		}
		p.setAttr(op, attr, &DenseArrayAttr{Elem: "i1", Ints: v})
	}
}

func keyInt(attr string, ty Type) keyConv {
	return func(p *parser, op *Op, it prettyItem) {
		n, ok := it.value.(*IntAttr)
		if !ok {
			p.fail(it.at, "%s: expected an integer", it.key)
		}
		p.setAttr(op, attr, &IntAttr{Value: n.Value, Type: ty})
	}
}

func keyFloat(attr string) keyConv {
	return func(p *parser, op *Op, it prettyItem) {
		switch v := it.value.(type) {
		case *FloatAttr:
			p.setAttr(op, attr, &FloatAttr{Value: v.Value})
		case *IntAttr:
			p.setAttr(op, attr, &FloatAttr{Value: float64(v.Value)})
		default:
			p.fail(it.at, "%s: expected a number", it.key)
		}
	}
}

func keyString(attr string) keyConv {
	return func(p *parser, op *Op, it prettyItem) {
		s, ok := it.value.(StringAttr)
		if !ok {
			p.fail(it.at, "%s: expected a string", it.key)
		}
		p.setAttr(op, attr, s)
	}
}

func keyBool(attr string) keyConv {
	return func(p *parser, op *Op, it prettyItem) {
		b, ok := it.value.(BoolAttr)
		if !ok {
			p.fail(it.at, "%s: expected true or false", it.key)
		}
		p.setAttr(op, attr, b)
	}
}

func keyEnum(attr, kind string) keyConv {
	return func(p *parser, op *Op, it prettyItem) {
		switch v := it.value.(type) {
		case bareWord:
			p.setAttr(op, attr, &EnumAttr{Dialect: "stablehlo", Kind: kind, Value: string(v)})
		case *EnumAttr:
			p.setAttr(op, attr, v)
		default:
			p.fail(it.at, "%s: expected a %s", it.key, kind)
		}
	}
}

// keyPrecision converts `precision = [HIGH, DEFAULT]`.
func keyPrecision(p *parser, op *Op, it prettyItem) {
	arr, ok := it.value.(ArrayAttr)
	if !ok {
		p.fail(it.at, "precision: expected a list")
	}
	out := make(ArrayAttr, len(arr))
	for i, e := range arr {
		switch e := e.(type) {
		case bareWord:
			out[i] = &EnumAttr{Dialect: "stablehlo", Kind: "precision", Value: string(e)}
		case *EnumAttr:
			out[i] = e
		default:
			p.fail(it.at, "precision: expected DEFAULT, HIGH or HIGHEST")
		}
	}
	p.setAttr(op, "precision_config", out)
}

// keyFormat converts reduce_precision's `format = e8m23`.
func keyFormat(p *parser, op *Op, it prettyItem) {
	w, ok := it.value.(bareWord)
	s := string(w)
	m := strings.IndexByte(s, 'm')
	if !ok || len(s) < 4 || s[0] != 'e' || m < 2 || m == len(s)-1 {
		p.fail(it.at, "format: expected eXmY")
	}
	e, err1 := parseIntText(s[1:m])
	mm, err2 := parseIntText(s[m+1:])
	if err1 != nil || err2 != nil || e < 0 || mm < 0 || e > 1<<31-1 || mm > 1<<31-1 {
		p.fail(it.at, "format: expected eXmY")
	}
	i32 := Elem(dtype.I32)
	p.setAttr(op, "exponent_bits", &IntAttr{Value: e, Type: i32})
	p.setAttr(op, "mantissa_bits", &IntAttr{Value: mm, Type: i32})
}

// keyPadding converts convolution's `pad = [[lo, hi], ...]` into the
// padding attribute, an i64 tensor<Nx2>.
func (p *parser) paddingAttr(it prettyItem) *DenseAttr {
	arr, ok := it.value.(ArrayAttr)
	if !ok {
		p.fail(it.at, "pad: expected [[lo, hi], ...]")
	}
	lit, err := literal.New(dtype.I64, []int64{int64(len(arr)), 2})
	if err != nil {
		p.fail(it.at, "pad: %v", err)
	}
	for i, row := range arr {
		pair := p.asInts(it, row)
		if len(pair) != 2 {
			p.fail(it.at, "pad: expected [[lo, hi], ...]")
		}
		lit.SetInt64(2*i, pair[0])
		lit.SetInt64(2*i+1, pair[1])
	}
	return &DenseAttr{Type: Tensor(dtype.I64, int64(len(arr)), 2), Value: lit}
}

// plainAttr makes a pretty value fit for the IR: bare words left inside
// (e.g. the `tf32` of a dot algorithm) become opaque types.
func plainAttr(a Attr) Attr {
	switch v := a.(type) {
	case bareWord:
		return &TypeAttr{Type: &OpaqueType{Text: string(v)}}
	case ArrayAttr:
		out := make(ArrayAttr, len(v))
		for i, e := range v {
			out[i] = plainAttr(e)
		}
		return out
	case *StructAttr:
		for i := range v.Fields {
			v.Fields[i].Value = plainAttr(v.Fields[i].Value)
		}
	}
	return a
}
