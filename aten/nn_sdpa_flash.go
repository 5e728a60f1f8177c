package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
)

// _scaled_dot_product_flash_attention_for_cpu: the attention output (as
// scaled_dot_product_attention computes it) and the log-sum-exp of each
// query's scores, in float32 for half types.

func init() {
	Register(Entry{Name: "aten::_scaled_dot_product_flash_attention_for_cpu", Kind: Decomposed,
		Schema: "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)",
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			q, k := a.Tensor("query"), a.Tensor("key")
			causal := a.Bool("is_causal")
			mask := a.OptTensor("attn_mask")
			scale, hasScale := a.OptFloat("scale")
			if a.Err() != nil {
				return nil, a.Err()
			}
			out, err := c.Call("aten::scaled_dot_product_attention", []Value{a.Value("query"), a.Value("key"), a.Value("value")},
				map[string]Value{"attn_mask": a.Value("attn_mask"), "dropout_p": a.Value("dropout_p"), "is_causal": a.Value("is_causal"), "scale": a.Value("scale")})
			if err != nil {
				return nil, err
			}
			qs := c.Shape(q)
			if len(qs) < 2 || c.Rank(k) != len(qs) {
				return nil, c.Errorf("_scaled_dot_product_flash_attention_for_cpu: query and key must have the same rank (at least 2), got %v and %v", qs, c.Shape(k))
			}
			cdt := OpMath(c.DType(q))
			if !hasScale {
				scale = 1 / math.Sqrt(float64(qs[len(qs)-1]))
			}
			kr := c.Rank(k)
			perm := seqI64(kr)
			perm[kr-2], perm[kr-1] = perm[kr-1], perm[kr-2]
			s, err := matmulValues(c, c.Convert(q, cdt), emitTranspose(c, c.Convert(k, cdt), perm))
			if err != nil {
				return nil, err
			}
			shape := c.Shape(s)
			s = c.Binary("multiply", s, c.Splat(cdt, shape, scale))
			ninf := c.Splat(cdt, shape, math.Inf(-1))
			if causal {
				L, S := shape[len(shape)-2], shape[len(shape)-1]
				keep := c.Compare("LE", c.Iota(dtype.I64, []int64{L, S}, 1), c.Iota(dtype.I64, []int64{L, S}, 0))
				s = c.Select(c.BroadcastTo(keep, shape), s, ninf)
			}
			if mask != nil {
				if c.DType(mask) == dtype.Bool {
					s = c.Select(c.BroadcastTo(mask, shape), s, ninf)
				} else {
					s = c.Binary("add", s, c.BroadcastTo(c.Convert(mask, cdt), shape))
				}
			}
			d := []int64{int64(len(shape) - 1)}
			m := reduceInit(c, s, d, "maximum", lowestConst(c, cdt))
			mb := c.BroadcastInDim(m, shape, dropDim(len(shape), len(shape)-1))
			sum := c.Reduce(c.Unary("exponential", c.Binary("subtract", s, mb)), d, "add", 0)
			lse := c.Binary("add", c.Unary("log", sum), m)
			return []Value{out[0], TensorValue(lse)}, nil
		}})
}
