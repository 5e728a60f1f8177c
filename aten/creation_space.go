package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// linspace and logspace in every overload (start and end as numbers or
// 0-d tensors), as PyTorch's CPU kernel computes them: step =
// (end - start) / (steps - 1) in the result type (double for integer
// results), the first half of the points counted from start and the
// second from end; logspace raises base to those points. An integer result
// truncates start and end to its type before the step is computed.

func init() {
	for _, ov := range []string{"default", "Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor"} {
		lower("aten::linspace."+ov, lowerSpace(false))
		lower("aten::logspace."+ov, lowerSpace(true))
	}
}

// endpoint reads start or end, a number or a 0-d tensor, as the real and
// imaginary parts, 0-d values of the wide float type.
func endpoint(c *LowerCtx, a *Args, name string) (re, im *stablehlo.Value) {
	w := c.Wide()
	v := a.Value(name)
	if v.Kind == KTensor {
		t := a.Tensor(name)
		if t == nil {
			return c.Splat(w, nil, 0), c.Splat(w, nil, 0)
		}
		if c.Rank(t) != 0 {
			c.Errorf("linspace only supports 0-dimensional start and end tensors, but got tensors with %d dimension(s)", c.Rank(t))
		}
		t = c.Reshape(t, nil)
		if c.DType(t).IsComplex() {
			return c.Convert(c.Unary("real", t), w), c.Convert(c.Unary("imag", t), w)
		}
		return c.Convert(t, w), c.Splat(w, nil, 0)
	}
	s := a.Scalar(name)
	if s.Kind == KComplex {
		return c.Splat(w, nil, real(s.C)), c.Splat(w, nil, imag(s.C))
	}
	return c.Splat(w, nil, s.Float()), c.Splat(w, nil, 0)
}

func lowerSpace(log bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		sr, si := endpoint(c, a, "start")
		er, ei := endpoint(c, a, "end")
		n := a.Int("steps")
		base := 10.0
		if log {
			base = a.Float("base")
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Err() != nil {
			return nil, c.Err()
		}
		if n < 0 {
			return nil, c.Errorf("number of steps must be non-negative")
		}
		dt := dtypeOr(a, dtype.DefaultFloat)
		shape := []int64{n}
		if n == 0 {
			return one(c.Splat(dt, shape, 0)), nil
		}
		if !dt.IsComplex() {
			return one(c.Convert(spacePoints(c, sr, er, n, dt, log, base), dt)), nil
		}
		part := dtype.F32
		if dt == dtype.C128 {
			part = dtype.F64
		}
		re := c.Convert(spacePoints(c, sr, er, n, part, false, 0), part)
		im := c.Convert(spacePoints(c, si, ei, n, part, false, 0), part)
		pts := c.Op1("stablehlo.complex", []*stablehlo.Value{re, im}, nil)
		if log {
			// base^p = exp(p·log(base)), log of a negative base complex.
			lb := math.Log(math.Abs(base))
			arg := 0.0
			if base < 0 {
				arg = math.Pi
			}
			l := c.Op1("stablehlo.complex", []*stablehlo.Value{c.Splat(part, shape, lb), c.Splat(part, shape, arg)}, nil)
			pts = c.Unary("exponential", c.Binary("multiply", pts, l))
		}
		return one(pts), nil
	}
}

// spacePoints computes the points in step_t: the result type for floats,
// double for integers (as OpMath, float16 steps rounded to float16).
func spacePoints(c *LowerCtx, start, end *stablehlo.Value, n int64, dt dtype.DType, log bool, base float64) *stablehlo.Value {
	shape := []int64{n}
	st := dt
	if !dt.IsFloat() {
		st = c.Wide()
	}
	cdt := OpMath(st)
	if !dt.IsFloat() {
		// PyTorch reads start and end as the result type first
		// (start.to<scalar_t>()): an integer result truncates them.
		start, end = c.Convert(start, dt), c.Convert(end, dt)
	}
	s0, e0 := c.Convert(c.Convert(start, st), cdt), c.Convert(c.Convert(end, st), cdt)
	var pts *stablehlo.Value
	if n == 1 {
		pts = c.BroadcastTo(s0, shape)
	} else {
		step := c.Binary("divide", c.Binary("subtract", e0, s0), c.Splat(cdt, nil, float64(n-1)))
		step = c.Convert(c.Convert(step, st), cdt)
		i := c.Iota(cdt, shape, 0)
		sb, eb, stepB := c.BroadcastTo(s0, shape), c.BroadcastTo(e0, shape), c.BroadcastTo(step, shape)
		lo := c.Binary("add", sb, c.Binary("multiply", stepB, i))
		rev := c.Binary("subtract", c.Splat(cdt, shape, float64(n-1)), i)
		hi := c.Binary("subtract", eb, c.Binary("multiply", stepB, rev))
		half := c.Compare("LT", c.Iota(dtype.I64, shape, 0), c.SplatInt(dtype.I64, shape, n/2))
		pts = c.Select(half, lo, hi)
	}
	if log {
		pts = c.Binary("power", c.Splat(cdt, shape, base), pts)
	}
	return pts
}
