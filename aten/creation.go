package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Creation ops: full and its *_like / new_* / zeros / ones / empty forms
// (empty is zero-filled), scalar_tensor, arange, linspace, eye. Without a
// dtype, full infers it from the fill value (int → int64, float → the
// default float32, bool → bool); *_like and new_* take self's;
// scalar_tensor, linspace and eye use the default float32.

// fullOf fills shape with a Python scalar converted to dt.
func fullOf(c *LowerCtx, shape []int64, s Scalar, dt dtype.DType) *stablehlo.Value {
	for _, d := range shape {
		if d < 0 {
			c.Errorf("negative dimension %d in size %v", d, shape)
			return c.Splat(dt, nil, 0)
		}
	}
	return c.ScalarFull(s, dt, shape)
}

func dtypeOr(a *Args, def dtype.DType) dtype.DType {
	if d, ok := a.OptDType("dtype"); ok {
		return d
	}
	return def
}

func init() {
	lower("aten::full.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		s := a.Scalar("fill_value")
		return one(fullOf(c, a.Ints("size"), s, dtypeOr(a, s.DType()))), nil
	})
	lower("aten::full_like.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return one(fullOf(c, c.Shape(x), a.Scalar("fill_value"), dtypeOr(a, c.DType(x)))), nil
	})
	lower("aten::new_full.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(fullOf(c, a.Ints("size"), a.Scalar("fill_value"), dtypeOr(a, c.DType(a.Tensor("self"))))), nil
	})
	constant := func(v int64, like, sized bool) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			def := dtype.DefaultFloat
			var shape []int64
			if like {
				x := a.Tensor("self")
				def, shape = c.DType(x), c.Shape(x)
			}
			if sized {
				shape = a.Ints("size")
			}
			return one(fullOf(c, shape, Scalar{Kind: KInt, I: v}, dtypeOr(a, def))), nil
		}
	}
	lower("aten::zeros.default", constant(0, false, true))
	lower("aten::ones.default", constant(1, false, true))
	lower("aten::empty.memory_format", constant(0, false, true))
	lower("aten::zeros_like.default", constant(0, true, false))
	lower("aten::ones_like.default", constant(1, true, false))
	lower("aten::empty_like.default", constant(0, true, false))
	lower("aten::new_zeros.default", constant(0, true, true))
	lower("aten::new_ones.default", constant(1, true, true))
	lower("aten::new_empty.default", constant(0, true, true))
	lower("aten::empty_strided.default", constant(0, false, true))
	lower("aten::zero.default", constant(0, true, false))
	lower("aten::fill.Scalar", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return one(fullOf(c, c.Shape(x), a.Scalar("value"), c.DType(x))), nil
	})
	lower("aten::fill.Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, v := a.Tensor("self"), a.Tensor("value")
		return one(c.BroadcastTo(c.Convert(v, c.DType(x)), c.Shape(x))), nil
	})
	lower("aten::scalar_tensor.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(c.ScalarConst(a.Scalar("s"), dtypeOr(a, dtype.DefaultFloat))), nil
	})
	arange := func(c *LowerCtx, a *Args) ([]Value, error) {
		start, step := Scalar{Kind: KInt}, Scalar{Kind: KInt, I: 1}
		if a.Schema.Param("start") >= 0 {
			start = a.Scalar("start")
		}
		if a.Schema.Param("step") >= 0 {
			step = a.Scalar("step")
		}
		end := a.Scalar("end")
		def := dtype.DefaultInt
		for _, s := range []Scalar{start, end, step} {
			if s.Kind == KFloat {
				def = dtype.DefaultFloat
			}
		}
		dt := dtypeOr(a, def)
		st := step.Float()
		if st == 0 {
			return nil, c.Errorf("arange: step must be nonzero")
		}
		nf := math.Ceil((end.Float() - start.Float()) / st)
		if math.IsNaN(nf) || math.IsInf(nf, 0) || nf > 1<<40 {
			return nil, c.Errorf("arange: invalid range [%v, %v) with step %v", start, end, step)
		}
		n := int64(math.Max(0, nf))
		if !dt.IsFloat() {
			// Integer results are computed in int64 from the truncated start
			// and step (PyTorch's accscalar_t), the length from the floats.
			i := c.Iota(dtype.I64, []int64{n}, 0)
			v := c.Binary("add", c.SplatInt(dtype.I64, []int64{n}, start.Int()), c.Binary("multiply", i, c.SplatInt(dtype.I64, []int64{n}, step.Int())))
			return one(c.Convert(v, dt)), nil
		}
		w := c.Wide()
		if dt == dtype.F64 {
			w = dt
		}
		i := c.Iota(w, []int64{n}, 0)
		v := c.Binary("add", c.Splat(w, []int64{n}, start.Float()), c.Binary("multiply", i, c.Splat(w, []int64{n}, st)))
		return one(c.Convert(v, dt)), nil
	}
	lower("aten::arange.default", arange)
	lower("aten::arange.start", arange)
	lower("aten::arange.start_step", arange)
	eye := func(c *LowerCtx, a *Args) ([]Value, error) {
		n := a.Int("n")
		m := n
		if a.Schema.Param("m") >= 0 {
			m = a.Int("m")
		}
		if n < 0 || m < 0 {
			return nil, c.Errorf("eye: n and m must be non-negative, got %d, %d", n, m)
		}
		shape := []int64{n, m}
		diag := c.Compare("EQ", c.Iota(dtype.I64, shape, 0), c.Iota(dtype.I64, shape, 1))
		return one(c.Convert(diag, dtypeOr(a, dtype.DefaultFloat))), nil
	}
	lower("aten::eye.default", eye)
	lower("aten::eye.m", eye)
}
