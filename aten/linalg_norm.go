package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Pairwise distances: cdist (linalg_vector_norm is the reduction
// family's). Half types accumulate in float32 and round once.

func init() {
	lower("aten::cdist", lowerCdist)
	lower("aten::_cdist_forward", lowerCdist)
}

// pnormReduce computes the p-norm of x over dims in x's (float) dtype.
func pnormReduce(c *LowerCtx, x *stablehlo.Value, dims []int64, p float64) *stablehlo.Value {
	dt := c.DType(x)
	ax := c.Unary("abs", x)
	switch {
	case math.IsInf(p, 1):
		return reduceInit(c, ax, dims, "maximum", lowestConst(c, dt))
	case math.IsInf(p, -1):
		return reduceInit(c, ax, dims, "minimum", highestConst(c, dt))
	case p == 0:
		nz := c.Convert(c.Compare("NE", x, c.Like(x, 0)), dt)
		return c.Reduce(nz, dims, "add", 0)
	case p == 1:
		return c.Reduce(ax, dims, "add", 0)
	case p == 2:
		s := c.Reduce(c.Binary("multiply", x, x), dims, "add", 0)
		return c.Unary("sqrt", s)
	}
	pw := c.Binary("power", ax, c.Like(ax, p))
	s := c.Reduce(pw, dims, "add", 0)
	return c.Binary("power", s, c.Like(s, 1/p))
}

func lowerCdist(c *LowerCtx, a *Args) ([]Value, error) {
	x1, x2 := a.Tensor("x1"), a.Tensor("x2")
	p := a.Float("p")
	mode, hasMode := a.OptInt("compute_mode")
	if a.Err() != nil {
		return nil, a.Err()
	}
	s1, s2 := c.Shape(x1), c.Shape(x2)
	r1, r2 := len(s1), len(s2)
	if r1 < 2 || r2 < 2 || s1[r1-1] != s2[r2-1] {
		return nil, c.Errorf("cdist: X1 and X2 must have at least 2 dims and the same number of columns, got %v and %v", s1, s2)
	}
	dt := c.DType(x1)
	if !dt.IsFloat() || c.DType(x2) != dt {
		return nil, c.Errorf("cdist only supports floating-point dtypes of equal type, got %v and %v", dt.Torch(), c.DType(x2).Torch())
	}
	if p < 0 {
		return nil, c.Errorf("cdist only supports non-negative p values")
	}
	b, err := broadcastShapes(s1[:r1-2], s2[:r2-2])
	if err != nil {
		return nil, c.Errorf("cdist: %w", err)
	}
	P, R, M := s1[r1-2], s2[r2-2], s1[r1-1]
	cdt := OpMath(dt)
	x1 = c.BroadcastTo(c.Convert(x1, cdt), append(append([]int64(nil), b...), P, M))
	x2 = c.BroadcastTo(c.Convert(x2, cdt), append(append([]int64(nil), b...), R, M))
	nb := int64(len(b))
	// compute_mode: None/0 uses the matmul form for p=2 when P or R > 25;
	// 1 always; 2 never.
	useMM := p == 2 && ((!hasMode || mode == 0) && (P > 25 || R > 25) || hasMode && mode == 1)
	var out *stablehlo.Value
	if useMM {
		n1 := c.Reduce(c.Binary("multiply", x1, x1), []int64{nb + 1}, "add", 0)
		n2 := c.Reduce(c.Binary("multiply", x2, x2), []int64{nb + 1}, "add", 0)
		batch := seqI64(int(nb))
		prod := dotGeneral(c, x1, x2, batch, batch, []int64{nb + 1}, []int64{nb + 1})
		full := c.Shape(prod)
		prod = c.Binary("multiply", prod, c.Splat(cdt, full, -2))
		dimsA := append(seqI64(int(nb)), nb)
		dimsB := append(seqI64(int(nb)), nb+1)
		sum := c.Binary("add", c.Binary("add", prod, c.BroadcastInDim(n1, full, dimsA)), c.BroadcastInDim(n2, full, dimsB))
		sum = c.Binary("maximum", sum, c.Splat(cdt, full, 0))
		out = c.Unary("sqrt", sum)
	} else {
		full := append(append([]int64(nil), b...), P, R, M)
		d1 := append(seqI64(int(nb)), nb, nb+2)
		d2 := append(seqI64(int(nb)), nb+1, nb+2)
		diff := c.Binary("subtract", c.BroadcastInDim(x1, full, d1), c.BroadcastInDim(x2, full, d2))
		out = pnormReduce(c, diff, []int64{nb + 2}, p)
	}
	return one(c.Convert(out, dt)), nil
}
