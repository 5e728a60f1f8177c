package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// var / std (two passes, Σ(x-mean)² / max(0, N - correction)), their
// _mean variants, and vector norms.

// varOf returns the variance and the mean of x over dims, in x's
// accumulation dtype.
func varOf(c *LowerCtx, x *stablehlo.Value, dims []int64, correction float64, keep bool) (v, mean *stablehlo.Value) {
	dt := c.DType(x)
	if dt.IsComplex() {
		// |x - mean|² sums the squares of both parts: the variance is the
		// real part's plus the imaginary part's.
		vr, mr := varOf(c, c.Unary("real", x), dims, correction, keep)
		vi, mi := varOf(c, c.Unary("imag", x), dims, correction, keep)
		return c.Binary("add", vr, vi), c.Op1("stablehlo.complex", []*stablehlo.Value{mr, mi}, nil)
	}
	if !dt.IsFloat() && !dt.IsComplex() {
		c.Errorf("std and var only support floating point and complex dtypes, not %s", torchName(dt))
	}
	acc := c.Convert(x, accType(c, dt))
	shape := c.Shape(acc)
	n := float64(numel(shape, dims))
	var s *stablehlo.Value
	if len(dims) > 0 {
		s = c.Reduce(acc, dims, "add", 0)
	} else {
		s = acc
	}
	m := c.Binary("divide", s, c.Like(s, n))
	mk := c.BroadcastTo(c.Reshape(m, keptShape(shape, dims, true)), shape)
	d := c.Binary("subtract", acc, mk)
	sq := c.Binary("multiply", d, d)
	if len(dims) > 0 {
		sq = c.Reduce(sq, dims, "add", 0)
	}
	v = c.Binary("divide", sq, c.Like(sq, math.Max(0, n-correction)))
	out := keptShape(shape, dims, keep)
	return c.Reshape(v, out), c.Reshape(m, out)
}

// correctionArg reads var's correction: the Scalar? correction of the
// .correction overloads (None = 1), or the bool unbiased of the others.
func correctionArg(a *Args) float64 {
	if a.Schema.Param("correction") >= 0 {
		if s, ok := a.OptScalar("correction"); ok {
			return s.Float()
		}
		return 1
	}
	if a.Bool("unbiased") {
		return 1
	}
	return 0
}

func keepArg(a *Args) bool {
	if a.Schema.Param("keepdim") < 0 {
		return false
	}
	return a.Bool("keepdim")
}

func dimsArg(c *LowerCtx, a *Args, rank int) []int64 {
	if a.Schema.Param("dim") < 0 {
		return reduceDims(c, nil, true, rank)
	}
	return optDims(c, a, "dim", rank)
}

func init() {
	stat := func(std, withMean bool) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			v, m := varOf(c, x, dimsArg(c, a, c.Rank(x)), correctionArg(a), keepArg(a))
			if std {
				v = c.Unary("sqrt", v)
			}
			v, m = c.Convert(v, realPart(c.DType(x))), c.Convert(m, c.DType(x))
			if withMean {
				return []Value{TensorValue(v), TensorValue(m)}, nil
			}
			return one(v), nil
		}
	}
	for _, ov := range []string{"default", "dim", "correction"} {
		lower("aten::var."+ov, stat(false, false))
		lower("aten::std."+ov, stat(true, false))
		lower("aten::var_mean."+ov, stat(false, true))
		lower("aten::std_mean."+ov, stat(true, true))
	}
	lower("aten::linalg_vector_norm.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		out := c.DType(x)
		if d, ok := a.OptDType("dtype"); ok {
			out = d
		}
		if out.IsComplex() {
			// The norm of complex values is the norm of their moduli.
			x = c.Unary("abs", c.Convert(x, out))
			out = realPart(out)
		}
		if !out.IsFloat() {
			return nil, c.Errorf("linalg.vector_norm: expected a floating point input or dtype, got %s", torchName(out))
		}
		dims := optDims(c, a, "dim", c.Rank(x))
		return one(vectorNorm(c, x, a.Scalar("ord").Float(), dims, a.Bool("keepdim"), out)), nil
	})
	normDecomp := func(c *LowerCtx, a *Args) ([]Value, error) {
		kw := map[string]Value{"keepdim": BoolValue(keepArg(a))}
		if p, ok := a.OptScalar("p"); ok {
			kw["ord"] = p.Value()
		}
		if a.Schema.Param("dim") >= 0 {
			kw["dim"] = a.Value("dim")
		}
		if a.Schema.Param("dtype") >= 0 {
			kw["dtype"] = a.Value("dtype")
		}
		return c.Call("aten::linalg_vector_norm.default", []Value{a.Value("self")}, kw)
	}
	for _, ov := range []string{"Scalar", "ScalarOpt_dim", "ScalarOpt_dim_dtype", "ScalarOpt_dtype"} {
		decomp("aten::norm."+ov, normDecomp)
	}
}

// vectorNorm computes the p-norm of x over dims in the accumulation dtype
// of out.
func vectorNorm(c *LowerCtx, x *stablehlo.Value, p float64, dims []int64, keep bool, out dtype.DType) *stablehlo.Value {
	acc := accType(c, out)
	ax := c.Unary("abs", c.Convert(x, acc))
	switch {
	case math.IsInf(p, 1):
		return reduceTo(c, ax, dims, keep, "maximum", 0, out)
	case math.IsInf(p, -1):
		return reduceTo(c, ax, dims, keep, "minimum", math.Inf(1), out)
	case p == 0:
		nz := c.Convert(c.Compare("NE", ax, c.Like(ax, 0)), acc)
		return reduceTo(c, nz, dims, keep, "add", 0, out)
	case p == 1:
		return reduceTo(c, ax, dims, keep, "add", 0, out)
	case p == 2:
		s := reduceTo(c, c.Binary("multiply", ax, ax), dims, keep, "add", 0, acc)
		return c.Convert(c.Unary("sqrt", s), out)
	}
	s := reduceTo(c, c.Binary("power", ax, c.Like(ax, p)), dims, keep, "add", 0, acc)
	return c.Convert(c.Binary("power", s, c.Like(s, 1/p)), out)
}

// realPart is the real dtype of a complex one (dt itself otherwise).
func realPart(dt dtype.DType) dtype.DType {
	switch dt {
	case dtype.C64:
		return dtype.F32
	case dtype.C128:
		return dtype.F64
	}
	return dt
}
