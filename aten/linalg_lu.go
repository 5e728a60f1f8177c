package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// LU factorisation with partial pivoting (LAPACK getrf's pivot rule: the
// first largest |a| in the column) and what builds on it: linalg_lu_factor_ex,
// linalg_lu, _linalg_det / linalg_det, linalg_inv(_ex), linalg_solve(_ex).
// The elimination is unrolled over the (static) columns; the pivot rows
// are data, chosen at run time.

func init() {
	lower("aten::linalg_lu_factor_ex", lowerLUFactor)
	lower("aten::linalg_lu", lowerLU)
	lower("aten::_linalg_det", lowerDet(true))
	lower("aten::linalg_det", lowerDet(false))
	// torch.det is linalg.det under another name (and another argument name).
	decomp("aten::det", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		out, err := c.Call("aten::linalg_det", []Value{TensorValue(x)}, nil)
		if err != nil {
			return nil, fmt.Errorf("det: %w", err)
		}
		return out, nil
	})
	lower("aten::linalg_inv_ex", lowerInv(true))
	lower("aten::linalg_inv", lowerInv(false))
	lower("aten::_linalg_solve_ex", lowerSolve("_ex"))
	lower("aten::linalg_solve_ex", lowerSolve("ex"))
	lower("aten::linalg_solve", lowerSolve(""))
}

// luResult is the factorisation of a batch [B, n, n] (batch flattened).
type luResult struct {
	lu    *stablehlo.Value // [B, n, n]: unit-lower L below the diagonal, U on and above
	piv   *stablehlo.Value // [B, n] int32, 1-based (LAPACK ipiv)
	perm  *stablehlo.Value // [B, n] int64: row i of P·A is row perm[i] of A
	swaps *stablehlo.Value // [B] int64: number of row exchanges
	info  *stablehlo.Value // [B] int32: 1 + first zero pivot, 0 if none
}

// rowSelect gathers rows of x [B, n, m] by idx [B, n].
func rowSelect(c *LowerCtx, x, idx *stablehlo.Value) *stablehlo.Value {
	s := c.Shape(x)
	return gatherAlong(c, x, 1, c.BroadcastInDim(idx, s, []int64{0, 1}))
}

// pivotAbs is LAPACK's pivot magnitude: |x|, or |re| + |im| for complex
// values (BLAS i?amax).
func pivotAbs(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	if c.DType(x).IsComplex() {
		return c.Binary("add", c.Unary("abs", c.Unary("real", x)), c.Unary("abs", c.Unary("imag", x)))
	}
	return c.Unary("abs", x)
}

// luFactor factors a batch [B, m, n] (rectangular too): k = min(m, n)
// elimination steps, the pivot and the U rows in a's first k rows.
func luFactor(c *LowerCtx, a *stablehlo.Value) *luResult {
	s := c.Shape(a)
	B, m, n := s[0], s[1], s[2]
	k := min(m, n)
	dt := c.DType(a)
	rt := realPart(dt)
	bm, bk := []int64{B, m}, []int64{B, k}
	perm := c.Iota(dtype.I64, bm, 1)
	piv := c.SplatInt(dtype.I32, bk, 0)
	swaps := c.SplatInt(dtype.I64, []int64{B}, 0)
	info := c.SplatInt(dtype.I32, []int64{B}, 0)
	rows := c.Iota(dtype.I64, bm, 1)
	kIdx := c.Iota(dtype.I64, bk, 1)
	full := []int64{B, m, n}
	rowF, colF := c.Iota(dtype.I64, full, 1), c.Iota(dtype.I64, full, 2)
	for j := int64(0); j < k; j++ {
		// Pivot: first row i >= j with the largest |a[i, j]| (NaN wins).
		col := c.Reshape(sliceDim(c, a, 2, j, 1, 1), bm)
		abs := pivotAbs(c, col)
		cand := c.Compare("GE", rows, c.SplatInt(dtype.I64, bm, j))
		abs = c.Select(cand, abs, c.Splat(rt, bm, -1))
		idx := c.Select(cand, rows, c.SplatInt(dtype.I64, bm, -1))
		_, pi := reduceMaxIndex(c, abs, idx, 1)
		p := c.Reshape(pi, []int64{B})
		pb := c.BroadcastInDim(p, bm, []int64{0})
		jb := c.SplatInt(dtype.I64, bm, j)
		// Swap rows j and p.
		swapIdx := c.Select(c.Compare("EQ", rows, jb), pb, c.Select(c.Compare("EQ", rows, pb), jb, rows))
		a = rowSelect(c, a, swapIdx)
		perm = gatherAlong(c, perm, 1, swapIdx)
		isJ := c.Compare("EQ", kIdx, c.SplatInt(dtype.I64, bk, j))
		piv = c.Select(isJ, c.BroadcastInDim(c.Convert(c.Binary("add", p, c.SplatInt(dtype.I64, []int64{B}, 1)), dtype.I32), bk, []int64{0}), piv)
		moved := c.Compare("NE", p, c.SplatInt(dtype.I64, []int64{B}, j))
		swaps = c.Binary("add", swaps, c.Convert(moved, dtype.I64))
		// Eliminate below the pivot.
		d := c.Reshape(emitSlice(c, a, []int64{0, j, j}, []int64{B, j + 1, j + 1}, nil), []int64{B})
		zero := c.Compare("EQ", d, c.Like(d, 0))
		noInfo := c.Compare("EQ", info, c.SplatInt(dtype.I32, []int64{B}, 0))
		info = c.Select(c.Binary("and", zero, noInfo), c.SplatInt(dtype.I32, []int64{B}, j+1), info)
		if j == m-1 {
			break
		}
		colJ := c.BroadcastInDim(c.Reshape(sliceDim(c, a, 2, j, 1, 1), bm), full, []int64{0, 1})
		dB := c.BroadcastInDim(d, full, []int64{0})
		l := c.Binary("divide", colJ, dB) // l[b, i] for every row i
		rowJ := c.BroadcastInDim(c.Reshape(sliceDim(c, a, 1, j, 1, 1), []int64{B, n}), full, []int64{0, 2})
		below := c.Compare("GT", rowF, c.SplatInt(dtype.I64, full, j))
		right := c.Compare("GT", colF, c.SplatInt(dtype.I64, full, j))
		atJ := c.Compare("EQ", colF, c.SplatInt(dtype.I64, full, j))
		// LAPACK leaves the column unscaled when the pivot is zero.
		zb := c.BroadcastInDim(zero, full, []int64{0})
		upd := c.Binary("subtract", a, c.Binary("multiply", l, rowJ))
		a = c.Select(c.Binary("and", below, right), c.Select(zb, a, upd), a)
		a = c.Select(c.Binary("and", below, atJ), c.Select(zb, a, l), a)
	}
	return &luResult{lu: a, piv: piv, perm: perm, swaps: swaps, info: info}
}

// squareBatch flattens [..., n, n] to [B, n, n].
func squareBatch(c *LowerCtx, name string, x *stablehlo.Value) (*stablehlo.Value, []int64, error) {
	s := c.Shape(x)
	if len(s) < 2 || s[len(s)-1] != s[len(s)-2] {
		return nil, nil, c.Errorf("%s: A must be batches of square matrices, got %v", name, s)
	}
	if dt := c.DType(x); !isLinalgDType(dt) {
		return nil, nil, c.Errorf("%s: %v is not supported (float32, float64, complex64 and complex128 only)", name, dt.Torch())
	}
	batch := s[:len(s)-2]
	n := s[len(s)-1]
	return c.Reshape(x, []int64{numelOf(batch), n, n}), batch, nil
}

func withBatch(batch []int64, tail ...int64) []int64 {
	return append(append([]int64(nil), batch...), tail...)
}

// matBatch flattens [..., m, n] to [B, m, n] (rectangular allowed).
func matBatch(c *LowerCtx, name string, x *stablehlo.Value) (*stablehlo.Value, []int64, error) {
	s := c.Shape(x)
	if len(s) < 2 {
		return nil, nil, c.Errorf("%s: The input tensor A must have at least 2 dimensions.", name)
	}
	if dt := c.DType(x); !isLinalgDType(dt) {
		return nil, nil, c.Errorf("%s: %v is not supported (float32, float64, complex64 and complex128 only)", name, dt.Torch())
	}
	batch := s[:len(s)-2]
	return c.Reshape(x, []int64{numelOf(batch), s[len(s)-2], s[len(s)-1]}), batch, nil
}

func lowerLUFactor(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("A")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if !a.Bool("pivot") {
		return nil, c.Errorf("linalg.lu_factor without pivoting: %w", ErrUnsupported)
	}
	xb, batch, err := matBatch(c, "linalg.lu_factor", x)
	if err != nil {
		return nil, err
	}
	s := c.Shape(xb)
	m, n := s[1], s[2]
	r := luFactor(c, xb)
	return []Value{TensorValue(c.Reshape(r.lu, withBatch(batch, m, n))), TensorValue(c.Reshape(r.piv, withBatch(batch, min(m, n)))),
		TensorValue(c.Reshape(r.info, batch))}, nil
}

func lowerLU(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("A")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if !a.Bool("pivot") {
		return nil, c.Errorf("linalg.lu without pivoting: %w", ErrUnsupported)
	}
	xb, batch, err := matBatch(c, "linalg.lu", x)
	if err != nil {
		return nil, err
	}
	P, L, U := luUnpacked(c, luFactor(c, xb), c.DType(xb))
	return []Value{TensorValue(c.Reshape(P, withBatch(batch, c.Shape(P)[1:]...))), TensorValue(c.Reshape(L, withBatch(batch, c.Shape(L)[1:]...))),
		TensorValue(c.Reshape(U, withBatch(batch, c.Shape(U)[1:]...)))}, nil
}

// luUnpacked returns P [B, m, m], L [B, m, k] (unit lower) and U [B, k, n]
// with A = P L U.
func luUnpacked(c *LowerCtx, r *luResult, dt dtype.DType) (P, L, U *stablehlo.Value) {
	s := c.Shape(r.lu)
	B, m, n := s[0], s[1], s[2]
	k := min(m, n)
	ls := []int64{B, m, k}
	lpart := sliceDim(c, r.lu, 2, 0, k, 1)
	eye := c.Convert(c.Compare("EQ", c.Iota(dtype.I64, ls, 1), c.Iota(dtype.I64, ls, 2)), dt)
	L = c.Binary("add", c.Select(c.Compare("GT", c.Iota(dtype.I64, ls, 1), c.Iota(dtype.I64, ls, 2)), lpart, c.Like(lpart, 0)), eye)
	U = triangle(c, sliceDim(c, r.lu, 1, 0, k, 1), false)
	// P[perm[i], i] = 1.
	ps := []int64{B, m, m}
	P = c.Convert(c.Compare("EQ", c.Iota(dtype.I64, ps, 1), c.BroadcastInDim(r.perm, ps, []int64{0, 2})), dt)
	return P, L, U
}

func lowerDet(aux bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("A")
		if a.Err() != nil {
			return nil, a.Err()
		}
		xb, batch, err := squareBatch(c, "linalg.det", x)
		if err != nil {
			return nil, err
		}
		n := c.Shape(xb)[1]
		B := c.Shape(xb)[0]
		if n == 0 || B == 0 {
			// The determinant of a 0x0 matrix is 1; an empty batch has no
			// determinants. The LU factors and pivots are empty or zero.
			det := c.Splat(c.DType(xb), batch, 1)
			if !aux {
				return one(det), nil
			}
			return []Value{TensorValue(det), TensorValue(c.Splat(c.DType(xb), withBatch(batch, n, n), 0)),
				TensorValue(c.SplatInt(dtype.I32, withBatch(batch, n), 0))}, nil
		}
		r := luFactor(c, xb)
		diag := diagonalOf(c, r.lu, 0, 1, 2)
		det := c.Reduce(diag, []int64{1}, "multiply", 1)
		odd := c.Compare("EQ", c.Binary("remainder", r.swaps, c.SplatInt(dtype.I64, []int64{B}, 2)), c.SplatInt(dtype.I64, []int64{B}, 1))
		det = c.Select(odd, c.Unary("negate", det), det)
		res := c.Reshape(det, batch)
		if !aux {
			return one(res), nil
		}
		return []Value{TensorValue(res), TensorValue(c.Reshape(r.lu, withBatch(batch, n, n))), TensorValue(c.Reshape(r.piv, withBatch(batch, n)))}, nil
	}
}

// luSolve solves A X = B from the factorisation: X = U⁻¹ L⁻¹ P B.
func luSolve(c *LowerCtx, r *luResult, b *stablehlo.Value) (*stablehlo.Value, error) {
	pb := rowSelect(c, b, r.perm)
	y, err := triSolve(c, r.lu, pb, true, true, true, "NO_TRANSPOSE")
	if err != nil {
		return nil, err
	}
	return triSolve(c, triangle(c, r.lu, false), y, true, false, false, "NO_TRANSPOSE")
}

func lowerInv(withInfo bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("A")
		if a.Err() != nil {
			return nil, a.Err()
		}
		xb, batch, err := squareBatch(c, "linalg.inv", x)
		if err != nil {
			return nil, err
		}
		s := c.Shape(xb)
		n := s[1]
		r := luFactor(c, xb)
		eye := c.BroadcastTo(c.Convert(c.Compare("EQ", c.Iota(dtype.I64, []int64{n, n}, 0), c.Iota(dtype.I64, []int64{n, n}, 1)), c.DType(xb)), s)
		inv, err := luSolve(c, r, eye)
		if err != nil {
			return nil, err
		}
		out := c.Reshape(inv, withBatch(batch, n, n))
		if !withInfo {
			return one(out), nil
		}
		return []Value{TensorValue(out), TensorValue(c.Reshape(r.info, batch))}, nil
	}
}

func lowerSolve(form string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		A, Bv := a.Tensor("A"), a.Tensor("B")
		left := a.Bool("left")
		if a.Err() != nil {
			return nil, a.Err()
		}
		as, bs := c.Shape(A), c.Shape(Bv)
		if len(as) < 2 || as[len(as)-1] != as[len(as)-2] {
			return nil, c.Errorf("linalg.solve: A must be batches of square matrices, got %v", as)
		}
		if len(bs) == 0 {
			return nil, c.Errorf("linalg.solve: B must have at least 1 dimension")
		}
		if c.DType(A) != c.DType(Bv) {
			return nil, c.Errorf("linalg.solve: expected A and B to have the same dtype, got %v and %v", c.DType(A).Torch(), c.DType(Bv).Torch())
		}
		n := as[len(as)-1]
		// B is a batch of vectors when it has one dim less than A (and fits).
		vector := len(bs) == 1 || (len(bs) == len(as)-1 && sameShape(bs, as[:len(as)-1]))
		if !vector && len(bs) < 2 {
			return nil, c.Errorf("linalg.solve: incompatible shapes of A %v and B %v", as, bs)
		}
		if !left {
			// X A = B  ⇔  Aᵀ Xᵀ = Bᵀ
			pa := seqI64(len(as))
			pa[len(as)-2], pa[len(as)-1] = pa[len(as)-1], pa[len(as)-2]
			A = emitTranspose(c, A, pa)
			if !vector {
				pb := seqI64(len(bs))
				pb[len(bs)-2], pb[len(bs)-1] = pb[len(bs)-1], pb[len(bs)-2]
				Bv = emitTranspose(c, Bv, pb)
			}
		}
		if vector {
			Bv = c.Reshape(Bv, append(append([]int64(nil), c.Shape(Bv)...), 1))
		}
		bs = c.Shape(Bv)
		batch, err := broadcastShapes(as[:len(as)-2], bs[:len(bs)-2])
		if err != nil || bs[len(bs)-2] != n {
			return nil, c.Errorf("linalg.solve: incompatible shapes of A %v and B %v", as, c.Shape(a.Tensor("B")))
		}
		k := bs[len(bs)-1]
		A = c.BroadcastTo(A, withBatch(batch, n, n))
		Bv = c.BroadcastTo(Bv, withBatch(batch, n, k))
		ab, _, err := squareBatch(c, "linalg.solve", A)
		if err != nil {
			return nil, err
		}
		nb := c.Shape(ab)[0]
		r := luFactor(c, ab)
		x, err := luSolve(c, r, c.Reshape(Bv, []int64{nb, n, k}))
		if err != nil {
			return nil, err
		}
		x = c.Reshape(x, withBatch(batch, n, k))
		if vector {
			x = c.Reshape(x, withBatch(batch, n))
		} else if !left {
			p := seqI64(len(batch) + 2)
			p[len(p)-2], p[len(p)-1] = p[len(p)-1], p[len(p)-2]
			x = emitTranspose(c, x, p)
		}
		switch form {
		case "":
			return one(x), nil
		case "ex":
			return []Value{TensorValue(x), TensorValue(c.Reshape(r.info, batch))}, nil
		}
		return []Value{TensorValue(x), TensorValue(c.Reshape(r.lu, withBatch(batch, n, n))),
			TensorValue(c.Reshape(r.piv, withBatch(batch, n))), TensorValue(c.Reshape(r.info, batch))}, nil
	}
}
