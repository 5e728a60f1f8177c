package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Reductions with PyTorch's dtypes: sum/prod of bool and integers give
// int64; mean/var/std need floats; amax/amin keep the dtype. float16 and
// bfloat16 accumulate in float32, float32 in float64 (PyTorch's CPU
// accumulates float32 in float or double depending on the kernel; the wider
// one keeps results within a rounding of its own). An empty dim list means
// every dim.

// reduceDims resolves a dim argument (nil/None or [] = all dims) against a
// rank. A 0-dim tensor reduces over nothing.
func reduceDims(c *LowerCtx, dims []int64, all bool, rank int) []int64 {
	if rank == 0 {
		for _, d := range dims {
			if d != 0 && d != -1 {
				c.Errorf("dim %d out of range for a 0-dim tensor", d)
			}
		}
		return nil
	}
	if all || len(dims) == 0 {
		out := make([]int64, rank)
		for i := range out {
			out[i] = int64(i)
		}
		return out
	}
	cd, err := canonDims(dims, rank)
	if err != nil {
		c.Errorf("%w", err)
		return nil
	}
	out := make([]int64, len(cd))
	for i, d := range cd {
		out[i] = int64(d)
	}
	return out
}

// optDims reads an int[]? dim parameter.
func optDims(c *LowerCtx, a *Args, name string, rank int) []int64 {
	d, ok := a.OptInts(name)
	return reduceDims(c, d, !ok, rank)
}

// keptShape is the result shape of reducing dims: dropped, or kept as 1.
func keptShape(shape []int64, dims []int64, keep bool) []int64 {
	out := []int64{}
	for i, n := range shape {
		if containsDim(dims, i) {
			if keep {
				out = append(out, 1)
			}
			continue
		}
		out = append(out, n)
	}
	return out
}

func containsDim(dims []int64, d int) bool {
	for _, x := range dims {
		if int(x) == d {
			return true
		}
	}
	return false
}

// accType is the dtype a reduction accumulates in.
func accType(c *LowerCtx, d dtype.DType) dtype.DType {
	switch d {
	case dtype.F16, dtype.BF16, dtype.F32:
		return c.Wide()
	}
	return d
}

// reduceTo reduces v (already in its accumulation dtype) over dims with
// body/init, reshapes for keepdim and converts to out.
func reduceTo(c *LowerCtx, v *stablehlo.Value, dims []int64, keep bool, body string, init float64, out dtype.DType) *stablehlo.Value {
	return reduceToWith(c, v, dims, keep, body, c.Splat(c.DType(v), nil, init), out)
}

func reduceToWith(c *LowerCtx, v *stablehlo.Value, dims []int64, keep bool, body string, init *stablehlo.Value, out dtype.DType) *stablehlo.Value {
	shape := c.Shape(v)
	r := v
	if len(dims) > 0 {
		r = c.ReduceWith(v, dims, body, init)
	}
	return c.Convert(c.Reshape(r, keptShape(shape, dims, keep)), out)
}

// sumDType is the result dtype of sum/prod: the dtype argument, else int64
// for bool and integers, else the input's.
func sumDType(a *Args, in dtype.DType) dtype.DType {
	if d, ok := a.OptDType("dtype"); ok {
		return d
	}
	if in == dtype.Bool || in.IsInteger() {
		return dtype.I64
	}
	return in
}

// numel is the number of elements reduced over dims.
func numel(shape []int64, dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= shape[d]
	}
	return n
}

func lowerSum(c *LowerCtx, a *Args, dims []int64, keep bool) *stablehlo.Value {
	x := a.Tensor("self")
	out := sumDType(a, c.DType(x))
	v := c.Convert(x, accType(c, out))
	return reduceTo(c, v, dims, keep, "add", 0, out)
}

func lowerMean(c *LowerCtx, a *Args, dims []int64, keep bool) *stablehlo.Value {
	x := a.Tensor("self")
	out := c.DType(x)
	if d, ok := a.OptDType("dtype"); ok {
		out = d
	}
	if !out.IsFloat() && !out.IsComplex() {
		c.Errorf("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", torchName(out))
	}
	v := c.Convert(x, accType(c, out))
	s := reduceTo(c, v, dims, keep, "add", 0, accType(c, out))
	n := numel(c.Shape(x), dims)
	return c.Convert(c.Binary("divide", s, c.Like(s, float64(n))), out)
}

func init() {
	lower("aten::sum.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(lowerSum(c, a, reduceDims(c, nil, true, c.Rank(a.Tensor("self"))), false)), nil
	})
	lower("aten::sum.dim_IntList", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(lowerSum(c, a, optDims(c, a, "dim", c.Rank(a.Tensor("self"))), a.Bool("keepdim"))), nil
	})
	lower("aten::nansum.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if c.DType(x).IsFloat() {
			x = c.Select(c.IsNaN(x), c.Like(x, 0), x)
		}
		out := sumDType(a, c.DType(x))
		return one(reduceTo(c, c.Convert(x, accType(c, out)), optDims(c, a, "dim", c.Rank(x)), a.Bool("keepdim"), "add", 0, out)), nil
	})
	lower("aten::mean.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(lowerMean(c, a, reduceDims(c, nil, true, c.Rank(a.Tensor("self"))), false)), nil
	})
	lower("aten::mean.dim", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(lowerMean(c, a, optDims(c, a, "dim", c.Rank(a.Tensor("self"))), a.Bool("keepdim"))), nil
	})
	prod := func(c *LowerCtx, a *Args, dims []int64, keep bool) *stablehlo.Value {
		x := a.Tensor("self")
		out := sumDType(a, c.DType(x))
		if out == dtype.Bool {
			return reduceTo(c, x, dims, keep, "and", 1, out)
		}
		return reduceTo(c, c.Convert(x, accType(c, out)), dims, keep, "multiply", 1, out)
	}
	lower("aten::prod.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(prod(c, a, reduceDims(c, nil, true, c.Rank(a.Tensor("self"))), false)), nil
	})
	lower("aten::prod.dim_int", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(prod(c, a, reduceDims(c, []int64{a.Int("dim")}, false, c.Rank(a.Tensor("self"))), a.Bool("keepdim"))), nil
	})
	extreme := func(isMax bool) func(c *LowerCtx, x *stablehlo.Value, dims []int64, keep bool) *stablehlo.Value {
		return func(c *LowerCtx, x *stablehlo.Value, dims []int64, keep bool) *stablehlo.Value {
			d := c.DType(x)
			for _, dim := range dims {
				if c.Shape(x)[dim] == 0 {
					c.Errorf("max(): expected reduction dim %d to have non-zero size", dim)
				}
			}
			body := "maximum"
			if !isMax {
				body = "minimum"
			}
			if d == dtype.Bool {
				body = map[bool]string{true: "or", false: "and"}[isMax]
			}
			r := reduceToWith(c, x, dims, keep, body, limitConst(c, d, !isMax), d)
			if d.IsFloat() && len(dims) > 0 {
				// NaN anywhere in the reduced set gives NaN.
				anyNaN := reduceTo(c, c.IsNaN(x), dims, keep, "or", 0, dtype.Bool)
				r = c.Select(anyNaN, c.Like(r, math.NaN()), r)
			}
			return r
		}
	}
	for _, isMax := range []bool{true, false} {
		f := extreme(isMax)
		name := map[bool]string{true: "max", false: "min"}[isMax]
		lower("aten::a"+name+".default", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			return one(f(c, x, reduceDims(c, a.Ints("dim"), false, c.Rank(x)), a.Bool("keepdim"))), nil
		})
		lower("aten::"+name+".default", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if numel(c.Shape(x), reduceDims(c, nil, true, c.Rank(x))) == 0 {
				return nil, c.Errorf("%s(): Expected reduction dim to be specified for input.numel() == 0", name)
			}
			return one(f(c, x, reduceDims(c, nil, true, c.Rank(x)), false)), nil
		})
	}
	logical := func(body string, init float64) func(c *LowerCtx, a *Args, dims []int64, keep bool) []Value {
		return func(c *LowerCtx, a *Args, dims []int64, keep bool) []Value {
			x := boolOf(c, a.Tensor("self"))
			out := dtype.Bool
			if d := c.DType(a.Tensor("self")); d == dtype.U8 {
				out = d // PyTorch keeps uint8 for all/any
			}
			return one(reduceTo(c, x, dims, keep, body, init, out))
		}
	}
	for name, f := range map[string]func(c *LowerCtx, a *Args, dims []int64, keep bool) []Value{"all": logical("and", 1), "any": logical("or", 0)} {
		f := f
		lower("aten::"+name+".default", func(c *LowerCtx, a *Args) ([]Value, error) {
			return f(c, a, reduceDims(c, nil, true, c.Rank(a.Tensor("self"))), false), nil
		})
		lower("aten::"+name+".dim", func(c *LowerCtx, a *Args) ([]Value, error) {
			return f(c, a, reduceDims(c, []int64{a.Int("dim")}, false, c.Rank(a.Tensor("self"))), a.Bool("keepdim")), nil
		})
		lower("aten::"+name+".dims", func(c *LowerCtx, a *Args) ([]Value, error) {
			return f(c, a, optDims(c, a, "dim", c.Rank(a.Tensor("self"))), a.Bool("keepdim")), nil
		})
	}
	countNZ := func(c *LowerCtx, a *Args, dims []int64) []Value {
		x := a.Tensor("self")
		nz := c.Convert(boolOf(c, x), dtype.I64)
		return one(reduceTo(c, nz, dims, false, "add", 0, dtype.I64))
	}
	lower("aten::count_nonzero.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		d, ok := a.OptInt("dim")
		return countNZ(c, a, reduceDims(c, []int64{d}, !ok, c.Rank(x))), nil
	})
	lower("aten::count_nonzero.dim_IntList", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return countNZ(c, a, reduceDims(c, a.Ints("dim"), false, c.Rank(x))), nil
	})
	lower("aten::logsumexp.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		out := floatResult(c.DType(x))
		dims := reduceDims(c, a.Ints("dim"), false, c.Rank(x))
		keep := a.Bool("keepdim")
		v := c.Convert(x, accType(c, out))
		if len(dims) == 0 && !c.DType(v).IsComplex() {
			return one(c.Convert(v, out)), nil
		}
		re := v
		if c.DType(v).IsComplex() {
			// The shift is the largest real part.
			re = c.Unary("real", v)
		}
		m := re
		if len(dims) > 0 {
			m = c.Reduce(re, dims, "maximum", math.Inf(-1))
		}
		// An infinite max would give inf - inf: use 0 there, as PyTorch does.
		m = c.Select(c.Compare("EQ", c.Unary("abs", m), c.Like(m, math.Inf(1))), c.Like(m, 0), m)
		m = c.Convert(m, c.DType(v))
		mk := c.Reshape(m, keptShape(c.Shape(v), dims, true))
		e := c.Unary("exponential", c.Binary("subtract", v, c.BroadcastTo(mk, c.Shape(v))))
		s := e
		if len(dims) > 0 {
			s = c.Reduce(e, dims, "add", 0)
		}
		r := c.Binary("add", c.Unary("log", s), m)
		return one(c.Convert(c.Reshape(r, keptShape(c.Shape(v), dims, keep)), out)), nil
	})
}

// limitConst is the 0-dim constant of the largest (max) or smallest
// value of d: the identity of min and max reductions.
func limitConst(c *LowerCtx, d dtype.DType, max bool) *stablehlo.Value {
	switch {
	case d.IsFloat():
		return c.Splat(d, nil, math.Inf(map[bool]int{true: 1, false: -1}[max]))
	case d == dtype.Bool:
		return c.SplatInt(d, nil, b2i(max))
	case d.IsUnsigned():
		if !max {
			return c.SplatInt(d, nil, 0)
		}
		return c.SplatInt(d, nil, -1) // all ones
	}
	if max {
		return c.SplatInt(d, nil, int64(^uint64(0)>>(65-d.Bits())))
	}
	return c.SplatInt(d, nil, -int64(^uint64(0)>>(65-d.Bits()))-1)
}
