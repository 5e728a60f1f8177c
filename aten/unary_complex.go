package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Complex parts: real, imag, conj (materialised; PyTorch's lazy conj bit
// is invisible to a functional program), complex, polar, view_as_real and
// view_as_complex (a trailing dim of 2 ↔ complex elements).

func init() {
	lower("aten::real.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsComplex() {
			return one(x), nil
		}
		return one(c.Unary("real", x)), nil
	})
	lower("aten::imag.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsComplex() {
			return nil, c.Errorf("imag is not implemented for tensors with non-complex dtypes")
		}
		return one(c.Unary("imag", x)), nil
	})
	conj := func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsComplex() {
			return one(x), nil
		}
		return one(c.Binary("complex", c.Unary("real", x), c.Unary("negate", c.Unary("imag", x)))), nil
	}
	for _, n := range []string{"conj", "_conj", "conj_physical", "_conj_physical"} {
		lower("aten::"+n+".default", conj)
	}
	lower("aten::complex.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		re, im := a.Tensor("real"), a.Tensor("imag")
		d := c.DType(re)
		if d != c.DType(im) || (d != dtype.F32 && d != dtype.F64) {
			return nil, c.Errorf("complex: expected real and imag of the same dtype, float32 or float64, got %s and %s", torchName(d), torchName(c.DType(im)))
		}
		vs := c.Broadcast(d, TensorOperand(re), TensorOperand(im))
		return one(c.Binary("complex", vs[0], vs[1])), nil
	})
	lower("aten::polar.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		r, th := a.Tensor("abs"), a.Tensor("angle")
		d := c.DType(r)
		if d != c.DType(th) || (d != dtype.F32 && d != dtype.F64) {
			return nil, c.Errorf("polar: expected abs and angle of the same dtype, float32 or float64")
		}
		vs := c.Broadcast(d, TensorOperand(r), TensorOperand(th))
		re := c.Binary("multiply", vs[0], c.Unary("cosine", vs[1]))
		im := c.Binary("multiply", vs[0], c.Unary("sine", vs[1]))
		return one(c.Binary("complex", re, im)), nil
	})
	lower("aten::view_as_real.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsComplex() {
			return nil, c.Errorf("view_as_real is only supported for complex tensors")
		}
		shape := append(append([]int64{}, c.Shape(x)...), 1)
		re := c.Reshape(c.Unary("real", x), shape)
		im := c.Reshape(c.Unary("imag", x), shape)
		return one(c.Op1("stablehlo.concatenate", []*stablehlo.Value{re, im},
			[]stablehlo.NamedAttr{Attr("dimension", &stablehlo.IntAttr{Value: int64(len(shape) - 1)})})), nil
	})
	lower("aten::view_as_complex.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		shape := c.Shape(x)
		if len(shape) == 0 || shape[len(shape)-1] != 2 || (c.DType(x) != dtype.F32 && c.DType(x) != dtype.F64) {
			return nil, c.Errorf("view_as_complex: expected a float32/float64 tensor whose last dim is 2, got %v", c.Type(x))
		}
		r := len(shape) - 1
		out := shape[:r]
		re := c.Reshape(sliceLast(c, x, 0), out)
		im := c.Reshape(sliceLast(c, x, 1), out)
		return one(c.Binary("complex", re, im)), nil
	})
}

// sliceLast takes index i of the last dim, keeping it as size 1.
func sliceLast(c *LowerCtx, x *stablehlo.Value, i int64) *stablehlo.Value {
	shape := c.Shape(x)
	starts, limits, strides := make([]int64, len(shape)), append([]int64{}, shape...), make([]int64, len(shape))
	for d := range strides {
		strides[d] = 1
	}
	starts[len(shape)-1], limits[len(shape)-1] = i, i+1
	return c.Op1("stablehlo.slice", []*stablehlo.Value{x}, []stablehlo.NamedAttr{
		I64s("start_indices", starts), I64s("limit_indices", limits), I64s("strides", strides),
	})
}
