package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Orthogonal polynomials of a per-element degree n (a tensor, truncated
// to an integer): Chebyshev T, U, V, W and their shifted forms, Hermite H
// and He, Laguerre L, Legendre P. As in PyTorch's CPU kernels, the
// three-term recurrence runs in the input's precision (so overflow to
// infinity matches), with the closed trigonometric forms for large n
// inside (-1, 1) and the special values at the interval's ends. The
// recurrence is a stablehlo.while up to the largest degree; each element
// stops at its own.

type polyDef struct {
	// init returns p0 = P_0 and q = P_1.
	init func(s sp, x hv) (p, q hv)
	// step returns P_{k+1} from P_k (q) and P_{k-1} (p); kf is k as a
	// float (for Hermite H, the even number 2k).
	step func(s sp, x, p, q, kf hv) hv
	// first is the k of the first step.
	first int64
	// special overrides the result where it applies (nil: none).
	special func(s sp, x, n hv, r hv) hv
	// limit: degrees above it give NaN (Hermite), 0 for none.
	limit32, limit64 int64
}

func init() {
	cheb := func(q0 func(s sp, x hv) hv) func(s sp, x hv) (hv, hv) {
		return func(s sp, x hv) (hv, hv) { return s.k(1), q0(s, x) }
	}
	twoX := func(s sp, x hv) hv { return s.add(x, x) }
	chebStep := func(s sp, x, p, q, kf hv) hv { return s.sub(s.mul(s.add(x, x), q), p) }
	shift := func(s sp, x hv) hv { return s.addk(s.add(x, x), -1) }
	shStep := func(s sp, x, p, q, kf hv) hv {
		y := shift(s, x)
		return s.sub(s.mul(s.add(y, y), q), p)
	}
	defs := map[string]polyDef{
		"chebyshev_polynomial_t": {init: cheb(func(s sp, x hv) hv { return x }), step: chebStep, first: 2,
			special: chebEnds(chebT, 6, false)},
		"chebyshev_polynomial_u": {init: cheb(twoX), step: chebStep, first: 2, special: chebEnds(chebU, 8, false)},
		"chebyshev_polynomial_v": {init: cheb(func(s sp, x hv) hv { return s.addk(twoX(s, x), -1) }), step: chebStep, first: 2,
			special: chebEnds(chebV, 8, false)},
		"chebyshev_polynomial_w": {init: cheb(func(s sp, x hv) hv { return s.addk(twoX(s, x), 1) }), step: chebStep, first: 2,
			special: chebEnds(chebW, 8, false)},
		"shifted_chebyshev_polynomial_t": {init: cheb(shift), step: shStep, first: 2, special: chebEnds(chebT, 6, true)},
		"shifted_chebyshev_polynomial_u": {init: cheb(func(s sp, x hv) hv { y := shift(s, x); return s.add(y, y) }), step: shStep, first: 2,
			special: chebEnds(chebU, 6, true)},
		"shifted_chebyshev_polynomial_v": {init: cheb(func(s sp, x hv) hv { y := shift(s, x); return s.addk(s.add(y, y), -1) }), step: shStep, first: 2,
			special: chebEnds(chebV, 6, true)},
		"shifted_chebyshev_polynomial_w": {init: cheb(func(s sp, x hv) hv { y := shift(s, x); return s.addk(s.add(y, y), 1) }), step: shStep, first: 2,
			special: chebEnds(chebW, 4, true)},
		"hermite_polynomial_h": {init: cheb(twoX), first: 1, limit32: 128, limit64: 512,
			step: func(s sp, x, p, q, kf hv) hv { return s.sub(s.mul(s.add(x, x), q), s.mul(s.add(kf, kf), p)) }},
		"hermite_polynomial_he": {init: cheb(func(s sp, x hv) hv { return x }), first: 1, limit32: 128, limit64: 512,
			step: func(s sp, x, p, q, kf hv) hv { return s.sub(s.mul(x, q), s.mul(kf, p)) }},
		"laguerre_polynomial_l": {init: cheb(func(s sp, x hv) hv { return s.sub(s.k(1), x) }), first: 1,
			step: func(s sp, x, p, q, kf hv) hv {
				t := s.add(s.add(kf, kf), s.sub(s.k(1), x))
				return s.div(s.sub(s.mul(t, q), s.mul(kf, p)), s.addk(kf, 1))
			},
			special: func(s sp, x, n, r hv) hv { return s.sel(s.eq(s.abs(x), s.k(0)), s.k(1), r) }},
		"legendre_polynomial_p": {init: cheb(func(s sp, x hv) hv { return x }), first: 1,
			step: func(s sp, x, p, q, kf hv) hv {
				t := s.mul(s.mul(s.addk(s.add(kf, kf), 1), x), q)
				return s.div(s.sub(t, s.mul(kf, p)), s.addk(kf, 1))
			},
			special: func(s sp, x, n, r hv) hv {
				odd := oddDegree(s, n)
				end := s.sel(s.or(s.gt(x, s.k(0)), s.not(odd)), s.k(1), s.k(-1))
				return s.sel(s.eq(s.abs(x), s.k(1)), end, r)
			}},
	}
	for name, d := range defs {
		d := d
		f := func(c *LowerCtx, a *Args) ([]Value, error) {
			x, n := a.Operand("x"), a.Operand("n")
			if a.Err() != nil {
				return nil, a.Err()
			}
			return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
				return orthoPoly(c, d, xs[0], xs[1])
			}, x, n)), nil
		}
		lower("aten::special_"+name, f)
		lower("aten::special_"+name+".x_scalar", f)
		lower("aten::special_"+name+".n_scalar", f)
	}
}

// degree truncates n to an integer (as a float of x's type); NaN and
// infinities count as negative degrees.
func degree(s sp, n hv) hv {
	t := s.fn("sign", n)
	t = s.mul(t, s.fn("floor", s.abs(n)))
	bad := s.or(s.isnan(n), s.eq(s.abs(n), s.k(math.Inf(1))))
	return s.sel(bad, s.k(-1), t)
}

func oddDegree(s sp, n hv) hv {
	half := s.mulk(n, 0.5)
	return s.not(s.eq(half, s.fn("floor", half)))
}

func orthoPoly(c *LowerCtx, d polyDef, x, nIn hv) hv {
	s := spOf(c, x)
	n := degree(s, nIn)
	p0, q0 := d.init(s, x)
	// The loop: k from first to max n; P_{k+1} replaces q where k < n
	// (Chebyshev counts k from 2 to n inclusive: the same steps).
	nMax := c.ReduceWith(c.Convert(n, dtype.I64), seqI64(len(s.shape)), "maximum", c.SplatInt(dtype.I64, nil, math.MinInt64))
	kInit := c.SplatInt(dtype.I64, nil, d.first)
	shift := int64(1)
	if d.first == 2 {
		shift = 0 // condition k <= n
	}
	out := c.whileLoop([]hv{kInit, p0, q0, nMax}, func(b *LowerCtx, xs []hv) hv {
		return b.Compare("LE", b.Binary("add", xs[0], b.SplatInt(dtype.I64, nil, shift)), xs[3])
	}, func(b *LowerCtx, xs []hv) []hv {
		bs := sp{b, s.dt, s.shape}
		k, p, q := xs[0], xs[1], xs[2]
		kf := b.BroadcastTo(b.Convert(k, s.dt), s.shape)
		r := d.step(bs, x, p, q, kf)
		on := b.Compare("LE", b.Binary("add", kf, bs.k(float64(shift))), n)
		return []hv{b.Binary("add", k, b.SplatInt(dtype.I64, nil, 1)), b.Select(on, q, p), b.Select(on, r, q), xs[3]}
	})
	r := out[2]
	r = s.sel(s.eq(n, s.k(0)), s.k(1), r)
	if d.special != nil {
		r = d.special(s, x, n, r)
	}
	if d.limit32 > 0 {
		lim := d.limit64
		if s.dt != dtype.F64 {
			lim = d.limit32
		}
		r = s.sel(s.gt(n, s.k(float64(lim))), s.k(math.NaN()), r)
	}
	return s.sel(s.lt(n, s.k(0)), s.k(0), r)
}

// chebForm is a Chebyshev kind's closed form in θ = acos(y) and its value
// at y = ±1 (where the recurrence is not used).
type chebForm func(s sp, y, n, theta hv) (closed, atOne, atMinusOne hv)

func chebT(s sp, y, n, th hv) (hv, hv, hv) {
	odd := oddDegree(s, n)
	return s.cos(s.mul(n, th)), s.k(1), s.sel(odd, s.k(-1), s.k(1))
}

func chebU(s sp, y, n, th hv) (hv, hv, hv) {
	n1 := s.addk(n, 1)
	st := s.sin(th)
	closed := s.sel(s.eq(st, s.k(0)), s.div(s.mul(n1, s.cos(s.mul(n1, th))), y), s.div(s.sin(s.mul(n1, th)), st))
	odd := oddDegree(s, n)
	return closed, n1, s.sel(odd, s.neg(n1), n1)
}

func chebV(s sp, y, n, th hv) (hv, hv, hv) {
	odd := oddDegree(s, n)
	m := s.addk(s.add(n, n), 1)
	atNeg := s.sel(odd, s.neg(m), m)
	h := s.mulk(th, 0.5)
	closed := s.div(s.cos(s.mul(s.addk(n, 0.5), th)), s.cos(h))
	closed = s.sel(s.eq(s.sin(h), s.k(1)), atNeg, closed)
	return closed, s.k(1), atNeg
}

func chebW(s sp, y, n, th hv) (hv, hv, hv) {
	odd := oddDegree(s, n)
	m := s.addk(s.add(n, n), 1)
	atNeg := s.sel(odd, s.k(-1), s.k(1))
	h := s.mulk(th, 0.5)
	closed := s.div(s.sin(s.mul(s.addk(n, 0.5), th)), s.sin(h))
	closed = s.sel(s.eq(s.cos(h), s.k(1)), s.sel(s.gt(y, s.k(0)), m, atNeg), closed)
	return closed, m, atNeg
}

// chebEnds applies a Chebyshev kind's end values and closed form (for
// n > above inside the interval); shifted kinds work on y = 2x - 1 and
// test the ends on x (1 and 0).
func chebEnds(form chebForm, above int64, shifted bool) func(s sp, x, n, r hv) hv {
	return func(s sp, x, n, r hv) hv {
		y := x
		if shifted {
			y = s.addk(s.add(x, x), -1)
		}
		th := acos(s.c, y)
		closed, atOne, atNeg := form(s, y, n, th)
		inside := s.and(s.gt(n, s.k(float64(above))), s.lt(s.abs(y), s.k(1)))
		r = s.sel(inside, closed, r)
		var one, minus hv
		if shifted {
			one, minus = s.eq(x, s.k(1)), s.eq(x, s.k(0))
		} else {
			one, minus = s.eq(x, s.k(1)), s.eq(x, s.k(-1))
		}
		r = s.sel(minus, atNeg, r)
		return s.sel(one, atOne, r)
	}
}
