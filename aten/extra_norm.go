package aten

import "fmt"

// linalg_norm (vector norms, and matrix norms through linalg_matrix_norm:
// the Frobenius norm is the 2-norm over two dims) and renorm (each slice along dim rescaled to at
// most maxnorm, by maxnorm / (norm + 1e-7) as ATen does).

func init() {
	decomp("aten::linalg_norm", func(c *LowerCtx, a *Args) ([]Value, error) {
		ord := a.Value("ord")
		if !ord.IsNone() {
			dims, _ := a.OptInts("dim")
			rank := 0
			if t := a.Value("self").TensorType(); t != nil {
				rank = t.Rank()
			}
			if len(dims) == 2 || (len(dims) == 0 && rank == 2) {
				if len(dims) == 0 {
					dims = []int64{-2, -1}
				}
				return c.Call("aten::linalg_matrix_norm", []Value{a.Value("self"), ord},
					map[string]Value{"dim": IntsValue(dims), "keepdim": a.Value("keepdim"), "dtype": a.Value("dtype")})
			}
		} else {
			ord = IntValue(2)
		}
		return c.Call("aten::linalg_vector_norm", []Value{a.Value("self"), ord},
			map[string]Value{"dim": a.Value("dim"), "keepdim": a.Value("keepdim"), "dtype": a.Value("dtype")})
	})
	decomp("aten::linalg_norm.ord_str", func(c *LowerCtx, a *Args) ([]Value, error) {
		o := a.Str("ord")
		if o != "fro" && o != "nuc" {
			return nil, fmt.Errorf("linalg.norm: Order %s not supported", o)
		}
		dim := a.Value("dim")
		if dim.IsNone() {
			dim = IntsValue([]int64{-2, -1})
		}
		return c.Call("aten::linalg_matrix_norm.str_ord", []Value{a.Value("self"), StrValue(o)},
			map[string]Value{"dim": dim, "keepdim": a.Value("keepdim"), "dtype": a.Value("dtype")})
	})
	decomp("aten::linalg_matrix_norm.str_ord", func(c *LowerCtx, a *Args) ([]Value, error) {
		o := a.Str("ord")
		switch o {
		case "fro":
			return c.Call("aten::linalg_vector_norm", []Value{a.Value("self"), IntValue(2)},
				map[string]Value{"dim": a.Value("dim"), "keepdim": a.Value("keepdim"), "dtype": a.Value("dtype")})
		case "nuc":
			return lowerMatrixNorm(c, a)
		}
		return nil, fmt.Errorf("linalg.matrix_norm: Order %s not supported.", o)
	})
	decomp("aten::renorm", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, p, dim, maxnorm := a.Tensor("self"), a.Scalar("p"), a.Int("dim"), a.Scalar("maxnorm")
		if a.Err() != nil {
			return nil, a.Err()
		}
		r := int64(c.Rank(x))
		if dim < 0 {
			dim += r
		}
		if dim < 0 || dim >= r {
			return nil, fmt.Errorf("renorm: dim %d out of range for rank %d", dim, r)
		}
		var dims []int64
		for i := int64(0); i < r; i++ {
			if i != dim {
				dims = append(dims, i)
			}
		}
		norm := c.Call1("aten::linalg_vector_norm", TensorValue(x), FloatValue(p.Float()), IntsValue(dims), BoolValue(true))
		mn := maxnorm.Float()
		factor := c.Call1("aten::div.Tensor", FloatValue(mn), TensorValue(c.Call1("aten::add.Tensor", TensorValue(norm), FloatValue(1e-7))))
		factor = c.Call1("aten::where.ScalarOther", TensorValue(c.Call1("aten::gt.Scalar", TensorValue(norm), FloatValue(mn))),
			TensorValue(factor), FloatValue(1))
		return one(c.Call1("aten::mul.Tensor", TensorValue(x), TensorValue(factor))), nil
	})
}
