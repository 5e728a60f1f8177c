package aten

import (
	"math"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The backward ops of the activations and losses that autograd calls
// (AOTAutograd decomposes them before torch.compile's graphs, but the tpu
// device sees them op by op): each one elementwise module, with PyTorch's
// CPU formulas, computed in op-math precision (float32 for float16 and
// bfloat16) and rounded once.

// actBackward registers an elementwise backward op of two tensors,
// grad_output and x (the schema's second tensor), computed by fn.
func actBackward(schema string, second string, fn func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value) {
	name, _, _ := strings.Cut(schema, "(") // the schema itself is parsed when first used
	name = "aten::" + name
	Register(Entry{Name: name, Kind: Lowered, Schema: schema, Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
		ops := []Operand{a.Operand("grad_output"), a.Operand(second)}
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.ResultType(ops...)
		requireFloat(c, name, dt)
		return one(pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			return fn(c, a, xs[0], xs[1])
		}, ops...)), nil
	}})
}

// scalarLike is scalar argument name as a tensor like x (x's dtype and
// shape).
func scalarLike(c *LowerCtx, a *Args, name string, x *stablehlo.Value) *stablehlo.Value {
	return c.ScalarFull(a.Scalar(name), c.DType(x), c.Shape(x))
}

// C's M_SQRT2, M_SQRT1_2 and M_2_SQRTPI, as PyTorch's kernels and decompositions combine
// them in double (variables: each product rounds as it does there)
var mSqrt2, mSqrtHalf, m2SqrtPi = 1.41421356237309504880, 0.70710678118654752440, 1.12837916709551257390

func mul(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value { return c.Binary("multiply", a, b) }
func add(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value { return c.Binary("add", a, b) }
func sub(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value { return c.Binary("subtract", a, b) }

func init() {
	actBackward(`gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			approx, _ := a.OptStr("approximate")
			switch approx {
			case "tanh":
				// PyTorch's GeluBackwardKernelImpl, tanh approximation
				kBeta := mSqrt2 * m2SqrtPi * 0.5
				const kKappa = 0.044715
				xSq := mul(c, x, x)
				xCube := mul(c, xSq, x)
				inner := scale(c, add(c, x, scale(c, xCube, kKappa)), kBeta)
				t := c.Unary("tanh", inner)
				left := scale(c, x, 0.5)
				right := add(c, c.Like(x, 1), t)
				leftD := scale(c, right, 0.5)
				tanhD := sub(c, c.Like(x, 1), mul(c, t, t))
				innerD := scale(c, add(c, c.Like(x, 1), mul(c, mul(c, c.Like(x, 3), c.Like(x, kKappa)), xSq)), kBeta)
				rightD := mul(c, mul(c, left, tanhD), innerD)
				return mul(c, g, add(c, leftD, rightD))
			case "none", "":
				// the op order of PyTorch's decomposition, whose chain the
				// native backend runs as one vector loop
				kAlpha := mSqrtHalf
				kBeta := m2SqrtPi * mSqrtHalf * 0.5
				cdf := scale(c, add(c, c.Like(x, 1), c.Chlo("erf", scale(c, x, kAlpha))), 0.5)
				pdf := scale(c, c.Unary("exponential", scale(c, mul(c, x, x), -0.5)), kBeta)
				return mul(c, g, add(c, cdf, mul(c, x, pdf)))
			}
			c.Errorf("gelu_backward: approximate must be 'none' or 'tanh', not %q", approx)
			return g
		})
	actBackward(`threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			// x <= threshold ? 0 : grad (a NaN x passes the gradient)
			return c.Select(c.Compare("LE", x, scalarLike(c, a, "threshold", x)), c.Like(g, 0), g)
		})
	actBackward(`sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor`, "output",
		func(c *LowerCtx, a *Args, g, y *stablehlo.Value) *stablehlo.Value {
			return mul(c, mul(c, g, sub(c, c.Like(y, 1), y)), y)
		})
	actBackward(`tanh_backward(Tensor grad_output, Tensor output) -> Tensor`, "output",
		func(c *LowerCtx, a *Args, g, y *stablehlo.Value) *stablehlo.Value {
			return mul(c, g, sub(c, c.Like(y, 1), mul(c, y, y)))
		})
	actBackward(`silu_backward(Tensor grad_output, Tensor self) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			// dy · σ(x) · (1 + x · (1 - σ(x)))
			sig := c.Binary("divide", c.Like(x, 1), add(c, c.Like(x, 1), c.Unary("exponential", c.Unary("negate", x))))
			return mul(c, mul(c, g, sig), add(c, c.Like(x, 1), mul(c, x, sub(c, c.Like(x, 1), sig))))
		})
	actBackward(`hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			// PyTorch's vector loop: grad where min < x < max, else 0 (a
			// NaN x included; its scalar loop, for the last elements of a
			// row, passes a NaN's gradient)
			in := c.Binary("and", c.Compare("GT", x, scalarLike(c, a, "min_val", x)), c.Compare("LT", x, scalarLike(c, a, "max_val", x)))
			return c.Select(in, g, c.Like(g, 0))
		})
	actBackward(`hardswish_backward(Tensor grad_output, Tensor self) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			mid := mul(c, g, add(c, c.Binary("divide", x, c.Like(x, 3)), c.Like(x, 0.5)))
			r := c.Select(c.Compare("LE", x, c.Like(x, 3)), mid, g)
			return c.Select(c.Compare("LT", x, c.Like(x, -3)), c.Like(g, 0), r)
		})
	actBackward(`hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			in := c.Binary("and", c.Compare("GT", x, c.Like(x, -3)), c.Compare("LT", x, c.Like(x, 3)))
			// PyTorch's constant is 1.0f/6.0f in every dtype
			return c.Select(in, scale(c, g, float64(float32(1.0)/6)), c.Like(g, 0))
		})
	actBackward(`leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			return c.Select(c.Compare("GT", x, c.Like(x, 0)), g, mul(c, g, scalarLike(c, a, "negative_slope", x)))
		})
	actBackward(`elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, Tensor self_or_result) -> Tensor`, "self_or_result",
		func(c *LowerCtx, a *Args, g, b *stablehlo.Value) *stablehlo.Value {
			negcoef := c.Like(b, a.Float("alpha")*a.Float("scale"))
			poscoef, negiptcoef := c.Like(b, a.Float("scale")), c.Like(b, a.Float("input_scale"))
			var neg *stablehlo.Value
			if a.Bool("is_result") {
				neg = mul(c, mul(c, g, negiptcoef), add(c, b, negcoef))
			} else {
				neg = mul(c, mul(c, mul(c, g, negiptcoef), negcoef), c.Unary("exponential", mul(c, b, negiptcoef)))
			}
			return c.Select(c.Compare("LE", b, c.Like(b, 0)), neg, mul(c, g, poscoef))
		})
	actBackward(`softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor`, "self",
		func(c *LowerCtx, a *Args, g, x *stablehlo.Value) *stablehlo.Value {
			bx := mul(c, x, c.Like(x, a.Float("beta")))
			z := c.Unary("exponential", bx)
			soft := c.Binary("divide", mul(c, g, z), add(c, z, c.Like(x, 1)))
			return c.Select(c.Compare("GT", bx, c.Like(x, a.Float("threshold"))), g, soft)
		})

	Register(Entry{Name: "aten::mse_loss_backward", Kind: Lowered,
		Schema: "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor",
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Tensor("self"), a.Tensor("target")
			red := a.Int("reduction")
			if a.Err() != nil {
				return nil, a.Err()
			}
			ops := []Operand{TensorOperand(x), TensorOperand(y), a.Operand("grad_output")}
			dt := c.ResultType(ops...)
			requireFloat(c, "aten::mse_loss_backward", dt)
			norm := 2.0
			if red == 1 { // mean
				norm = 2 / float64(max(1, prod(c.Shape(x))))
				if prod(c.Shape(x)) == 0 {
					norm = math.Inf(1)
				}
			}
			return one(pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
				return mul(c, scale(c, sub(c, xs[0], xs[1]), norm), xs[2])
			}, ops...)), nil
		}})

	Register(Entry{Name: "aten::_log_softmax_backward_data", Kind: Lowered,
		Schema: "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
		Lower: softmaxBackward("_log_softmax_backward_data",
			func(c *LowerCtx, g, y *stablehlo.Value) *stablehlo.Value { return g },
			func(c *LowerCtx, g, y, s *stablehlo.Value) *stablehlo.Value {
				return sub(c, g, mul(c, c.Unary("exponential", y), s)) // grad - exp(output)·Σ grad
			})})

	Register(Entry{Name: "aten::nll_loss_backward", Kind: Lowered,
		Schema: "nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor",
		Lower:  lowerNLLLossBackward})
}

// softmaxBackward lowers a softmax's or log-softmax's backward (grad_output,
// output, dim, input_dtype): in the output's op-math dtype, result(g, y, s)
// with s the sum of summand(g, y) over dim, kept and broadcast back, and
// the result in input_dtype.
func softmaxBackward(name string, summand func(c *LowerCtx, g, y *stablehlo.Value) *stablehlo.Value,
	result func(c *LowerCtx, g, y, s *stablehlo.Value) *stablehlo.Value) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		g, y := a.Tensor("grad_output"), a.Tensor("output")
		dim := a.Int("dim")
		in := a.DType("input_dtype")
		if a.Err() != nil {
			return nil, a.Err()
		}
		r := c.Rank(y)
		d, err := canonDim(dim, max(r, 1))
		if err != nil {
			return nil, c.Errorf("%s: %w", name, err)
		}
		w := OpMath(c.DType(y))
		gw, yw := c.Convert(g, w), c.Convert(y, w)
		s := summand(c, gw, yw)
		if r > 0 {
			s = c.BroadcastTo(c.Reshape(c.Reduce(s, []int64{int64(d)}, "add", 0), keptShape(c.Shape(y), []int64{int64(d)}, true)), c.Shape(y))
		}
		return one(c.Convert(result(c, gw, yw, s), in)), nil
	}
}

// lowerNLLLossBackward: the gradient of nll_loss over self ([N, C] or
// [C]) is zero but at each row's target class, where it is
// -weight[target] · grad (grad_output[i] without reduction, over
// total_weight for the mean), and zero for rows whose target is
// ignore_index.
func lowerNLLLossBackward(c *LowerCtx, a *Args) ([]Value, error) {
	gout, x, t := a.Tensor("grad_output"), a.Tensor("self"), a.Tensor("target")
	w := a.OptTensor("weight")
	red, ignore := a.Int("reduction"), a.Int("ignore_index")
	tw := a.Tensor("total_weight")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	requireFloat(c, "aten::nll_loss_backward", dt)
	shape := c.Shape(x)
	if len(shape) != 1 && len(shape) != 2 {
		return nil, c.Errorf("nll_loss_backward: self must be 1-D or 2-D, got %v", shape)
	}
	cd := len(shape) - 1 // the class dim
	om := OpMath(dt)
	// the gradient's value per row (a scalar, or [N] without reduction)
	g := c.Unary("negate", c.Convert(gout, om))
	if red == 1 { // mean
		g = c.Binary("divide", g, c.Convert(tw, om))
	}
	var gb *stablehlo.Value
	if red == 0 && len(shape) == 2 {
		gb = c.BroadcastInDim(g, shape, []int64{0})
	} else {
		gb = c.BroadcastInDim(c.Reshape(g, nil), shape, nil)
	}
	if w != nil {
		gb = mul(c, c.BroadcastInDim(c.Convert(w, om), shape, []int64{int64(cd)}), gb)
	}
	ti := c.Convert(t, dtype.I64)
	var tb *stablehlo.Value
	if len(shape) == 2 {
		tb = c.BroadcastInDim(ti, shape, []int64{0})
	} else {
		tb = c.BroadcastInDim(c.Reshape(ti, nil), shape, nil)
	}
	hit := c.Binary("and", c.Compare("EQ", c.Iota(dtype.I64, shape, cd), tb), c.Compare("NE", tb, c.SplatInt(dtype.I64, shape, ignore)))
	return one(c.Convert(c.Select(hit, gb, c.Splat(om, shape, 0)), dt)), nil
}
