package aten

//go:generate sh -c "cd .. && ../shared/tools/torch-oracle run sid -- python3 tools/specialgen/gen.py aten/gen_special_tables.go && gofmt -w aten/gen_special_tables.go"

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// sp emits elementwise math on values of one float type and shape: the
// building blocks of the special functions (special_*.go), which follow
// the algorithms of PyTorch's CPU kernels (Cephes polynomial and
// Chebyshev expansions, the same coefficients) but compute in float64 (or
// in the input's precision where overflow behaviour must match, as in the
// polynomial recurrences).
type sp struct {
	c     *LowerCtx
	dt    dtype.DType
	shape []int64
}

func spOf(c *LowerCtx, x *stablehlo.Value) sp { return sp{c, c.DType(x), c.Shape(x)} }

type hv = *stablehlo.Value

func (s sp) k(v float64) hv          { return s.c.Splat(s.dt, s.shape, v) }
func (s sp) add(a, b hv) hv          { return s.c.Binary("add", a, b) }
func (s sp) sub(a, b hv) hv          { return s.c.Binary("subtract", a, b) }
func (s sp) mul(a, b hv) hv          { return s.c.Binary("multiply", a, b) }
func (s sp) div(a, b hv) hv          { return s.c.Binary("divide", a, b) }
func (s sp) fn(name string, a hv) hv { return s.c.Unary(name, a) }
func (s sp) neg(a hv) hv             { return s.c.Unary("negate", a) }
func (s sp) abs(a hv) hv             { return s.c.Unary("abs", a) }
func (s sp) exp(a hv) hv             { return s.c.Unary("exponential", a) }
func (s sp) log(a hv) hv             { return s.c.Unary("log", a) }
func (s sp) sqrt(a hv) hv            { return s.c.Unary("sqrt", a) }
func (s sp) sin(a hv) hv             { return s.c.Unary("sine", a) }
func (s sp) cos(a hv) hv             { return s.c.Unary("cosine", a) }
func (s sp) sel(p, a, b hv) hv       { return s.c.Select(p, a, b) }
func (s sp) lt(a, b hv) hv           { return s.c.Compare("LT", a, b) }
func (s sp) le(a, b hv) hv           { return s.c.Compare("LE", a, b) }
func (s sp) gt(a, b hv) hv           { return s.c.Compare("GT", a, b) }
func (s sp) eq(a, b hv) hv           { return s.c.Compare("EQ", a, b) }
func (s sp) and(a, b hv) hv          { return s.c.Binary("and", a, b) }
func (s sp) or(a, b hv) hv           { return s.c.Binary("or", a, b) }
func (s sp) not(a hv) hv             { return s.c.Unary("not", a) }
func (s sp) isnan(a hv) hv           { return s.c.IsNaN(a) }
func (s sp) mulk(a hv, v float64) hv { return s.mul(a, s.k(v)) }
func (s sp) addk(a hv, v float64) hv { return s.add(a, s.k(v)) }

// horner evaluates coef[0]·x^(n-1) + ... + coef[n-1] (Cephes polevl).
func (s sp) horner(x hv, coef []float64) hv {
	r := s.k(coef[0])
	for _, c := range coef[1:] {
		r = s.addk(s.mul(r, x), c)
	}
	return r
}

// p1evl is horner with an implicit leading coefficient 1.
func (s sp) p1evl(x hv, coef []float64) hv {
	r := s.addk(x, coef[0])
	for _, c := range coef[1:] {
		r = s.addk(s.mul(r, x), c)
	}
	return r
}

// chbevl sums a Chebyshev series at x (Cephes chbevl: coefficients in
// reverse order, result 0.5·(b0 - b2)).
func (s sp) chbevl(x hv, coef []float64) hv {
	b0, b1, b2 := s.k(coef[0]), s.k(0), s.k(0)
	for _, c := range coef[1:] {
		b2 = b1
		b1 = b0
		b0 = s.addk(s.sub(s.mul(x, b1), b2), c)
	}
	return s.mulk(s.sub(b0, b2), 0.5)
}

// specialUnary registers an int-to-float unary op computed by f in the
// wide float type (float64, or float32 without it) and rounded once.
func specialUnary(name string, f func(s sp, x hv) hv) {
	lower(name, func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Operand(a.Schema.Params[0].Name) // "self", or "x" for airy_ai
		if a.Err() != nil {
			return nil, a.Err()
		}
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			d := c.DType(xs[0])
			w := c.Wide()
			if d == dtype.F64 {
				w = d
			}
			y := c.Convert(xs[0], w)
			return c.Convert(f(spOf(c, y), y), d)
		}, x)), nil
	})
}

// whileLoop runs body while cond holds on the carried values (a
// stablehlo.while); each value keeps its type.
func (c *LowerCtx) whileLoop(init []hv, cond func(s *LowerCtx, xs []hv) hv, body func(s *LowerCtx, xs []hv) []hv) []hv {
	types := make([]stablehlo.Type, len(init))
	for i, v := range init {
		types[i] = v.Type
	}
	rc := c.Region(types, func(s *LowerCtx, xs []*stablehlo.Value) []*stablehlo.Value { return []*stablehlo.Value{cond(s, xs)} })
	rb := c.Region(types, func(s *LowerCtx, xs []*stablehlo.Value) []*stablehlo.Value { return body(s, xs) })
	op := c.OpRegions("stablehlo.while", init, nil, []*stablehlo.Region{rc, rb}, types...)
	if len(op.Results) != len(init) {
		c.Errorf("while produced %d results for %d values", len(op.Results), len(init))
		return init
	}
	return op.Results
}
