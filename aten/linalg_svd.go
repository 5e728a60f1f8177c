package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The eigen- and singular-value family over the Jacobi kernels
// (linalg_jacobi.go): eigh / eigvalsh, svd (linalg and legacy forms,
// full or reduced), svdvals, pinv and pinverse, matrix_rank, cond, the
// spectral and nuclear matrix norms, polar and matrix_sqrth. Work is
// done in float64 (complex128) for single-precision inputs and rounded
// once.

func init() {
	lower("aten::linalg_eigh", func(c *LowerCtx, a *Args) ([]Value, error) {
		vals, vecs, err := eighOf(c, a.Tensor("self"), a.Str("UPLO"), a)
		if err != nil {
			return nil, err
		}
		return []Value{TensorValue(vals), TensorValue(vecs)}, nil
	})
	lower("aten::linalg_eigvalsh", func(c *LowerCtx, a *Args) ([]Value, error) {
		vals, _, err := eighOf(c, a.Tensor("self"), a.Str("UPLO"), a)
		if err != nil {
			return nil, err
		}
		return one(vals), nil
	})
	lower("aten::linalg_svd", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("A")
		full := a.Bool("full_matrices")
		if a.Err() != nil {
			return nil, a.Err()
		}
		u, s, v, err := svdOf(c, x, full, "linalg.svd")
		if err != nil {
			return nil, err
		}
		return []Value{TensorValue(u), TensorValue(s), TensorValue(adjointLast(c, v))}, nil
	})
	lower("aten::svd", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		some, uv := a.Bool("some"), a.Bool("compute_uv")
		if a.Err() != nil {
			return nil, a.Err()
		}
		u, s, v, err := svdOf(c, x, !some || !uv, "svd")
		if err != nil {
			return nil, err
		}
		if !uv {
			u, v = c.Splat(c.DType(u), c.Shape(u), 0), c.Splat(c.DType(v), c.Shape(v), 0)
		}
		return []Value{TensorValue(u), TensorValue(s), TensorValue(v)}, nil
	})
	lower("aten::linalg_svdvals", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("A")
		if a.Err() != nil {
			return nil, a.Err()
		}
		_, s, _, err := svdOf(c, x, false, "linalg.svdvals")
		if err != nil {
			return nil, err
		}
		return one(s), nil
	})
	for _, ov := range []string{"", ".atol_rtol_float", ".atol_rtol_tensor", ".rcond_tensor"} {
		lower("aten::linalg_pinv"+ov, lowerPinv)
	}
	decomp("aten::pinverse", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::linalg_pinv", []Value{a.Value("self"), a.Value("rcond")}, nil)
	})
	for _, ov := range []string{"", ".tol_tensor", ".atol_rtol_float", ".atol_rtol_tensor"} {
		lower("aten::linalg_matrix_rank"+ov, lowerMatrixRank)
	}
	lower("aten::linalg_cond", lowerCond)
	lower("aten::linalg_cond.p_str", lowerCond)
	lower("aten::linalg_matrix_norm", lowerMatrixNorm)
	lower("aten::linalg_polar", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("A")
		if a.Err() != nil {
			return nil, a.Err()
		}
		s := c.Shape(x)
		if len(s) < 2 || s[len(s)-2] < s[len(s)-1] {
			return nil, c.Errorf("linalg.polar: A must have at least as many rows as columns, got %v", s)
		}
		w, sv, v, err := svdOf(c, x, false, "linalg.polar")
		if err != nil {
			return nil, err
		}
		vh := adjointLast(c, v)
		u := c.Call1("aten::matmul", TensorValue(w), TensorValue(vh))
		vs := c.Call1("aten::mul.Tensor", TensorValue(v), TensorValue(c.Unsqueeze(c.Convert(sv, c.DType(v)), -2)))
		h := c.Call1("aten::matmul", TensorValue(vs), TensorValue(vh))
		return []Value{TensorValue(u), TensorValue(h)}, nil
	})
	lower("aten::linalg_matrix_sqrth", func(c *LowerCtx, a *Args) ([]Value, error) {
		vals, vecs, err := eighOf(c, a.Tensor("self"), "L", a)
		if err != nil {
			return nil, err
		}
		root := c.Unary("sqrt", c.Binary("maximum", vals, c.Like(vals, 0)))
		scaled := c.Call1("aten::mul.Tensor", TensorValue(vecs), TensorValue(c.Unsqueeze(c.Convert(root, c.DType(vecs)), -2)))
		return c.Call("aten::matmul", []Value{TensorValue(scaled), TensorValue(adjointLast(c, vecs))}, nil)
	})
}

// Unsqueeze inserts a size-1 dim at d (negative counts from the end of
// the result).
func (c *LowerCtx) Unsqueeze(v *stablehlo.Value, d int) *stablehlo.Value {
	s := c.Shape(v)
	if d < 0 {
		d += len(s) + 1
	}
	out := append(append(append([]int64(nil), s[:d]...), 1), s[d:]...)
	return c.Reshape(v, out)
}

// adjointLast is the conjugate transpose of the last two dims.
func adjointLast(c *LowerCtx, v *stablehlo.Value) *stablehlo.Value {
	r := c.Rank(v)
	p := seqI64(r)
	p[r-2], p[r-1] = p[r-1], p[r-2]
	return conjIf(c, emitTranspose(c, v, p))
}

// linalgWide is the dtype the Jacobi kernels run in for dt.
func linalgWide(c *LowerCtx, dt dtype.DType) dtype.DType {
	if c.NoF64 {
		return dt
	}
	switch dt {
	case dtype.F32:
		return dtype.F64
	case dtype.C64:
		return dtype.C128
	}
	return dt
}

// eighOf: eigenvalues (ascending, real dtype) and eigenvectors of the
// Hermitian matrix whose UPLO triangle x holds (the diagonal's imaginary
// part ignored).
func eighOf(c *LowerCtx, x *stablehlo.Value, uplo string, a *Args) (vals, vecs *stablehlo.Value, err error) {
	if a.Err() != nil {
		return nil, nil, a.Err()
	}
	if uplo != "L" && uplo != "U" {
		return nil, nil, c.Errorf("Expected UPLO argument to be 'L' or 'U', but got %s", uplo)
	}
	xb, batch, err := squareBatch(c, "linalg.eigh", x)
	if err != nil {
		return nil, nil, err
	}
	dt := c.DType(xb)
	s := c.Shape(xb)
	B, n := s[0], s[1]
	if n == 0 || B == 0 {
		return c.Splat(realPart(dt), withBatch(batch, n), 0), c.Reshape(xb, withBatch(batch, n, n)), nil
	}
	w := linalgWide(c, dt)
	xw := c.Convert(xb, w)
	// Hermitian from the chosen triangle.
	tri := triangle(c, xw, uplo == "L")
	strict := c.Select(c.Compare("EQ", c.Iota(dtype.I64, s, 1), c.Iota(dtype.I64, s, 2)), c.Like(tri, 0), tri)
	h := c.Binary("add", strict, adjointLast(c, strict))
	diag := c.Compare("EQ", c.Iota(dtype.I64, s, 1), c.Iota(dtype.I64, s, 2))
	dv := xw
	if w.IsComplex() {
		dv = c.Convert(c.Unary("real", xw), w)
	}
	h = c.Select(diag, dv, h)
	ev, evec := jacobiEigh(c, h)
	return c.Reshape(c.Convert(ev, realPart(dt)), withBatch(batch, n)), c.Reshape(c.Convert(evec, dt), withBatch(batch, n, n)), nil
}

// svdOf returns U, S, V (not Vᴴ) of x [..., m, n]: reduced (U m×k, V n×k)
// or full (U m×m, V n×n), k = min(m, n).
func svdOf(c *LowerCtx, x *stablehlo.Value, full bool, name string) (u, s, v *stablehlo.Value, err error) {
	xb, batch, err := matBatch(c, name, x)
	if err != nil {
		return nil, nil, nil, err
	}
	dt := c.DType(xb)
	sh := c.Shape(xb)
	B, m, n := sh[0], sh[1], sh[2]
	k := min(m, n)
	w := linalgWide(c, dt)
	xw := c.Convert(xb, w)
	var U, S, V *stablehlo.Value
	switch {
	case k == 0 || B == 0:
		U, S, V = c.Splat(w, []int64{B, m, k}, 0), c.Splat(realPart(w), []int64{B, k}, 0), c.Splat(w, []int64{B, n, k}, 0)
	case m >= n:
		U, S, V = jacobiSVD(c, xw)
	default:
		V, S, U = jacobiSVD(c, adjointLast(c, xw))
	}
	if full {
		U, V = completeBasis(c, U), completeBasis(c, V)
	}
	r := func(t *stablehlo.Value) *stablehlo.Value {
		return c.Reshape(c.Convert(t, dt), withBatch(batch, c.Shape(t)[1:]...))
	}
	return r(U), c.Reshape(c.Convert(S, realPart(dt)), withBatch(batch, k)), r(V), nil
}

// completeBasis extends orthonormal columns q [B, m, k] to a unitary
// [B, m, m]: the columns after k of a complete QR of q.
func completeBasis(c *LowerCtx, q *stablehlo.Value) *stablehlo.Value {
	s := c.Shape(q)
	B, m, k := s[0], s[1], s[2]
	if k == m {
		return q
	}
	dt := c.DType(q)
	if k == 0 || B == 0 {
		return identityLike(c, dt, B, m, m)
	}
	r, tau := geqrf(c, q)
	full := applyQ(c, r, tau, identityLike(c, dt, B, m, m), true, false)
	return emitConcat(c, []*stablehlo.Value{q, sliceDim(c, full, 2, k, m-k, 1)}, 2)
}

// optTol reads a tolerance given as a float, a tensor, or None.
func optTol(c *LowerCtx, a *Args, name string, rt dtype.DType) (*stablehlo.Value, bool) {
	if a.Schema.Param(name) < 0 {
		return nil, false
	}
	v := a.Value(name)
	switch {
	case v.IsNone():
		return nil, false
	case v.Kind == KTensor:
		return c.Convert(a.Tensor(name), rt), true
	}
	return c.Splat(rt, nil, a.Float(name)), true
}

// tolerances returns the absolute and relative tolerances of pinv and
// matrix_rank: the overload's atol/rtol (rcond and tol spell one of them),
// rtol defaulting to eps·max(m, n) when atol is unset or not positive.
func tolerances(c *LowerCtx, a *Args, rt dtype.DType, m, n int64) (atol, rtol *stablehlo.Value) {
	var hasA, hasR bool
	atol, hasA = optTol(c, a, "atol", rt)
	rtol, hasR = optTol(c, a, "rtol", rt)
	if v, ok := optTol(c, a, "rcond", rt); ok {
		rtol, hasR = v, true
	}
	if v, ok := optTol(c, a, "tol", rt); ok {
		atol, hasA = v, true
		rtol, hasR = c.Splat(rt, nil, 0), true
	}
	if !hasA {
		atol = c.Splat(rt, nil, 0)
	}
	if !hasR {
		eps := math.Nextafter32(1, 2) - 1
		e := float64(eps)
		if rt == dtype.F64 {
			e = math.Nextafter(1, 2) - 1
		}
		def := c.Splat(rt, nil, e*float64(max(m, n)))
		if hasA {
			rtol = c.Select(c.Compare("GT", atol, c.Like(atol, 0)), c.Like(def, 0), def)
		} else {
			rtol = def
		}
	}
	return atol, rtol
}

// spectrum returns the singular values [..., k] of x (or |eigenvalues| for
// hermitian) and, when vectors, the factors of the pseudo-inverse.
func lowerPinv(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	herm := a.Bool("hermitian")
	if a.Err() != nil {
		return nil, a.Err()
	}
	sh := c.Shape(x)
	if len(sh) < 2 {
		return nil, c.Errorf("linalg.pinv(%s{%v}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types", c.DType(x).Torch(), sh)
	}
	m, n := sh[len(sh)-2], sh[len(sh)-1]
	dt := c.DType(x)
	rt := realPart(dt)
	atol, rtol := tolerances(c, a, rt, m, n)
	if c.Err() != nil {
		return nil, c.Err()
	}
	var left, right, sv *stablehlo.Value // A = left·diag(sv)·rightᴴ
	if herm {
		vals, vecs, err := eighOf(c, x, "L", a)
		if err != nil {
			return nil, err
		}
		left, right, sv = vecs, c.Call1("aten::mul.Tensor", TensorValue(vecs), TensorValue(c.Unsqueeze(c.Convert(c.Unary("sign", vals), dt), -2))), c.Unary("abs", vals)
	} else {
		u, s, v, err := svdOf(c, x, false, "linalg.pinv")
		if err != nil {
			return nil, err
		}
		left, right, sv = u, v, s
	}
	k := c.Shape(sv)[c.Rank(sv)-1]
	if k == 0 {
		out := append(append([]int64(nil), sh[:len(sh)-2]...), n, m)
		return one(c.Splat(dt, out, 0)), nil
	}
	maxv := c.Reduce(sv, []int64{int64(c.Rank(sv) - 1)}, "maximum", 0)
	tol := c.Binary("maximum", c.BroadcastTo(atol, c.Shape(maxv)), c.Binary("multiply", c.BroadcastTo(rtol, c.Shape(maxv)), maxv))
	keep := c.Compare("GT", sv, c.BroadcastTo(c.Unsqueeze(tol, -1), c.Shape(sv)))
	inv := c.Select(keep, c.Binary("divide", c.Like(sv, 1), sv), c.Like(sv, 0))
	scaled := c.Call1("aten::mul.Tensor", TensorValue(right), TensorValue(c.Unsqueeze(c.Convert(inv, dt), -2)))
	return c.Call("aten::matmul", []Value{TensorValue(scaled), TensorValue(adjointLast(c, left))}, nil)
}

func lowerMatrixRank(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor(a.Schema.Params[0].Name)
	herm := a.Bool("hermitian")
	if a.Err() != nil {
		return nil, a.Err()
	}
	sh := c.Shape(x)
	if len(sh) < 2 {
		return nil, c.Errorf("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
	}
	m, n := sh[len(sh)-2], sh[len(sh)-1]
	rt := realPart(c.DType(x))
	atol, rtol := tolerances(c, a, rt, m, n)
	var sv *stablehlo.Value
	if herm {
		vals, _, err := eighOf(c, x, "L", a)
		if err != nil {
			return nil, err
		}
		sv = c.Unary("abs", vals)
	} else {
		_, s, _, err := svdOf(c, x, false, "linalg.matrix_rank")
		if err != nil {
			return nil, err
		}
		sv = s
	}
	k := c.Shape(sv)[c.Rank(sv)-1]
	if k == 0 {
		return one(c.SplatInt(dtype.I64, sh[:len(sh)-2], 0)), nil
	}
	last := []int64{int64(c.Rank(sv) - 1)}
	maxv := c.Reduce(sv, last, "maximum", 0)
	tol := c.Binary("maximum", c.BroadcastTo(atol, c.Shape(maxv)), c.Binary("multiply", c.BroadcastTo(rtol, c.Shape(maxv)), maxv))
	keep := c.Compare("GT", sv, c.BroadcastTo(c.Unsqueeze(tol, -1), c.Shape(sv)))
	return one(c.Reduce(c.Convert(keep, dtype.I64), last, "add", 0)), nil
}

// matrixNorm computes ord's norm over the last two dims of x [..., m, n].
func matrixNorm(c *LowerCtx, x *stablehlo.Value, ord string, p float64) (*stablehlo.Value, error) {
	dt := c.DType(x)
	r := c.Rank(x)
	rows, cols := []int64{int64(r - 2)}, []int64{int64(r - 1)}
	ax := c.Convert(c.Unary("abs", x), realPart(dt))
	switch {
	case ord == "fro":
		return c.Unary("sqrt", c.Reduce(c.Binary("multiply", ax, ax), []int64{int64(r - 2), int64(r - 1)}, "add", 0)), nil
	case ord == "nuc" || math.Abs(p) == 2:
		_, s, _, err := svdOf(c, x, false, "linalg.matrix_norm")
		if err != nil {
			return nil, err
		}
		last := []int64{int64(c.Rank(s) - 1)}
		switch {
		case ord == "nuc":
			return c.Reduce(s, last, "add", 0), nil
		case p > 0:
			return c.Reduce(s, last, "maximum", 0), nil
		}
		return c.Reduce(s, last, "minimum", math.Inf(1)), nil
	case math.Abs(p) == 1:
		sums := c.Reduce(ax, rows, "add", 0)
		if p > 0 {
			return c.Reduce(sums, []int64{int64(r - 2)}, "maximum", 0), nil
		}
		return c.Reduce(sums, []int64{int64(r - 2)}, "minimum", math.Inf(1)), nil
	case math.IsInf(p, 0):
		sums := c.Reduce(ax, cols, "add", 0)
		if p > 0 {
			return c.Reduce(sums, []int64{int64(r - 2)}, "maximum", 0), nil
		}
		return c.Reduce(sums, []int64{int64(r - 2)}, "minimum", math.Inf(1)), nil
	}
	return nil, c.Errorf("linalg.matrix_norm: Order %v not supported.", p)
}

// ordArg reads a matrix norm order: a string (fro, nuc) or a number.
func ordArg(a *Args, name string) (string, float64) {
	v := a.Value(name)
	if v.Kind == KStr {
		return v.S, 0
	}
	s := a.Scalar(name)
	return "", s.Float()
}

func lowerMatrixNorm(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	ord, p := ordArg(a, "ord")
	dims := a.Ints("dim")
	keep := a.Bool("keepdim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if od, ok := a.OptDType("dtype"); ok {
		x = c.Convert(x, od)
	}
	r := c.Rank(x)
	if r < 2 || len(dims) != 2 {
		return nil, c.Errorf("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
	}
	cd, err := canonDims(dims, r)
	if err != nil || cd[0] == cd[1] {
		return nil, c.Errorf("linalg.matrix_norm: dims must be different. Got (%d, %d)", dims[0], dims[1])
	}
	var perm []int64
	for i := 0; i < r; i++ {
		if i != cd[0] && i != cd[1] {
			perm = append(perm, int64(i))
		}
	}
	perm = append(perm, int64(cd[0]), int64(cd[1]))
	out, err := matrixNorm(c, emitTranspose(c, x, perm), ord, p)
	if err != nil {
		return nil, err
	}
	if keep {
		out = c.Reshape(out, keptShape(c.Shape(x), []int64{int64(cd[0]), int64(cd[1])}, true))
	}
	return one(out), nil
}

func lowerCond(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	ord, p := "", 2.0
	if v := a.Value("p"); !v.IsNone() {
		ord, p = ordArg(a, "p")
	}
	sh := c.Shape(x)
	if len(sh) < 2 {
		return nil, c.Errorf("linalg.cond: The input tensor A must have at least 2 dimensions.")
	}
	if ord == "" && math.Abs(p) == 2 {
		_, s, _, err := svdOf(c, x, false, "linalg.cond")
		if err != nil {
			return nil, err
		}
		last := []int64{int64(c.Rank(s) - 1)}
		hi, lo := c.Reduce(s, last, "maximum", 0), c.Reduce(s, last, "minimum", math.Inf(1))
		if p > 0 {
			return one(c.Binary("divide", hi, lo)), nil
		}
		return one(c.Binary("divide", lo, hi)), nil
	}
	if sh[len(sh)-1] != sh[len(sh)-2] {
		return nil, c.Errorf("linalg.cond(ord=%v): A must be batches of square matrices, but they are %d by %d matrices", p, sh[len(sh)-2], sh[len(sh)-1])
	}
	inv := c.Call1("aten::linalg_inv", TensorValue(x))
	n1, err := matrixNorm(c, x, ord, p)
	if err != nil {
		return nil, err
	}
	n2, err := matrixNorm(c, inv, ord, p)
	if err != nil {
		return nil, err
	}
	return one(c.Binary("multiply", n1, n2)), nil
}
