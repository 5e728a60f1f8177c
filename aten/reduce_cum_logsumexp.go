package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// logcumsumexp as a prefix window (see prefixWindow) whose body is
// PyTorch's log_add_exp_helper: log1p(exp(min - max)) + max, except that
// two equal infinities give the first one back (so -inf stays -inf and
// inf stays inf instead of becoming NaN), and a NaN on either side gives
// NaN. -inf is the identity. float32, float16 and bfloat16 accumulate in
// float64 as the CPU kernel does (acc_type); complex inputs are not
// supported.

func init() {
	lower("aten::logcumsumexp", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		out := c.DType(x)
		if !out.IsFloat() {
			return nil, c.Errorf("logcumsumexp: %v is not supported (floating point inputs only, as in PyTorch)", out.Torch())
		}
		v := c.Convert(x, accType(c, out))
		dim, ok := cumDim(c, a, v)
		if !ok {
			return one(x), c.Err()
		}
		dt := c.DType(v)
		scalar := stablehlo.Tensor(dt)
		reg := c.Region([]stablehlo.Type{scalar, scalar}, func(s *LowerCtx, p []*stablehlo.Value) []*stablehlo.Value {
			acc, y := p[0], p[1]
			lo, hi := s.Binary("minimum", acc, y), s.Binary("maximum", acc, y)
			sum := s.Binary("add", s.Unary("log_plus_one", s.Unary("exponential", s.Binary("subtract", lo, hi))), hi)
			inf := s.Compare("EQ", s.Unary("abs", lo), s.Splat(dt, nil, math.Inf(1)))
			same := s.Binary("and", s.Compare("EQ", lo, hi), inf)
			return []*stablehlo.Value{s.Select(same, acc, sum)}
		})
		res := prefixWindow(c, []*stablehlo.Value{v}, []*stablehlo.Value{c.Splat(dt, nil, math.Inf(-1))}, dim, reg)
		if len(res) != 1 {
			return nil, c.Errorf("logcumsumexp: reduce_window produced %d results", len(res))
		}
		return one(c.Convert(res[0], out)), nil
	})
}
