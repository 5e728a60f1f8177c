package aten

import (
	"hash/fnv"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Random creation ops: rand, randn, randint, randperm and their *_like
// forms, over stablehlo.rng_bit_generator (THREE_FRY). The distributions
// are PyTorch's (uniform [0, 1), standard normal, uniform integers, a
// uniform permutation), but the values are not: PyTorch's CPU generator
// (mt19937 and its kernels' consumption order) is not reproduced. The
// generator state comes from LowerCtx.RNG (the runtime's generator, which
// advances on every draw as PyTorch's global one does), or else from a
// seed derived from the node.

// randomBits returns uniformly random unsigned integers of the given width
// (32 or 64) and shape.
func randomBits(c *LowerCtx, bits int, shape []int64) *stablehlo.Value {
	var state *stablehlo.Value
	if c.RNG != nil {
		state = c.RNG()
	} else {
		h := fnv.New64a()
		h.Write([]byte(c.Loc.File))
		h.Write([]byte{byte(len(c.block.Ops))})
		seed, _ := literal.New(dtype.U64, []int64{2})
		seed.SetInt64(0, int64(h.Sum64()))
		state = c.Const(seed)
	}
	ut := dtype.U32
	if bits == 64 {
		ut = dtype.U64
	}
	op := c.Op("stablehlo.rng_bit_generator", []*stablehlo.Value{state}, []stablehlo.NamedAttr{
		Attr("rng_algorithm", &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "rng_algorithm", Value: "THREE_FRY"}),
	}, stablehlo.Tensor(dtype.U64, 2), stablehlo.Tensor(ut, shape...))
	if len(op.Results) != 2 {
		c.Errorf("rng_bit_generator produced %d results", len(op.Results))
		return c.SplatInt(ut, shape, 0)
	}
	return op.Results[1]
}

// uniform returns floats in [0, 1) of dtype dt: as many random bits as
// the dtype's significand holds (24 for float32, 53 for float64, 11 for
// float16, 8 for bfloat16), scaled by 2^-bits, so that every value is exact
// in dt and rounding never reaches 1.
func uniform(c *LowerCtx, dt dtype.DType, shape []int64) *stablehlo.Value {
	if dt.IsComplex() {
		// Both parts uniform in [0, 1), as PyTorch's rand of complex.
		p := realPart(dt)
		return c.Op1("stablehlo.complex", []*stablehlo.Value{uniform(c, p, shape), uniform(c, p, shape)}, nil)
	}
	bits, keep, wide := 32, 24, dtype.F32
	switch dt {
	case dtype.F64:
		bits, keep, wide = 64, 53, dtype.F64
	case dtype.F16:
		keep = 11
	case dtype.BF16:
		keep = 8
	}
	r := randomBits(c, bits, shape)
	ut := c.DType(r)
	r = c.Binary("shift_right_logical", r, c.SplatInt(ut, shape, int64(bits-keep)))
	f := c.Op1("stablehlo.convert", []*stablehlo.Value{r}, nil, stablehlo.Tensor(wide, shape...))
	return c.Convert(scale(c, f, math.Ldexp(1, -keep)), dt)
}

// normal returns standard normal floats (Box–Muller).
func normal(c *LowerCtx, dt dtype.DType, shape []int64) *stablehlo.Value {
	if dt.IsComplex() {
		// Standard complex normal: each part N(0, ½).
		p := realPart(dt)
		re := scale(c, normal(c, p, shape), math.Sqrt(0.5))
		im := scale(c, normal(c, p, shape), math.Sqrt(0.5))
		return c.Op1("stablehlo.complex", []*stablehlo.Value{re, im}, nil)
	}
	w := OpMath(dt)
	u1 := uniform(c, w, shape)
	u2 := uniform(c, w, shape)
	// 1 - u1 is in (0, 1]: its log is finite.
	r := c.Unary("sqrt", scale(c, c.Unary("log", c.Binary("subtract", c.Like(u1, 1), u1)), -2))
	z := c.Binary("multiply", r, c.Unary("cosine", scale(c, u2, 2*math.Pi)))
	return c.Convert(z, dt)
}

func floatDType(c *LowerCtx, a *Args, def dtype.DType) dtype.DType {
	d := dtypeOr(a, def)
	if !d.IsFloat() && !d.IsComplex() {
		c.Errorf("random floats of dtype %s are not supported", torchName(d))
	}
	return d
}

func init() {
	sized := func(fn func(c *LowerCtx, dt dtype.DType, shape []int64) *stablehlo.Value) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			return one(fn(c, floatDType(c, a, dtype.DefaultFloat), a.Ints("size"))), nil
		}
	}
	like := func(fn func(c *LowerCtx, dt dtype.DType, shape []int64) *stablehlo.Value) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			return one(fn(c, floatDType(c, a, c.DType(x)), c.Shape(x))), nil
		}
	}
	lower("aten::rand.default", sized(uniform))
	lower("aten::randn.default", sized(normal))
	lower("aten::rand_like.default", like(uniform))
	lower("aten::randn_like.default", like(normal))
	randint := func(c *LowerCtx, lo, hi int64, shape []int64, dt dtype.DType) *stablehlo.Value {
		if hi <= lo {
			c.Errorf("random_ expects 'from' to be less than 'to', but got from=%d >= to=%d", lo, hi)
			return c.SplatInt(dt, shape, 0)
		}
		r := randomBits(c, 64, shape)
		r = c.Binary("remainder", r, c.SplatInt(dtype.U64, shape, hi-lo))
		v := c.Op1("stablehlo.convert", []*stablehlo.Value{r}, nil, stablehlo.Tensor(dtype.I64, shape...))
		return c.Convert(c.Binary("add", v, c.SplatInt(dtype.I64, shape, lo)), dt)
	}
	lower("aten::randint.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(randint(c, 0, a.Int("high"), a.Ints("size"), dtypeOr(a, dtype.I64))), nil
	})
	lower("aten::randint.low", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(randint(c, a.Int("low"), a.Int("high"), a.Ints("size"), dtypeOr(a, dtype.I64))), nil
	})
	lower("aten::randint_like.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return one(randint(c, 0, a.Int("high"), c.Shape(x), dtypeOr(a, c.DType(x)))), nil
	})
	lower("aten::randint_like.low_dtype", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return one(randint(c, a.Int("low"), a.Int("high"), c.Shape(x), dtypeOr(a, c.DType(x)))), nil
	})
	lower("aten::randperm.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		n := a.Int("n")
		if n < 0 {
			return nil, c.Errorf("randperm: n must be non-negative, got %d", n)
		}
		shape := []int64{n}
		keys := randomBits(c, 64, shape)
		u := stablehlo.Tensor(dtype.U64)
		i := stablehlo.Tensor(dtype.I64)
		cmp := c.Region([]stablehlo.Type{u, u, i, i}, func(s *LowerCtx, p []*stablehlo.Value) []*stablehlo.Value {
			return []*stablehlo.Value{s.Compare("LT", p[0], p[1])}
		})
		op := c.OpRegions("stablehlo.sort", []*stablehlo.Value{keys, c.Iota(dtype.I64, shape, 0)}, []stablehlo.NamedAttr{
			Attr("dimension", &stablehlo.IntAttr{Value: 0}), Attr("is_stable", stablehlo.BoolAttr(true)),
		}, []*stablehlo.Region{cmp})
		if len(op.Results) != 2 {
			return nil, c.Errorf("sort produced %d results", len(op.Results))
		}
		return one(c.Convert(op.Results[1], dtypeOr(a, dtype.I64))), nil
	})
}
