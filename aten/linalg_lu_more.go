package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// What builds on the LU factorisation: slogdet / logdet, lu_factor (no
// info), _lu_with_info, lu_unpack (P from the pivot sequence), lu_solve in
// both spellings (with adjoint and right-hand forms), matrix_power (by
// repeated squaring, PyTorch's order of products), tensorsolve and
// tensorinv, and matrix_exp (scaling and squaring of a Taylor series).

func init() {
	slogdet := func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor(a.Schema.Params[0].Name)
		if a.Err() != nil {
			return nil, a.Err()
		}
		sign, logabs, err := slogdetOf(c, x)
		if err != nil {
			return nil, err
		}
		return []Value{TensorValue(sign), TensorValue(logabs)}, nil
	}
	lower("aten::linalg_slogdet", slogdet)
	lower("aten::slogdet", slogdet)
	lower("aten::logdet", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		sign, logabs, err := slogdetOf(c, x)
		if err != nil {
			return nil, err
		}
		if c.DType(sign).IsComplex() {
			return one(c.Binary("add", c.Unary("log", sign), c.Convert(logabs, c.DType(sign)))), nil
		}
		neg := c.Compare("LT", sign, c.Like(sign, 0))
		return one(c.Select(neg, c.Like(logabs, math.NaN()), logabs)), nil
	})
	lower("aten::linalg_lu_factor", func(c *LowerCtx, a *Args) ([]Value, error) {
		out, err := lowerLUFactor(c, a)
		if err != nil {
			return nil, err
		}
		return out[:2], nil
	})
	lower("aten::_lu_with_info", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		return c.Call("aten::linalg_lu_factor_ex", []Value{TensorValue(x)}, map[string]Value{"pivot": a.Value("pivot")})
	})
	lower("aten::lu_unpack", lowerLUUnpack)
	lower("aten::linalg_lu_solve", func(c *LowerCtx, a *Args) ([]Value, error) {
		return luSolveArgs(c, a.Tensor("LU"), a.Tensor("pivots"), a.Tensor("B"), a.Bool("left"), a.Bool("adjoint"), a)
	})
	lower("aten::lu_solve", func(c *LowerCtx, a *Args) ([]Value, error) {
		return luSolveArgs(c, a.Tensor("LU_data"), a.Tensor("LU_pivots"), a.Tensor("self"), true, false, a)
	})
	for _, name := range []string{"aten::linalg_matrix_power", "aten::matrix_power"} {
		lower(name, lowerMatrixPower)
	}
	decomp("aten::linalg_tensorinv", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		ind := a.Int("ind")
		if a.Err() != nil {
			return nil, a.Err()
		}
		s := c.Shape(x)
		if ind <= 0 || int(ind) > len(s) {
			return nil, c.Errorf("Expected a strictly positive integer for 'ind', but got %d", ind)
		}
		outer, inner := s[:ind], s[ind:]
		p, q := numelOf(outer), numelOf(inner)
		if p != q {
			return nil, c.Errorf("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got %d != %d", q, p)
		}
		inv := c.Call1("aten::linalg_inv", TensorValue(c.Reshape(x, []int64{p, q})))
		return one(c.Reshape(inv, append(append([]int64(nil), inner...), outer...))), nil
	})
	decomp("aten::linalg_tensorsolve", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, b := a.Tensor("self"), a.Tensor("other")
		dims, hasDims := a.OptInts("dims")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if hasDims {
			r := c.Rank(x)
			cd, err := canonDims(dims, r)
			if err != nil {
				return nil, c.Errorf("linalg.tensorsolve: %w", err)
			}
			var perm []int64
			for i := 0; i < r; i++ {
				if !containsDim(toI64(cd), i) {
					perm = append(perm, int64(i))
				}
			}
			perm = append(perm, toI64(cd)...)
			x = emitTranspose(c, x, perm)
		}
		s := c.Shape(x)
		bn := c.Rank(b)
		if bn > len(s) {
			return nil, c.Errorf("linalg.tensorsolve: other has more dims than self")
		}
		rows := numelOf(c.Shape(b))
		rest := s[bn:]
		cols := numelOf(rest)
		if rows != cols {
			return nil, c.Errorf("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got %d != %d", cols, rows)
		}
		sol := c.Call1("aten::linalg_solve", TensorValue(c.Reshape(x, []int64{rows, cols})), TensorValue(c.Reshape(b, []int64{rows})))
		return one(c.Reshape(sol, rest)), nil
	})
	for _, name := range []string{"aten::matrix_exp", "aten::linalg_matrix_exp"} {
		lower(name, lowerMatrixExp)
	}
}

func toI64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, v := range xs {
		out[i] = int64(v)
	}
	return out
}

// slogdetOf: sign (±1, or the phase for complex; 0 when singular) and
// log|det| (-inf when singular) from the LU diagonal.
func slogdetOf(c *LowerCtx, x *stablehlo.Value) (sign, logabs *stablehlo.Value, err error) {
	xb, batch, err := squareBatch(c, "linalg.slogdet", x)
	if err != nil {
		return nil, nil, err
	}
	dt := c.DType(xb)
	rt := realPart(dt)
	s := c.Shape(xb)
	B, n := s[0], s[1]
	if n == 0 || B == 0 {
		return c.Splat(dt, batch, 1), c.Splat(rt, batch, 0), nil
	}
	r := luFactor(c, xb)
	diag := diagonalOf(c, r.lu, 0, 1, 2) // [B, n]
	absd := c.Unary("abs", diag)
	logabs = c.Reduce(c.Unary("log", absd), []int64{1}, "add", 0)
	var unit *stablehlo.Value
	if dt.IsComplex() {
		unit = c.Binary("divide", diag, c.Convert(absd, dt))
	} else {
		unit = c.Unary("sign", diag)
	}
	sign = c.Reduce(unit, []int64{1}, "multiply", 1)
	odd := c.Compare("EQ", c.Binary("remainder", r.swaps, c.SplatInt(dtype.I64, []int64{B}, 2)), c.SplatInt(dtype.I64, []int64{B}, 1))
	sign = c.Select(odd, c.Unary("negate", sign), sign)
	singular := c.Compare("GT", r.info, c.SplatInt(dtype.I32, []int64{B}, 0))
	sign = c.Select(singular, c.Splat(dt, []int64{B}, 0), sign)
	logabs = c.Select(singular, c.Splat(rt, []int64{B}, math.Inf(-1)), logabs)
	return c.Reshape(sign, batch), c.Reshape(logabs, batch), nil
}

// permFromPivots turns LAPACK's 1-based pivots [B, k] into the row
// permutation [B, m] (row i of P⁻¹A is row perm[i] of A).
func permFromPivots(c *LowerCtx, piv *stablehlo.Value, m int64) *stablehlo.Value {
	ps := c.Shape(piv)
	B, k := ps[0], ps[1]
	bm := []int64{B, m}
	perm := c.Iota(dtype.I64, bm, 1)
	rows := c.Iota(dtype.I64, bm, 1)
	p0 := c.Binary("subtract", c.Convert(piv, dtype.I64), c.SplatInt(dtype.I64, ps, 1))
	p0 = c.Binary("minimum", c.Binary("maximum", p0, c.SplatInt(dtype.I64, ps, 0)), c.SplatInt(dtype.I64, ps, m-1))
	for i := int64(0); i < k; i++ {
		p := c.BroadcastInDim(c.Reshape(sliceDim(c, p0, 1, i, 1, 1), []int64{B}), bm, []int64{0})
		ib := c.SplatInt(dtype.I64, bm, i)
		swap := c.Select(c.Compare("EQ", rows, ib), p, c.Select(c.Compare("EQ", rows, p), ib, rows))
		perm = gatherAlong(c, perm, 1, swap)
	}
	return perm
}

func lowerLUUnpack(c *LowerCtx, a *Args) ([]Value, error) {
	lu, piv := a.Tensor("LU_data"), a.Tensor("LU_pivots")
	unpackData, unpackPiv := a.Bool("unpack_data"), a.Bool("unpack_pivots")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xb, batch, err := matBatch(c, "lu_unpack", lu)
	if err != nil {
		return nil, err
	}
	s := c.Shape(xb)
	B, m, n := s[0], s[1], s[2]
	k := min(m, n)
	if c.Rank(piv) < 1 || c.DType(piv) != dtype.I32 {
		return nil, c.Errorf("lu_unpack: LU_pivots must be an int32 tensor of at least one dimension, got %s%v", c.DType(piv).Torch(), c.Shape(piv))
	}
	if numelOf(c.Shape(piv)) != B*k {
		return nil, c.Errorf("lu_unpack: LU_pivots of shape %v does not match LU_data of shape %v", c.Shape(piv), c.Shape(lu))
	}
	pb := c.Reshape(piv, []int64{B, k})
	if c.Shape(pb)[1] != k {
		return nil, c.Errorf("lu_unpack: LU_pivots has %d entries, expected %d", c.Shape(pb)[1], k)
	}
	r := &luResult{lu: xb, perm: permFromPivots(c, pb, m)}
	P, L, U := luUnpacked(c, r, c.DType(xb))
	dt := c.DType(xb)
	if !unpackData {
		L, U = c.Splat(dt, []int64{B, 0, 0}, 0), c.Splat(dt, []int64{B, 0, 0}, 0)
	}
	if !unpackPiv {
		P = c.Splat(dt, []int64{B, 0, 0}, 0)
	}
	shape := func(v *stablehlo.Value) []int64 { return withBatch(batch, c.Shape(v)[1:]...) }
	return []Value{TensorValue(c.Reshape(P, shape(P))), TensorValue(c.Reshape(L, shape(L))), TensorValue(c.Reshape(U, shape(U)))}, nil
}

// luSolveArgs solves A X = B (or Aᴴ X = B, X A = B, X Aᴴ = B) from A's
// LU factors and pivots, broadcasting batch dims.
func luSolveArgs(c *LowerCtx, lu, piv, b *stablehlo.Value, left, adjoint bool, a *Args) ([]Value, error) {
	if a.Err() != nil {
		return nil, a.Err()
	}
	ls, bs := c.Shape(lu), c.Shape(b)
	if len(ls) < 2 || ls[len(ls)-1] != ls[len(ls)-2] || len(bs) < 2 {
		return nil, c.Errorf("linalg.lu_solve: LU must be batches of square matrices and B a batch of matrices, got %v and %v", ls, bs)
	}
	if c.DType(lu) != c.DType(b) {
		return nil, c.Errorf("linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type %s and B of type %s instead", c.DType(lu).Torch(), c.DType(b).Torch())
	}
	n := ls[len(ls)-1]
	if c.Rank(piv) != len(ls)-1 || c.Shape(piv)[c.Rank(piv)-1] != n || !c.DType(piv).IsInteger() {
		return nil, c.Errorf("linalg.lu_solve: pivots of shape %v do not match LU of shape %v", c.Shape(piv), ls)
	}
	adjT := func(v *stablehlo.Value) *stablehlo.Value {
		r := c.Rank(v)
		p := seqI64(r)
		p[r-2], p[r-1] = p[r-1], p[r-2]
		v = emitTranspose(c, v, p)
		if c.DType(v).IsComplex() {
			v = c.Call1("aten::conj_physical", TensorValue(v))
		}
		return v
	}
	if !left {
		// X A = B ⇔ Aᴴ Xᴴ = Bᴴ.
		b = adjT(b)
		adjoint = !adjoint
	}
	bs = c.Shape(b)
	batch, err := broadcastShapes(ls[:len(ls)-2], bs[:len(bs)-2])
	if err != nil || bs[len(bs)-2] != n {
		return nil, c.Errorf("linalg.lu_solve: incompatible shapes of LU %v and B %v", ls, bs)
	}
	kcols := bs[len(bs)-1]
	lu = c.BroadcastTo(lu, withBatch(batch, n, n))
	piv = c.BroadcastTo(piv, withBatch(batch, n))
	b = c.BroadcastTo(b, withBatch(batch, n, kcols))
	nb := numelOf(batch)
	luB := c.Reshape(lu, []int64{nb, n, n})
	perm := permFromPivots(c, c.Reshape(piv, []int64{nb, n}), n)
	bb := c.Reshape(b, []int64{nb, n, kcols})
	var x *stablehlo.Value
	if !adjoint {
		x, err = luSolve(c, &luResult{lu: luB, perm: perm}, bb)
	} else {
		// Aᴴ = Uᴴ Lᴴ Pᵀ: X = P L⁻ᴴ U⁻ᴴ B.
		var y *stablehlo.Value
		y, err = triSolve(c, triangle(c, luB, false), bb, true, false, false, "ADJOINT")
		if err == nil {
			y, err = triSolve(c, luB, y, true, true, true, "ADJOINT")
		}
		if err == nil {
			// Undo the row permutation: x[perm[i]] = y[i].
			x = rowSelect(c, y, scatterInverse(c, perm))
		}
	}
	if err != nil {
		return nil, err
	}
	x = c.Reshape(x, withBatch(batch, n, kcols))
	if !left {
		x = adjT(x)
	}
	return one(x), nil
}

// scatterInverse inverts a permutation [B, n]: out[perm[i]] = i.
func scatterInverse(c *LowerCtx, perm *stablehlo.Value) *stablehlo.Value {
	s := c.Shape(perm)
	n := s[1]
	pair := []int64{s[0], n, n}
	// out[j] = the i with perm[i] == j.
	hit := c.Compare("EQ", c.BroadcastInDim(perm, pair, []int64{0, 2}), c.Iota(dtype.I64, pair, 1))
	return c.Reduce(c.Select(hit, c.Iota(dtype.I64, pair, 2), c.SplatInt(dtype.I64, pair, 0)), []int64{2}, "add", 0)
}

func lowerMatrixPower(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	n := a.Int("n")
	if a.Err() != nil {
		return nil, a.Err()
	}
	s := c.Shape(x)
	if len(s) < 2 || s[len(s)-1] != s[len(s)-2] {
		return nil, c.Errorf("linalg.matrix_power: A must be batches of square matrices, but they are %v", s)
	}
	mm := func(p, q *stablehlo.Value) *stablehlo.Value {
		return c.Call1("aten::matmul", TensorValue(p), TensorValue(q))
	}
	if n == 0 {
		m := s[len(s)-1]
		eye := c.Convert(c.Compare("EQ", c.Iota(dtype.I64, []int64{m, m}, 0), c.Iota(dtype.I64, []int64{m, m}, 1)), c.DType(x))
		return one(c.BroadcastTo(eye, s)), nil
	}
	if n < 0 {
		x = c.Call1("aten::linalg_inv", TensorValue(x))
		n = -n
	}
	switch n {
	case 1:
		return one(x), nil
	case 2:
		return one(mm(x, x)), nil
	case 3:
		return one(mm(mm(x, x), x)), nil
	}
	var z, result *stablehlo.Value
	for n > 0 {
		if z == nil {
			z = x
		} else {
			z = mm(z, z)
		}
		if n&1 == 1 {
			if result == nil {
				result = z
			} else {
				result = mm(result, z)
			}
		}
		n >>= 1
	}
	return one(result), nil
}

// lowerMatrixExp: exp(A) = exp(A/2^s)^(2^s) with s chosen from the 1-norm
// (the largest over the batch) so that ‖A/2^s‖ ≤ ½, the exponential of the
// scaled matrix by its Taylor series to degree 18 (Horner form), then s
// squarings in a while loop.
func lowerMatrixExp(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	s := c.Shape(x)
	if len(s) < 2 || s[len(s)-1] != s[len(s)-2] {
		return nil, c.Errorf("linalg.matrix_exp: A must be batches of square matrices, but they are %v", s)
	}
	dt := c.DType(x)
	if !isLinalgDType(dt) && dt != dtype.BF16 && dt != dtype.F16 {
		return nil, c.Errorf("linalg.matrix_exp: %s is not supported", dt.Torch())
	}
	w := OpMath(dt)
	if w == dtype.F32 && !c.NoF64 {
		w = dtype.F64
	} else if w == dtype.C64 && !c.NoF64 {
		w = dtype.C128
	}
	m := s[len(s)-1]
	if numelOf(s) == 0 {
		return one(x), nil
	}
	xw := c.Convert(x, w)
	r := len(s)
	// 1-norm: the largest column sum of |a|, over the whole batch.
	colSum := c.Reduce(c.Unary("abs", xw), []int64{int64(r - 2)}, "add", 0)
	norm := c.Reduce(colSum, seqI64(r-1), "maximum", 0)
	rw := realPart(w)
	// s = max(0, ceil(log2(norm)) + 1)
	lg := c.Unary("ceil", c.Binary("divide", c.Unary("log", norm), c.Splat(rw, nil, math.Ln2)))
	sc := c.Binary("maximum", c.Binary("add", lg, c.Splat(rw, nil, 1)), c.Splat(rw, nil, 0))
	sc = c.Select(c.IsNaN(sc), c.Splat(rw, nil, 0), c.Binary("minimum", sc, c.Splat(rw, nil, 1000)))
	scale := c.Binary("power", c.Splat(rw, nil, 2), c.Unary("negate", sc))
	xs := c.Binary("multiply", xw, c.BroadcastTo(c.Convert(scale, w), s))
	eye := c.BroadcastTo(c.Convert(c.Compare("EQ", c.Iota(dtype.I64, []int64{m, m}, 0), c.Iota(dtype.I64, []int64{m, m}, 1)), w), s)
	batch := seqI64(r - 2)
	mm := func(p, q *stablehlo.Value) *stablehlo.Value {
		return dotGeneral(c, p, q, batch, batch, []int64{int64(r - 1)}, []int64{int64(r - 2)})
	}
	e := eye
	for k := 18; k >= 1; k-- {
		// e = I + (A/k)·e
		e = c.Binary("add", eye, mm(c.Binary("multiply", xs, c.BroadcastTo(c.Splat(w, nil, 1/float64(k)), s)), e))
	}
	steps := c.Convert(sc, dtype.I64)
	out := c.whileLoop([]*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), e, steps}, func(b *LowerCtx, v []*stablehlo.Value) *stablehlo.Value {
		return b.Compare("LT", v[0], v[2])
	}, func(b *LowerCtx, v []*stablehlo.Value) []*stablehlo.Value {
		sq := dotGeneral(b, v[1], v[1], batch, batch, []int64{int64(r - 1)}, []int64{int64(r - 2)})
		return []*stablehlo.Value{b.Binary("add", v[0], b.SplatInt(dtype.I64, nil, 1)), sq, v[2]}
	})
	return one(c.Convert(out[1], dt)), nil
}
