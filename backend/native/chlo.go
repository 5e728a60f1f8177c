package native

// CHLO elementwise ops: special functions on real floats (computed in
// float64 and rounded once to the result type), their complex forms
// (chlo_complex.go), and the broadcasting binary ops.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	unary := map[string]struct {
		f  func(float64) float64
		cf func(complex128) complex128
	}{
		"acos":       {math.Acos, cAcos},
		"acosh":      {math.Acosh, cAcosh},
		"asin":       {math.Asin, cAsin},
		"asinh":      {math.Asinh, cAsinh},
		"atan":       {math.Atan, cAtan},
		"atanh":      {math.Atanh, cAtanh},
		"tan":        {math.Tan, cTan},
		"erfc":       {math.Erfc, nil},
		"erf_inv":    {math.Erfinv, nil},
		"lgamma":     {lgammaReal, nil},
		"digamma":    {digamma, nil},
		"bessel_i1e": {besselI1e, nil},
		"square":     {func(x float64) float64 { return x * x }, func(z complex128) complex128 { return z * z }},
		"conj":       {func(x float64) float64 { return x }, func(z complex128) complex128 { return complex(real(z), -imag(z)) }},
	}
	for name, fs := range unary {
		register("chlo."+name, chloUnary(fs.f, fs.cf))
	}
	// erf is a table op (fused loops; float32 in package vmath)
	registerUnary("chlo.erf", unaryFns{f: math.Erf})
	register("chlo.cosh", chloUnaryPrec(coshDecomposed, cCosh))
	register("chlo.sinh", chloUnaryPrec(sinhDecomposed, cSinh))
	register("chlo.is_inf", chloPredicate(func(x float64) bool { return math.IsInf(x, 0) }))
	register("chlo.is_pos_inf", chloPredicate(func(x float64) bool { return math.IsInf(x, 1) }))
	register("chlo.is_neg_inf", chloPredicate(func(x float64) bool { return math.IsInf(x, -1) }))
	register("chlo.next_after", evalNextAfter)
	register("chlo.mulhi", evalMulhi)
	register("chlo.polygamma", chloBinaryFloat(polygamma))
	register("chlo.zeta", chloBinaryFloat(hurwitzZeta))
}

// chloUnary applies f to real floats and cf to complex values.
func chloUnary(f func(float64) float64, cf func(complex128) complex128) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		x, err := tensorArg(op, in, 0)
		if err != nil {
			return nil, err
		}
		out, err := literal.New(computeResultDType(op, 0, x.DType), x.Shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		switch {
		case x.DType.IsComplex() && cf != nil:
			v := decodeComplexes(x)
			for i, z := range v {
				v[i] = cf(z)
			}
			encodeComplexes(out, v)
		case x.DType.IsFloat():
			v := decodeFloats(x)
			for i, z := range v {
				v[i] = f(z)
			}
			encodeFloats(out, v)
		default:
			return nil, fmt.Errorf("%s: unsupported element type %v", op.Name, x.DType)
		}
		return []Value{out}, nil
	}
}

// chloUnaryPrec is chloUnary for functions that follow CHLO's
// decomposition step by step in the working precision: f32 for f32 and
// narrower types (which CHLO upcasts), f64 for f64; r rounds to it.
func chloUnaryPrec(f func(x float64, r func(float64) float64) float64, cf func(complex128) complex128) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		x, err := tensorArg(op, in, 0)
		if err != nil {
			return nil, err
		}
		r := f32r
		if x.DType == dtype.F64 {
			r = func(v float64) float64 { return v }
		}
		return chloUnary(func(v float64) float64 { return f(v, r) }, cf)(env, op, in)
	}
}

// chloPredicate maps a float tensor to i1.
func chloPredicate(p func(float64) bool) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		x, err := tensorArg(op, in, 0)
		if err != nil {
			return nil, err
		}
		if !x.DType.IsFloat() {
			return nil, fmt.Errorf("%s: operand %v must be a float tensor", op.Name, x)
		}
		out, err := literal.New(dtype.Bool, x.Shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		for i, v := range decodeFloats(x) {
			if p(v) {
				out.Data[i] = 1
			}
		}
		return []Value{out}, nil
	}
}

// chloBroadcast returns the result shape of a broadcasting binary op and,
// per operand, the flat operand index of every result element (numpy
// rules, or the broadcast_dimensions attribute when present).
func chloBroadcast(op *stablehlo.Op, a, b *literal.Literal) ([]int64, []int, []int, error) {
	ra, rb := a.Rank(), b.Rank()
	r := max(ra, rb)
	shape := make([]int64, r)
	dimsA := make([]int, ra)
	dimsB := make([]int, rb)
	for i := range dimsA {
		dimsA[i] = r - ra + i
	}
	for i := range dimsB {
		dimsB[i] = r - rb + i
	}
	if bd, ok := op.Ints("broadcast_dimensions"); ok {
		small := &dimsB
		if ra < rb {
			small = &dimsA
		}
		if len(bd) != len(*small) {
			return nil, nil, nil, fmt.Errorf("%s: broadcast_dimensions %v do not match the smaller operand", op.Name, bd)
		}
		for i, d := range bd {
			if d < 0 || int(d) >= r {
				return nil, nil, nil, fmt.Errorf("%s: broadcast_dimensions %v out of range", op.Name, bd)
			}
			(*small)[i] = int(d)
		}
	}
	for i := range shape {
		shape[i] = 1
	}
	for _, side := range []struct {
		l    *literal.Literal
		dims []int
	}{{a, dimsA}, {b, dimsB}} {
		for i, d := range side.dims {
			n := side.l.Shape[i]
			switch {
			case shape[d] == 1:
				shape[d] = n
			case n != 1 && n != shape[d]:
				return nil, nil, nil, fmt.Errorf("%s: operands %v and %v do not broadcast", op.Name, a, b)
			}
		}
	}
	index := func(l *literal.Literal, dims []int) []int {
		str := literal.Strides(l.Shape)
		bs := make([]int64, r)
		for i, d := range dims {
			if l.Shape[i] != 1 {
				bs[d] = str[i]
			}
		}
		n := elemCount(shape)
		out := make([]int, n)
		idx := make([]int64, r)
		for k := 0; k < n; k++ {
			off := int64(0)
			for d := range idx {
				off += idx[d] * bs[d]
			}
			out[k] = int(off)
			for d := r - 1; d >= 0; d-- {
				idx[d]++
				if idx[d] < shape[d] {
					break
				}
				idx[d] = 0
			}
		}
		return out
	}
	return shape, index(a, dimsA), index(b, dimsB), nil
}

// chloOperands reads the two operands of a broadcasting binary op, checks
// that they are of one type that ok accepts (kind names it in the error) and
// broadcasts them: the result shape and each result element's index in a and b.
func chloOperands(op *stablehlo.Op, in []Value, ok func(dtype.DType) bool, kind string) (a, b *literal.Literal, shape []int64, ia, ib []int, err error) {
	if a, err = tensorArg(op, in, 0); err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if b, err = tensorArg(op, in, 1); err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if !ok(a.DType) || b.DType != a.DType {
		return nil, nil, nil, nil, nil, fmt.Errorf("%s: operands %v and %v must be %s of one type", op.Name, a, b, kind)
	}
	shape, ia, ib, err = chloBroadcast(op, a, b)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	return a, b, shape, ia, ib, nil
}

// chloBinaryFloat is a broadcasting binary op on real floats.
func chloBinaryFloat(f func(a, b float64) float64) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		a, b, shape, ia, ib, err := chloOperands(op, in, dtype.DType.IsFloat, "floats")
		if err != nil {
			return nil, err
		}
		out, err := literal.New(computeResultDType(op, 0, a.DType), shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		va, vb := decodeFloats(a), decodeFloats(b)
		res := make([]float64, len(ia))
		for i := range res {
			res[i] = f(va[ia[i]], vb[ib[i]])
		}
		encodeFloats(out, res)
		return []Value{out}, nil
	}
}

// evalNextAfter returns the next representable value of the element type
// after x in the direction of y.
func evalNextAfter(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	a, b, shape, ia, ib, err := chloOperands(op, in, dtype.DType.IsFloat, "floats")
	if err != nil {
		return nil, err
	}
	out, err := literal.New(a.DType, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	sz := a.DType.Size()
	nbits := uint(a.DType.Bits())
	signBit := uint64(1) << (nbits - 1)
	read := func(l *literal.Literal, i int) uint64 {
		var v uint64
		for k := 0; k < sz; k++ {
			v |= uint64(l.Data[i*sz+k]) << (8 * k)
		}
		return v
	}
	for i := range ia {
		x, y := a.Float64(ia[i]), b.Float64(ib[i])
		xb := read(a, ia[i])
		var r uint64
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			r = read(a, ia[i])
			if !math.IsNaN(x) {
				r = read(b, ib[i])
			}
		case x == y:
			r = read(b, ib[i])
		case x == 0:
			r = 1 // smallest subnormal, with the sign of y
			if y < 0 {
				r |= signBit
			}
		case (x < y) == (x > 0):
			r = xb + 1 // away from zero
		default:
			r = xb - 1 // toward zero
		}
		for k := 0; k < sz; k++ {
			out.Data[i*sz+k] = byte(r >> (8 * k))
		}
	}
	return []Value{out}, nil
}

// evalMulhi returns the high half of the double-width product.
func evalMulhi(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	a, b, shape, ia, ib, err := chloOperands(op, in, dtype.DType.IsInteger, "integers")
	if err != nil {
		return nil, err
	}
	out, err := literal.New(a.DType, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	w := uint(a.DType.Bits())
	signed := a.DType.IsSigned()
	for i := range ia {
		x, y := a.Int64(ia[i]), b.Int64(ib[i])
		var hi int64
		switch {
		case w == 64 && signed:
			h, _ := bits.Mul64(uint64(x), uint64(y))
			// signed correction of the unsigned high word
			if x < 0 {
				h -= uint64(y)
			}
			if y < 0 {
				h -= uint64(x)
			}
			hi = int64(h)
		case w == 64:
			h, _ := bits.Mul64(uint64(x), uint64(y))
			hi = int64(h)
		case signed:
			hi = (x * y) >> w // exact in int64 for widths up to 32
		default:
			hi = int64(uint64(x) * uint64(y) >> w)
		}
		out.SetInt64(i, hi)
	}
	return []Value{out}, nil
}
