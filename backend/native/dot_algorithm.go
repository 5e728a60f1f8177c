package native

// dot_general's algorithm attribute: the operands are rounded to
// lhs_precision_type / rhs_precision_type before they are multiplied, and
// the products are summed in accumulation_type. Only single-component
// algorithms change the arithmetic; the multi-pass ones (bf16 ×3, ×6, ×9)
// exist to approximate f32 and run as the plain f32 product.

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// dotAlgorithm is a parsed #stablehlo.dot_algorithm.
type dotAlgorithm struct {
	lhs, rhs func(float64) float64 // rounding of the operands
	acc      func(float64) float64 // rounding of every partial sum
}

// precisionRounding maps a precision type name to its rounding.
func precisionRounding(name string) (func(float64) float64, bool) {
	switch name {
	case "f64":
		return func(x float64) float64 { return x }, true
	case "tf32": // f32 with a 10-bit mantissa, round to nearest even
		return func(x float64) float64 {
			b := math.Float32bits(float32(x))
			if b&0x7f800000 == 0x7f800000 { // inf, NaN
				return float64(math.Float32frombits(b))
			}
			b = (b + 0xfff + (b>>13)&1) &^ 0x1fff
			return float64(math.Float32frombits(b))
		}, true
	}
	d, err := dtype.ParseMLIR(name)
	if err != nil || !d.IsFloat() {
		return nil, false
	}
	return func(x float64) float64 { return roundToDType(d, x) }, true
}

// readDotAlgorithm returns the op's algorithm when it has a
// single-component one with known types.
func readDotAlgorithm(op *stablehlo.Op) (*dotAlgorithm, bool) {
	st, ok := op.Attr("algorithm").(*stablehlo.StructAttr)
	if !ok {
		return nil, false
	}
	typeName := func(field string) string {
		for _, f := range st.Fields {
			if f.Name == field {
				if t, ok := f.Value.(*stablehlo.TypeAttr); ok && t.Type != nil {
					return t.Type.String()
				}
			}
		}
		return ""
	}
	count := func(field string) int64 {
		for _, f := range st.Fields {
			if ia, ok := f.Value.(*stablehlo.IntAttr); ok && f.Name == field {
				return ia.Value
			}
		}
		return 1
	}
	if count("lhs_component_count") != 1 || count("rhs_component_count") != 1 {
		return nil, false
	}
	a := &dotAlgorithm{}
	var ok1, ok2, ok3 bool
	a.lhs, ok1 = precisionRounding(typeName("lhs_precision_type"))
	a.rhs, ok2 = precisionRounding(typeName("rhs_precision_type"))
	a.acc, ok3 = precisionRounding(typeName("accumulation_type"))
	return a, ok1 && ok2 && ok3
}

// dotWithAlgorithm computes a planned real dot under an algorithm: each
// product of rounded operands is exact in float64 for every precision type
// up to f32 and is rounded to the accumulation type, and so is each sum,
// in ascending contraction order.
func dotWithAlgorithm(p *dotLayout, lhs, rhs *literal.Literal, dt dtype.DType, alg *dotAlgorithm) (*literal.Literal, error) {
	out, err := literal.New(dt, p.shape)
	if err != nil {
		return nil, err
	}
	a := loadF64(lhs, permIndexOrNil(lhs.Shape, p.lhsPerm))
	b := loadF64(rhs, permIndexOrNil(rhs.Shape, p.rhsPerm))
	for i, v := range a {
		a[i] = alg.lhs(v)
	}
	for i, v := range b {
		b[i] = alg.rhs(v)
	}
	c := make([]float64, p.batch*p.m*p.n)
	for bt := 0; bt < p.batch; bt++ {
		ab := a[bt*p.m*p.k:]
		bb := b[bt*p.k*p.n:]
		cb := c[bt*p.m*p.n:]
		for i := 0; i < p.m; i++ {
			for j := 0; j < p.n; j++ {
				s := 0.0
				for q := 0; q < p.k; q++ {
					s = alg.acc(s + alg.acc(ab[i*p.k+q]*bb[q*p.n+j]))
				}
				cb[i*p.n+j] = s
			}
		}
	}
	encodeFloats(out, c)
	return out, nil
}
