package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The regularized incomplete gamma functions igamma = P(a, x) and
// igammac = Q(a, x), with the regions and the series / continued
// fraction of PyTorch's kernels (from Cephes and SciPy): the power series
// of P, the series of Q for small x, Q's continued fraction for x > 1.1
// and x ≥ a, and the complements between them. Computed in float64; each
// iterative part is a while loop until every element has converged (at
// most 2000 steps). The uniform asymptotic expansion PyTorch uses for
// a > 20 near x is replaced by the series and fraction, which converge
// there too.

func init() {
	for name, lowerQ := range map[string]bool{"aten::igamma": false, "aten::igammac": true} {
		lowerQ := lowerQ
		lower(name, func(c *LowerCtx, a *Args) ([]Value, error) {
			return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
				d := c.DType(xs[0])
				w := c.Wide()
				if d == dtype.F64 {
					w = d
				}
				av, xv := c.Convert(xs[0], w), c.Convert(xs[1], w)
				return c.Convert(incGamma(spOf(c, av), av, xv, lowerQ), d)
			}, a.Operand("self"), a.Operand("other"))), nil
		})
	}
}

const igamMaxIter = 2000

func igamEps(dt dtype.DType) float64 {
	if dt == dtype.F64 {
		return 1.11022302462515654042e-16
	}
	return 5.9604644775390625e-8
}

// igamFac is xᵃ e⁻ˣ / Γ(a).
func igamFac(s sp, a, x hv) hv {
	return s.exp(s.sub(s.sub(s.mul(a, s.log(x)), x), s.c.Chlo("lgamma", a)))
}

// iterate runs step on the carried values of the elements not yet done
// (done from the step's second result) until all are or the step limit.
func (s sp) iterate(init []hv, step func(b sp, v []hv, k hv) ([]hv, hv)) []hv {
	c := s.c
	done0 := c.Splat(dtype.Bool, s.shape, 0)
	carry := append([]hv{c.SplatInt(dtype.I64, nil, 0), done0}, init...)
	out := c.whileLoop(carry, func(b *LowerCtx, v []hv) hv {
		notAll := b.Compare("EQ", b.ReduceWith(v[1], seqI64(len(s.shape)), "and", b.SplatInt(dtype.Bool, nil, 1)), b.SplatInt(dtype.Bool, nil, 0))
		return b.Binary("and", b.Compare("LT", v[0], b.SplatInt(dtype.I64, nil, igamMaxIter)), notAll)
	}, func(b *LowerCtx, v []hv) []hv {
		bs := sp{b, s.dt, s.shape}
		kf := b.BroadcastTo(b.Convert(b.Binary("add", v[0], b.SplatInt(dtype.I64, nil, 1)), s.dt), s.shape)
		nv, fin := step(bs, v[2:], kf)
		res := []hv{b.Binary("add", v[0], b.SplatInt(dtype.I64, nil, 1)), b.Binary("or", v[1], fin)}
		for i := range nv {
			res = append(res, b.Select(v[1], v[2+i], nv[i]))
		}
		return res
	})
	return out[2:]
}

// igamSeries is P(a, x) by its power series.
func igamSeries(s sp, a, x hv) hv {
	eps := igamEps(s.dt)
	out := s.iterate([]hv{a, s.k(1), s.k(1)}, func(b sp, v []hv, _ hv) ([]hv, hv) {
		r := b.addk(v[0], 1)
		cc := b.mul(v[1], b.div(x, r))
		ans := b.add(v[2], cc)
		return []hv{r, cc, ans}, b.le(cc, b.mulk(ans, eps))
	})
	fac := igamFac(s, a, x)
	return s.sel(s.eq(fac, s.k(0)), s.k(0), s.div(s.mul(out[2], fac), a))
}

// igamcSeries is Q(a, x) for small x, avoiding the cancellation of 1 - P.
func igamcSeries(s sp, a, x hv) hv {
	eps := igamEps(s.dt)
	out := s.iterate([]hv{s.k(1), s.k(0)}, func(b sp, v []hv, n hv) ([]hv, hv) {
		fac := b.mul(v[0], b.div(b.neg(x), n))
		term := b.div(fac, b.add(a, n))
		sum := b.add(v[1], term)
		return []hv{fac, sum}, b.le(b.abs(term), b.mulk(b.abs(sum), eps))
	})
	lx := s.log(x)
	term := s.neg(s.fn("exponential_minus_one", s.sub(s.mul(a, lx), s.c.Chlo("lgamma", s.addk(a, 1)))))
	return s.sub(term, s.mul(s.exp(s.sub(s.mul(a, lx), s.c.Chlo("lgamma", a))), out[1]))
}

// igamcFraction is Q(a, x) by its continued fraction.
func igamcFraction(s sp, a, x hv) hv {
	eps := igamEps(s.dt)
	big, bigInv := 4.503599627370496e15, 2.22044604925031308085e-16
	if s.dt != dtype.F64 {
		big, bigInv = 16777216, 5.9604644775390625e-8
	}
	y := s.sub(s.k(1), a)
	z := s.addk(s.add(x, y), 1)
	pkm1 := s.addk(x, 1)
	qkm1 := s.mul(z, x)
	ans := s.div(pkm1, qkm1)
	// carried: c, y, z, pkm2, pkm1, qkm2, qkm1, ans
	out := s.iterate([]hv{s.k(0), y, z, s.k(1), pkm1, x, qkm1, ans}, func(b sp, v []hv, _ hv) ([]hv, hv) {
		cc, yy, zz := b.addk(v[0], 1), b.addk(v[1], 1), b.addk(v[2], 2)
		pkm2, pkm1, qkm2, qkm1 := v[3], v[4], v[5], v[6]
		yc := b.mul(yy, cc)
		pk := b.sub(b.mul(pkm1, zz), b.mul(pkm2, yc))
		qk := b.sub(b.mul(qkm1, zz), b.mul(qkm2, yc))
		nz := b.not(b.eq(qk, b.k(0)))
		r := b.div(pk, b.sel(nz, qk, b.k(1)))
		t := b.sel(nz, b.abs(b.div(b.sub(v[7], r), r)), b.k(1))
		a2 := b.sel(nz, r, v[7])
		scale := b.gt(b.abs(pk), b.k(big))
		sc := func(u hv) hv { return b.sel(scale, b.mulk(u, bigInv), u) }
		return []hv{cc, yy, zz, sc(pkm1), sc(pk), sc(qkm1), sc(qk), a2}, b.le(t, b.k(eps))
	})
	fac := igamFac(s, a, x)
	return s.sel(s.eq(fac, s.k(0)), s.k(0), s.mul(out[7], fac))
}

// incGamma is P(a, x), or Q(a, x) with upper, with PyTorch's boundary
// values and regions.
func incGamma(s sp, a, x hv, upper bool) hv {
	series := igamSeries(s, a, x)
	oneMinusSeries := s.sub(s.k(1), series)
	cf := igamcFraction(s, a, x)
	qser := igamcSeries(s, a, x)
	// Q(a, x) by region.
	q := s.sel(s.gt(x, s.k(1.1)), s.sel(s.lt(x, a), oneMinusSeries, cf),
		s.sel(s.le(x, s.k(0.5)),
			s.sel(s.lt(s.div(s.k(-0.4), s.log(x)), a), oneMinusSeries, qser),
			s.sel(s.lt(s.mulk(x, 1.1), a), oneMinusSeries, qser)))
	inf := math.Inf(1)
	nan := s.k(math.NaN())
	var r, atZeroA, atZeroX, atInfA, atInfX hv
	if upper {
		r = q
		atZeroA, atZeroX, atInfA, atInfX = s.k(0), s.k(1), s.k(1), s.k(0)
	} else {
		r = s.sel(s.and(s.gt(x, s.k(1)), s.gt(x, a)), s.sub(s.k(1), q), series)
		atZeroA, atZeroX, atInfA, atInfX = s.k(1), s.k(0), s.k(0), s.k(1)
	}
	isInfA, isInfX := s.eq(a, s.k(inf)), s.eq(x, s.k(inf))
	r = s.sel(isInfX, atInfX, r)
	r = s.sel(isInfA, s.sel(isInfX, nan, atInfA), r)
	r = s.sel(s.eq(x, s.k(0)), atZeroX, r)
	r = s.sel(s.eq(a, s.k(0)), s.sel(s.gt(x, s.k(0)), atZeroA, nan), r)
	r = s.sel(s.or(s.lt(x, s.k(0)), s.lt(a, s.k(0))), nan, r)
	return s.sel(s.or(s.isnan(a), s.isnan(x)), nan, r)
}
