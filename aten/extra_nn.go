package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// nn ops the held-out models needed and nobody registered: rrelu (in
// evaluation leaky_relu with the mean slope, in training random slopes), cosine_similarity (ATen's
// normalise-first form), pairwise_distance, bilinear, and embedding_renorm (nn.Embedding(max_norm=…)
// rescales the looked-up rows of its weight in place; embedding_renorm_
// is derived from it).

func init() {
	decomp("aten::rrelu", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, lower, upper, training := a.Value("self"), a.Scalar("lower"), a.Scalar("upper"), a.Bool("training")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if !training {
			return c.Call("aten::leaky_relu", []Value{x, FloatValue((lower.Float() + upper.Float()) / 2)}, nil)
		}
		// Training: each negative element takes its own slope drawn
		// uniformly from [lower, upper).
		t := a.Tensor("self")
		dt := c.DType(t)
		if !dt.IsFloat() {
			return nil, fmt.Errorf("rrelu: %s is not supported", dt.Torch())
		}
		shape := c.Shape(t)
		w := OpMath(dt)
		slope := c.Binary("add", c.Binary("multiply", uniform(c, w, shape), c.Splat(w, shape, upper.Float()-lower.Float())), c.Splat(w, shape, lower.Float()))
		xw := c.Convert(t, w)
		neg := c.Compare("LT", xw, c.Splat(w, shape, 0))
		return one(c.Convert(c.Select(neg, c.Binary("multiply", xw, slope), xw), dt)), nil
	})
	decomp("aten::cosine_similarity", lowerCosineSimilarity)
	decomp("aten::embedding_renorm", lowerEmbeddingRenorm)
	decomp("aten::bilinear", func(c *LowerCtx, a *Args) ([]Value, error) {
		x1, x2, w, b := a.Tensor("input1"), a.Tensor("input2"), a.Tensor("weight"), a.OptTensor("bias")
		if a.Err() != nil {
			return nil, a.Err()
		}
		y := c.Call1("aten::einsum", StrValue("...i,oij,...j->...o"), TensorsValue([]*stablehlo.Value{x1, w, x2}))
		if b != nil {
			y = c.Call1("aten::add.Tensor", TensorValue(y), TensorValue(b))
		}
		return one(y), nil
	})
	decomp("aten::pairwise_distance", func(c *LowerCtx, a *Args) ([]Value, error) {
		x1, x2, p, eps, keep := a.Value("x1"), a.Value("x2"), a.Float("p"), a.Float("eps"), a.Bool("keepdim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		// ATen: norm(x1 - x2 + eps, p, innermost dim of the broadcast).
		d := c.Call1("aten::add.Tensor", TensorValue(c.Call1("aten::sub.Tensor", x1, x2)), FloatValue(eps))
		return c.Call("aten::linalg_vector_norm", []Value{TensorValue(d), FloatValue(p)},
			map[string]Value{"dim": IntsValue([]int64{int64(c.Rank(d) - 1)}), "keepdim": BoolValue(keep)})
	})
}

func lowerCosineSimilarity(c *LowerCtx, a *Args) ([]Value, error) {
	x1, x2, dim, eps := a.Tensor("x1"), a.Tensor("x2"), a.Int("dim"), a.Float("eps")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.ResultType(TensorOperand(x1), TensorOperand(x2))
	if !dt.IsFloat() {
		dt = dtype.F32
	}
	shape := c.BroadcastShapes(c.Shape(x1), c.Shape(x2))
	if c.Err() != nil {
		return nil, c.Err()
	}
	unit := func(x *stablehlo.Value) Value {
		v := c.BroadcastTo(c.Convert(x, dt), shape)
		n, err := c.Call("aten::linalg_vector_norm", []Value{TensorValue(v), IntValue(2)},
			map[string]Value{"dim": IntsValue([]int64{dim}), "keepdim": BoolValue(true)})
		if err != nil {
			c.Errorf("cosine_similarity: %w", err)
			return TensorValue(v)
		}
		n[0] = TensorValue(c.Call1("aten::clamp_min", n[0], FloatValue(eps)))
		return TensorValue(c.Call1("aten::div.Tensor", TensorValue(v), n[0]))
	}
	p := c.Call1("aten::mul.Tensor", unit(x1), unit(x2))
	return one(c.Call1("aten::sum.dim_IntList", TensorValue(p), IntsValue([]int64{dim}))), nil
}

// lowerEmbeddingRenorm: rows of self named by indices whose p-norm exceeds
// max_norm are scaled by max_norm / (norm + 1e-7) (the scale in double, as
// ATen computes it from the row norm it reads back).
func lowerEmbeddingRenorm(c *LowerCtx, a *Args) ([]Value, error) {
	w, idx, maxNorm, p := a.Tensor("self"), a.Tensor("indices"), a.Float("max_norm"), a.Float("norm_type")
	if a.Err() != nil {
		return nil, a.Err()
	}
	ws := c.Shape(w)
	if len(ws) != 2 {
		return nil, fmt.Errorf("embedding_renorm: weight must be 2-D, has shape %v", ws)
	}
	dt := c.DType(w)
	norm := c.Call1("aten::linalg_vector_norm", TensorValue(w), FloatValue(p), IntsValue([]int64{1}))
	n64 := c.Convert(norm, dtype.F64)
	scale := c.Binary("divide", c.Like(n64, maxNorm), c.Binary("add", n64, c.Like(n64, 1e-7)))
	scale = c.Select(c.Compare("GT", n64, c.Like(n64, maxNorm)), scale, c.Like(scale, 1))
	// Rows named by any index.
	flat := c.Convert(c.Reshape(idx, []int64{numelOf(c.Shape(idx))}), dtype.I64)
	n := c.Shape(flat)[0]
	hit := c.Compare("EQ", c.Iota(dtype.I64, []int64{ws[0], n}, 0), c.BroadcastInDim(flat, []int64{ws[0], n}, []int64{1}))
	hitRow := c.ReduceWith(c.Convert(hit, dtype.I32), []int64{1}, "maximum", c.SplatInt(dtype.I32, nil, 0))
	scale = c.Select(c.Compare("EQ", hitRow, c.Like(hitRow, 1)), scale, c.Like(scale, 1))
	s := c.BroadcastInDim(c.Convert(scale, dt), ws, []int64{0})
	return one(c.Binary("multiply", w, s)), nil
}
