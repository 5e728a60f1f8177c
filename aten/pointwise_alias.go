package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Pointwise aliases a default torch.export keeps (PyTorch's numpy and
// scipy spellings, CompositeImplicit): each row forwards its arguments to
// the op it names, renaming those whose names differ. Then isclose.

func init() {
	for name, target := range map[string]string{
		"aten::divide.Tensor":        "aten::div.Tensor",
		"aten::divide.Scalar":        "aten::div.Scalar",
		"aten::divide.Tensor_mode":   "aten::div.Tensor_mode",
		"aten::divide.Scalar_mode":   "aten::div.Scalar_mode",
		"aten::true_divide.Scalar":   "aten::div.Scalar",
		"aten::subtract.Tensor":      "aten::sub.Tensor",
		"aten::subtract.Scalar":      "aten::sub.Scalar",
		"aten::multiply.Tensor":      "aten::mul.Tensor",
		"aten::multiply.Scalar":      "aten::mul.Scalar",
		"aten::greater.Tensor":       "aten::gt.Tensor",
		"aten::greater.Scalar":       "aten::gt.Scalar",
		"aten::greater_equal.Tensor": "aten::ge.Tensor",
		"aten::greater_equal.Scalar": "aten::ge.Scalar",
		"aten::less.Tensor":          "aten::lt.Tensor",
		"aten::less.Scalar":          "aten::lt.Scalar",
		"aten::less_equal.Tensor":    "aten::le.Tensor",
		"aten::less_equal.Scalar":    "aten::le.Scalar",
		"aten::not_equal.Tensor":     "aten::ne.Tensor",
		"aten::not_equal.Scalar":     "aten::ne.Scalar",
		"aten::arccos":               "aten::acos",
		"aten::arcsin":               "aten::asin",
		"aten::arctan":               "aten::atan",
		"aten::arccosh":              "aten::acosh",
		"aten::arcsinh":              "aten::asinh",
		"aten::arctanh":              "aten::atanh",
		"aten::arctan2":              "aten::atan2",
		"aten::special_erf":          "aten::erf",
		"aten::special_erfc":         "aten::erfc",
		"aten::special_erfinv":       "aten::erfinv",
		"aten::special_exp2":         "aten::exp2",
		"aten::special_expm1":        "aten::expm1",
		"aten::special_gammaln":      "aten::lgamma",
		"aten::special_digamma":      "aten::digamma",
		"aten::special_psi":          "aten::digamma",
		"aten::special_log1p":        "aten::log1p",
		"aten::special_logsumexp":    "aten::logsumexp",
		"aten::special_round":        "aten::round.decimals",
		"aten::special_softmax":      "aten::softmax.int",
		"aten::special_log_softmax":  "aten::log_softmax.int",
		"aten::special_xlogy":        "aten::xlogy.Tensor",
		"aten::swapaxes":             "aten::transpose.int",
		"aten::swapdims":             "aten::transpose.int",
		"aten::moveaxis.int":         "aten::movedim.int",
		"aten::moveaxis.intlist":     "aten::movedim.intlist",
	} {
		decomp(name, renamed(target, map[string]string{
			"axis0": "dim0", "axis1": "dim1",
		}))
	}
	lower("aten::isclose", lowerIsClose)
}

// lowerIsClose: |a - b| <= atol + rtol*|b| (finite), or a == b, or both
// NaN with equal_nan; integers are compared in the default float dtype.
func lowerIsClose(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("other")
	rtol, atol, eqNaN := a.Float("rtol"), a.Float("atol"), a.Bool("equal_nan")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.DType(x) != c.DType(y) {
		return nil, c.Errorf("%s did not match %s", c.DType(x).Torch(), c.DType(y).Torch())
	}
	if rtol < 0 {
		return nil, c.Errorf("rtol must be greater than or equal to zero, but got %v", rtol)
	}
	if atol < 0 {
		return nil, c.Errorf("atol must be greater than or equal to zero, but got %v", atol)
	}
	shape := c.BroadcastShapes(c.Shape(x), c.Shape(y))
	if c.Err() != nil {
		return nil, c.Err()
	}
	x, y = c.BroadcastTo(x, shape), c.BroadcastTo(y, shape)
	dt := c.DType(x)
	close := c.Compare("EQ", x, y)
	float := dt.IsFloat() || dt.IsComplex()
	if eqNaN && float {
		close = c.Binary("or", close, c.Binary("and", c.IsNaN(x), c.IsNaN(y)))
	}
	if atol == 0 && rtol == 0 {
		return one(close), nil
	}
	if !float {
		x, y = c.Convert(x, dtype.DefaultFloat), c.Convert(y, dtype.DefaultFloat)
		dt = dtype.DefaultFloat
	}
	absT := func(v *stablehlo.Value) *stablehlo.Value {
		r := c.Unary("abs", v)
		return r
	}
	real := dt
	if dt.IsComplex() {
		real = dtype.F32
		if dt == dtype.C128 {
			real = dtype.F64
		}
	}
	allowed := c.Binary("add", c.Splat(real, shape, atol), absT(c.Binary("multiply", y, c.Splat(dt, shape, rtol))))
	actual := absT(c.Binary("subtract", x, y))
	finite := c.Compare("LT", c.Unary("abs", actual), c.Splat(real, shape, math.Inf(1)))
	ok := c.Binary("and", finite, c.Compare("LE", actual, allowed))
	return one(c.Binary("or", close, ok)), nil
}
