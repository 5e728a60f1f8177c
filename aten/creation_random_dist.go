package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Sampling ops that fill a tensor like self from a distribution
// (uniform_, normal_, cauchy_, exponential_, geometric_, log_normal_ and
// their functional forms), bernoulli, normal with tensor parameters and
// multinomial. Draws are computed in the wide float type from the
// generator of creation_random.go and rounded once to self's dtype. The
// distributions are PyTorch's (its CPU formulas), the values are not.

// fillLike registers a sampler whose result has self's dtype and shape.
func fillLike(name string, draw func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value) {
	lower(name, func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		w := c.Wide()
		r := draw(c, a, w, shape)
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Err() != nil {
			return nil, c.Err()
		}
		return one(c.Convert(r, c.DType(x))), nil
	})
}

func init() {
	affine := func(c *LowerCtx, v *stablehlo.Value, mul, add float64) *stablehlo.Value {
		s := c.Shape(v)
		w := c.DType(v)
		return c.Binary("add", c.Binary("multiply", v, c.Splat(w, s, mul)), c.Splat(w, s, add))
	}
	fillLike("aten::uniform", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		from, to := a.Float("from"), a.Float("to")
		if from > to {
			c.Errorf("uniform_ expects to return a [from, to) range, but found from=%v > to=%v", from, to)
		}
		return affine(c, uniform(c, w, shape), to-from, from)
	})
	normalFill := func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		mean, std := a.Float("mean"), a.Float("std")
		if std < 0 {
			c.Errorf("normal expects std >= 0.0, but found std %v", std)
		}
		return affine(c, normal(c, w, shape), std, mean)
	}
	fillLike("aten::normal_functional", normalFill)
	fillLike("aten::normal_", normalFill)
	fillLike("aten::cauchy", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		med, sigma := a.Float("median"), a.Float("sigma")
		u := affine(c, uniform(c, w, shape), math.Pi, -math.Pi/2)
		return affine(c, c.Unary("tan", u), sigma, med)
	})
	fillLike("aten::exponential", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		l := a.Float("lambd")
		if l <= 0 {
			c.Errorf("exponential_ expects lambda > 0.0, but found lambda=%v", l)
		}
		// -log(1 - u) / lambda, u in [0, 1).
		lg := c.Unary("log_plus_one", c.Unary("negate", uniform(c, w, shape)))
		return c.Binary("divide", c.Unary("negate", lg), c.Splat(w, shape, l))
	})
	fillLike("aten::geometric", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		p := a.Float("p")
		if p <= 0 || p >= 1 {
			c.Errorf("geometric_ expects p to be in (0, 1), but got p=%v", p)
		}
		// ceil(log(u) / log(1 - p)) with u in (0, 1]: trials until the
		// first success, at least 1.
		u := c.Binary("subtract", c.Splat(w, shape, 1), uniform(c, w, shape))
		r := c.Unary("ceil", c.Binary("divide", c.Unary("log", u), c.Splat(w, shape, math.Log1p(-p))))
		return c.Binary("maximum", r, c.Splat(w, shape, 1))
	})
	fillLike("aten::log_normal", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		mean, std := a.Float("mean"), a.Float("std")
		if std <= 0 {
			c.Errorf("log_normal_ expects std > 0.0, but found std=%v", std)
		}
		return c.Unary("exponential", affine(c, normal(c, w, shape), std, mean))
	})
	fillLike("aten::bernoulli.p", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		p := a.Float("p")
		if p < 0 || p > 1 {
			c.Errorf("bernoulli_ expects p to be in [0, 1], but got p=%v", p)
		}
		return c.Compare("LT", uniform(c, w, shape), c.Splat(w, shape, p))
	})
	fillLike("aten::bernoulli", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		// self holds the probabilities.
		return c.Compare("LT", uniform(c, w, shape), c.Convert(a.Tensor("self"), w))
	})
	fillLike("aten::bernoulli.Tensor", func(c *LowerCtx, a *Args, w dtype.DType, shape []int64) *stablehlo.Value {
		p := a.Tensor("p")
		return c.Compare("LT", uniform(c, w, shape), c.BroadcastTo(c.Convert(p, w), shape))
	})
	lower("aten::normal.Tensor_Tensor", lowerNormalTensor)
	lower("aten::normal.Tensor_float", lowerNormalTensor)
	lower("aten::normal.float_Tensor", lowerNormalTensor)
	lower("aten::multinomial", lowerMultinomial)
	lower("aten::normal.float_float", func(c *LowerCtx, a *Args) ([]Value, error) {
		mean, std := a.Float("mean"), a.Float("std")
		size := a.Ints("size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if std < 0 {
			return nil, c.Errorf("normal expects std >= 0.0, but found std %v", std)
		}
		dt := floatDType(c, a, dtype.DefaultFloat)
		w := c.Wide()
		z := normal(c, w, size)
		r := c.Binary("add", c.Binary("multiply", z, c.Splat(w, size, std)), c.Splat(w, size, mean))
		return one(c.Convert(r, dt)), nil
	})
}

// lowerNormalTensor: mean + std·N(0, 1) with mean and std broadcast (one
// of them may be a number); the result has their promoted float dtype.
func lowerNormalTensor(c *LowerCtx, a *Args) ([]Value, error) {
	mean, std := a.Operand("mean"), a.Operand("std")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := floatResult(c.ResultType(mean, std))
	w := c.Wide()
	vs := c.Broadcast(w, mean, std)
	if c.Err() != nil {
		return nil, c.Err()
	}
	shape := c.Shape(vs[0])
	z := normal(c, w, shape)
	return one(c.Convert(c.Binary("add", vs[0], c.Binary("multiply", vs[1], z)), dt)), nil
}

// lowerMultinomial samples category indices from the rows of self
// (non-negative weights): with replacement by inverting the cumulative
// distribution, without it by the Gumbel top-k trick (the k largest of
// log(w) + Gumbel noise are a sample without replacement).
func lowerMultinomial(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	k, repl := a.Int("num_samples"), a.Bool("replacement")
	if a.Err() != nil {
		return nil, a.Err()
	}
	s := c.Shape(x)
	if len(s) < 1 || len(s) > 2 {
		return nil, c.Errorf("prob_dist must be 1 or 2 dim")
	}
	if !c.DType(x).IsFloat() {
		return nil, c.Errorf("multinomial only supports floating-point dtypes for input, got: %s", c.DType(x).Torch())
	}
	if k <= 0 {
		return nil, c.Errorf("cannot sample n_sample <= 0 samples")
	}
	n := s[len(s)-1]
	if !repl && k > n {
		return nil, c.Errorf("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
	}
	w := c.Wide()
	p := c.Convert(x, w)
	if len(s) == 1 {
		p = c.Reshape(p, []int64{1, n})
	}
	rows := c.Shape(p)[0]
	var idx *stablehlo.Value
	if repl {
		cum := c.Call1("aten::cumsum", TensorValue(p), IntValue(1))
		total := sliceDim(c, cum, 1, n-1, 1, 1)
		u := c.Binary("multiply", uniform(c, w, []int64{rows, k}), c.BroadcastTo(total, []int64{rows, k}))
		// The first category whose cumulative weight exceeds u.
		cb := c.BroadcastInDim(cum, []int64{rows, k, n}, []int64{0, 2})
		ub := c.BroadcastInDim(u, []int64{rows, k, n}, []int64{0, 1})
		le := c.Convert(c.Compare("LE", cb, ub), dtype.I64)
		idx = c.Reduce(le, []int64{2}, "add", 0)
		idx = c.Binary("minimum", idx, c.SplatInt(dtype.I64, []int64{rows, k}, n-1))
	} else {
		u := uniform(c, w, []int64{rows, n})
		// Gumbel noise -log(-log(u)), u in (0, 1).
		u = c.Binary("add", u, c.Splat(w, []int64{rows, n}, math.SmallestNonzeroFloat32))
		g := c.Unary("negate", c.Unary("log", c.Unary("negate", c.Unary("log", u))))
		keys := c.Binary("add", c.Unary("log", p), g)
		out, err := c.Call("aten::topk", []Value{TensorValue(keys), IntValue(k), IntValue(1)}, nil)
		if err != nil {
			return nil, err
		}
		idx = out[1].T
	}
	if len(s) == 1 {
		idx = c.Reshape(idx, []int64{k})
	}
	return one(idx), nil
}
