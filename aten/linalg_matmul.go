package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Matrix products: mm, bmm, matmul (every rank case), linear, addmm,
// baddbmm, addmv, mv, dot, outer. Operands must share a dtype (PyTorch
// raises otherwise); float16/bfloat16 are multiplied in float32 (products
// of two halves are exact in float32, so this is f32 accumulation) and
// rounded once; integer and complex products are computed in their own
// type; bool only in addr (and / or).

func init() {
	lower("aten::mm", lowerMM)
	lower("aten::bmm", lowerBMM)
	lower("aten::matmul", lowerMatmul)
	lower("aten::linear", lowerLinear)
	lower("aten::addmm", lowerAddmm)
	lower("aten::baddbmm", lowerAddmm)
	lower("aten::addmv", lowerAddmm)
	lower("aten::addbmm", lowerAddmm)
	lower("aten::addr", lowerAddmm)
	lower("aten::mv", lowerMatmulLike("vec"))
	lower("aten::dot", lowerMatmulLike("tensor"))
	lower("aten::outer", lowerOuter)
	lower("aten::ger", lowerOuter)
}

// dotPrep checks dtypes and converts both operands to the compute dtype.
func dotPrep(c *LowerCtx, a, b *stablehlo.Value, op string) (x, y *stablehlo.Value, dt dtype.DType, err error) {
	da, db := c.DType(a), c.DType(b)
	if da != db {
		return nil, nil, 0, c.Errorf("%s: expected both operands to have the same dtype, but got %v != %v", op, da.Torch(), db.Torch())
	}
	if da == dtype.Bool && op != "aten::addr" {
		return nil, nil, 0, c.Errorf("%s: \"addmm_impl_cpu_\" not implemented for 'Bool'", op)
	}
	cdt := OpMath(da)
	return c.Convert(a, cdt), c.Convert(b, cdt), da, nil
}

// dotGeneral multiplies in the compute dtype and returns the result in
// the compute dtype (callers round once at the end).
func dotGeneral(c *LowerCtx, x, y *stablehlo.Value, lb, rb, lc, rc []int64) *stablehlo.Value {
	dd := &stablehlo.DotDims{LhsBatchingDims: lb, RhsBatchingDims: rb, LhsContractingDims: lc, RhsContractingDims: rc}
	return emitDot(c, x, y, dd, c.DType(x))
}

// matmulValues implements torch.matmul's rank rules; the result is in the
// compute dtype.
func matmulValues(c *LowerCtx, x, y *stablehlo.Value) (*stablehlo.Value, error) {
	xs, ys := c.Shape(x), c.Shape(y)
	rx, ry := len(xs), len(ys)
	if rx == 0 || ry == 0 {
		return nil, c.Errorf("both arguments to matmul need to be at least 1D, but they are %dD and %dD", rx, ry)
	}
	kx := xs[rx-1]
	ky := ys[0]
	if ry >= 2 {
		ky = ys[ry-2]
	}
	if kx != ky {
		return nil, c.Errorf("mat1 and mat2 shapes cannot be multiplied (%v and %v)", xs, ys)
	}
	switch {
	case ry == 1:
		// [..., n, k] · [k] and [k] · [k]
		return dotGeneral(c, x, y, nil, nil, []int64{int64(rx - 1)}, []int64{0}), nil
	case rx == 1:
		// [k] · [..., k, m]
		return dotGeneral(c, x, y, nil, nil, []int64{0}, []int64{int64(ry - 2)}), nil
	case rx == 2 && ry == 2:
		return dotGeneral(c, x, y, nil, nil, []int64{1}, []int64{0}), nil
	}
	bx, by := xs[:rx-2], ys[:ry-2]
	b, err := broadcastShapes(bx, by)
	if err != nil {
		return nil, c.Errorf("matmul: batch dims of %v and %v do not broadcast: %w", xs, ys, err)
	}
	x = c.BroadcastTo(x, append(append([]int64(nil), b...), xs[rx-2:]...))
	y = c.BroadcastTo(y, append(append([]int64(nil), b...), ys[ry-2:]...))
	nb := int64(len(b))
	batch := seqI64(int(nb))
	return dotGeneral(c, x, y, batch, batch, []int64{nb + 1}, []int64{nb}), nil
}

func lowerMatmul(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("other")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xc, yc, dt, err := dotPrep(c, x, y, "matmul")
	if err != nil {
		return nil, err
	}
	out, err := matmulValues(c, xc, yc)
	if err != nil {
		return nil, err
	}
	return one(c.Convert(out, dt)), nil
}

// lowerMatmulLike lowers mv and dot (rank-checked matmul cases).
func lowerMatmulLike(other string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor(other)
		if a.Err() != nil {
			return nil, a.Err()
		}
		rx, ry := c.Rank(x), c.Rank(y)
		if (other == "vec" && (rx != 2 || ry != 1)) || (other == "tensor" && (rx != 1 || ry != 1)) {
			return nil, c.Errorf("%s: unexpected ranks %d and %d", a.Schema.Name, rx, ry)
		}
		xc, yc, dt, err := dotPrep(c, x, y, a.Schema.Name)
		if err != nil {
			return nil, err
		}
		out, err := matmulValues(c, xc, yc)
		if err != nil {
			return nil, err
		}
		return one(c.Convert(out, dt)), nil
	}
}

func lowerMM(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("mat2")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(x) != 2 || c.Rank(y) != 2 {
		return nil, c.Errorf("mm: expected 2D tensors, got %dD and %dD", c.Rank(x), c.Rank(y))
	}
	xc, yc, dt, err := dotPrep(c, x, y, "mm")
	if err != nil {
		return nil, err
	}
	out, err := matmulValues(c, xc, yc)
	if err != nil {
		return nil, err
	}
	return one(c.Convert(out, dt)), nil
}

func lowerBMM(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("mat2")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, ys := c.Shape(x), c.Shape(y)
	if len(xs) != 3 || len(ys) != 3 || xs[0] != ys[0] || xs[2] != ys[1] {
		return nil, c.Errorf("bmm: expected 3D tensors [b, n, k] and [b, k, m], got %v and %v", xs, ys)
	}
	xc, yc, dt, err := dotPrep(c, x, y, "bmm")
	if err != nil {
		return nil, err
	}
	out := dotGeneral(c, xc, yc, []int64{0}, []int64{0}, []int64{2}, []int64{1})
	return one(c.Convert(out, dt)), nil
}

func lowerLinear(c *LowerCtx, a *Args) ([]Value, error) {
	x, w := a.Tensor("input"), a.Tensor("weight")
	b := a.OptTensor("bias")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, ws := c.Shape(x), c.Shape(w)
	if len(xs) == 0 || len(ws) == 0 || len(ws) > 2 || xs[len(xs)-1] != ws[len(ws)-1] {
		return nil, c.Errorf("linear: mat1 and mat2 shapes cannot be multiplied (%v and %v transposed)", xs, ws)
	}
	xc, wc, dt, err := dotPrep(c, x, w, "linear")
	if err != nil {
		return nil, err
	}
	out := dotGeneral(c, xc, wc, nil, nil, []int64{int64(len(xs) - 1)}, []int64{int64(len(ws) - 1)})
	if b != nil {
		if c.DType(b) != dt {
			return nil, c.Errorf("linear: bias dtype %v differs from input dtype %v", c.DType(b).Torch(), dt.Torch())
		}
		bb := c.BroadcastTo(c.Convert(b, c.DType(out)), c.Shape(out))
		out = c.Binary("add", bb, out)
	}
	return one(c.Convert(out, dt)), nil
}

// lowerAddmm lowers addmm, baddbmm, addbmm, addmv and addr (the .dtype
// forms, CUDA-only in PyTorch, would pass out_dtype): beta*self + alpha*product,
// with self ignored when beta is 0 (NaN in it does not propagate).
func lowerAddmm(c *LowerCtx, a *Args) ([]Value, error) {
	self := a.Tensor("self")
	var m1, m2 *stablehlo.Value
	name := a.Schema.Name
	switch name {
	case "aten::addmm":
		m1, m2 = a.Tensor("mat1"), a.Tensor("mat2")
	case "aten::baddbmm", "aten::addbmm":
		m1, m2 = a.Tensor("batch1"), a.Tensor("batch2")
	case "aten::addr":
		m1, m2 = a.Tensor("vec1"), a.Tensor("vec2")
	default:
		m1, m2 = a.Tensor("mat"), a.Tensor("vec")
	}
	beta, alpha := a.Scalar("beta"), a.Scalar("alpha")
	outDT, hasOut := dtype.Invalid, a.Schema.Param("out_dtype") >= 0
	if hasOut {
		outDT = a.DType("out_dtype")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	want := map[string][2]int{"aten::addmm": {2, 2}, "aten::baddbmm": {3, 3}, "aten::addbmm": {3, 3},
		"aten::addmv": {2, 1}, "aten::addr": {1, 1}}[name]
	if c.Rank(m1) != want[0] || c.Rank(m2) != want[1] {
		return nil, c.Errorf("%s: expected %dD and %dD operands, got %v and %v", name, want[0], want[1], c.Shape(m1), c.Shape(m2))
	}
	xc, yc, dt, err := dotPrep(c, m1, m2, name)
	if err != nil {
		return nil, err
	}
	if !hasOut {
		outDT = dt
	}
	if sd := c.DType(self); sd != dt && sd != outDT {
		return nil, c.Errorf("%s: self dtype %v differs from operand dtype %v", name, sd.Torch(), dt.Torch())
	}
	if dt.IsInteger() && (beta.Kind == KFloat || alpha.Kind == KFloat) {
		if name == "aten::addr" {
			return nil, c.Errorf("For integral input tensors, argument beta must not be a floating point number.")
		}
		// The CPU kernels convert alpha and beta to the integer type.
		alpha, beta = Scalar{Kind: KInt, I: alpha.Int()}, Scalar{Kind: KInt, I: beta.Int()}
	}
	if (name == "aten::baddbmm" || name == "aten::addbmm") && c.Shape(m1)[0] != c.Shape(m2)[0] {
		return nil, c.Errorf("%s: batch sizes differ: %v and %v", name, c.Shape(m1), c.Shape(m2))
	}
	if name == "aten::addbmm" && !hasOut {
		seq, err := addbmmSequential(c, self, xc, yc, alpha, beta, dt)
		if err != nil || seq != nil {
			return one(seq), err
		}
	}
	if name == "aten::addr" && !hasOut && (dt == dtype.F16 || dt == dtype.BF16) {
		out, err := addrReduced(c, self, xc, yc, alpha, beta, dt)
		if err != nil {
			return nil, err
		}
		return one(out), nil
	}
	var out *stablehlo.Value
	switch name {
	case "aten::baddbmm":
		out = dotGeneral(c, xc, yc, []int64{0}, []int64{0}, []int64{2}, []int64{1})
	case "aten::addbmm":
		out = dotGeneral(c, xc, yc, nil, nil, []int64{0, 2}, []int64{0, 1})
	case "aten::addr":
		shape := []int64{c.Shape(xc)[0], c.Shape(yc)[0]}
		mul := "multiply"
		if c.DType(xc) == dtype.Bool {
			mul = "and"
		}
		out = c.Binary(mul, c.BroadcastInDim(xc, shape, []int64{0}), c.BroadcastInDim(yc, shape, []int64{1}))
	default:
		if out, err = matmulValues(c, xc, yc); err != nil {
			return nil, err
		}
	}
	cdt := c.DType(out)
	shape := c.Shape(out)
	if cdt == dtype.Bool {
		// (beta and self) or (alpha and vec1 ⊗ vec2)
		if scalarIs(alpha, 0) {
			out = c.Splat(dtype.Bool, shape, 0)
		}
		if !scalarIs(beta, 0) {
			s, err := expandTo(c, self, shape)
			if err != nil {
				return nil, err
			}
			out = c.Binary("or", s, out)
		}
		return one(out), nil
	}
	if !scalarIs(alpha, 1) {
		out = c.Binary("multiply", out, c.ScalarFull(alpha, cdt, shape))
	}
	if !scalarIs(beta, 0) {
		s := c.Convert(self, cdt)
		if !sameShape(c.Shape(s), shape) {
			var err error
			if s, err = expandTo(c, s, shape); err != nil {
				return nil, err
			}
		}
		if !scalarIs(beta, 1) {
			s = c.Binary("multiply", s, c.ScalarFull(beta, cdt, shape))
		}
		out = c.Binary("add", s, out)
	}
	return one(c.Convert(out, outDT)), nil
}

func lowerOuter(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("vec2")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(x) != 1 || c.Rank(y) != 1 {
		return nil, c.Errorf("outer: expected 1D tensors, got %dD and %dD", c.Rank(x), c.Rank(y))
	}
	dt := c.ResultType(TensorOperand(x), TensorOperand(y))
	n, m := c.Shape(x)[0], c.Shape(y)[0]
	shape := []int64{n, m}
	cdt := OpMath(dt)
	xb := c.BroadcastInDim(c.Convert(x, cdt), shape, []int64{0})
	yb := c.BroadcastInDim(c.Convert(y, cdt), shape, []int64{1})
	mul := "multiply"
	if dt == dtype.Bool {
		mul = "and"
	}
	return one(c.Convert(c.Binary(mul, xb, yb), dt)), nil
}

// scalarIs reports whether s equals the real number v (a complex scalar
// only with a zero imaginary part).
func scalarIs(s Scalar, v float64) bool {
	if s.Kind == KComplex {
		return s.C == complex(v, 0)
	}
	return s.Float() == v
}

// addrReduced is addr on float16/bfloat16 as PyTorch's addr_kernel runs it:
// beta*self + (alpha*vec1)*vec2 with every operation rounded to the dtype
// (Vectorized<Half/BFloat16> arithmetic); beta = 0 drops self. x, y are
// the vectors in float32.
func addrReduced(c *LowerCtx, self, x, y *stablehlo.Value, alpha, beta Scalar, dt dtype.DType) (*stablehlo.Value, error) {
	round := func(v *stablehlo.Value) *stablehlo.Value { return c.Convert(c.Convert(v, dt), dtype.F32) }
	shape := []int64{c.Shape(x)[0], c.Shape(y)[0]}
	scalar := func(s Scalar) *stablehlo.Value { return round(c.ScalarFull(s, dtype.F32, shape)) }
	xb := c.BroadcastInDim(x, shape, []int64{0})
	yb := c.BroadcastInDim(y, shape, []int64{1})
	out := round(c.Binary("multiply", round(c.Binary("multiply", scalar(alpha), xb)), yb))
	if !scalarIs(beta, 0) {
		s, err := expandTo(c, c.Convert(self, dtype.F32), shape)
		if err != nil {
			return nil, err
		}
		out = round(c.Binary("add", round(c.Binary("multiply", scalar(beta), s)), out))
	}
	return c.Convert(out, dt), nil
}
