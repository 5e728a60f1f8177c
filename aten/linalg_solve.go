package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Cholesky factorisation and triangular solves through stablehlo.cholesky
// and stablehlo.triangular_solve: linalg_cholesky(_ex), cholesky,
// linalg_solve_triangular, triangular_solve, cholesky_solve,
// cholesky_inverse. Leading dims are batch dims (broadcast between the
// operands of a solve). Float32/float64 only, as PyTorch's CPU kernels.

func init() {
	lower("aten::linalg_cholesky_ex", lowerCholesky("upper", true))
	lower("aten::linalg_cholesky", lowerCholesky("upper", false))
	lower("aten::linalg_solve_triangular", lowerSolveTriangular)
	lower("aten::triangular_solve", lowerTriangularSolve)
	lower("aten::cholesky_solve", lowerCholeskySolve)
	lower("aten::cholesky_inverse", lowerCholeskyInverse)
}

func checkLinalgInput(c *LowerCtx, name string, xs ...*stablehlo.Value) error {
	for _, x := range xs {
		s := c.Shape(x)
		if len(s) < 2 {
			return c.Errorf("%s: expected a tensor with 2 or more dimensions, got %v", name, s)
		}
		if dt := c.DType(x); !isLinalgDType(dt) {
			return c.Errorf("%s: %v is not supported (float32, float64, complex64 and complex128 only)", name, dt.Torch())
		}
	}
	if len(xs) > 1 && c.DType(xs[0]) != c.DType(xs[1]) {
		return c.Errorf("%s: expected both inputs to have the same dtype, got %v and %v", name, c.DType(xs[0]).Torch(), c.DType(xs[1]).Torch())
	}
	return nil
}

// triangle zeroes the other triangle of the trailing square matrices.
func triangle(c *LowerCtx, x *stablehlo.Value, lower bool) *stablehlo.Value {
	shape := c.Shape(x)
	r := len(shape)
	hw := shape[r-2:]
	diff := c.Binary("subtract", c.Iota(dtype.I64, hw, 1), c.Iota(dtype.I64, hw, 0))
	dir := "LE"
	if !lower {
		dir = "GE"
	}
	mask := c.BroadcastTo(c.Compare(dir, diff, c.SplatInt(dtype.I64, hw, 0)), shape)
	return c.Select(mask, x, c.Like(x, 0))
}

func choleskyOf(c *LowerCtx, x *stablehlo.Value, lower bool) *stablehlo.Value {
	l := c.Op1("stablehlo.cholesky", []*stablehlo.Value{x}, []stablehlo.NamedAttr{Attr("lower", stablehlo.BoolAttr(lower))})
	return triangle(c, l, lower)
}

func lowerCholesky(upperArg string, withInfo bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		upper := a.Bool(upperArg)
		if a.Err() != nil {
			return nil, a.Err()
		}
		if err := checkLinalgInput(c, a.Schema.Name, x); err != nil {
			return nil, err
		}
		s := c.Shape(x)
		n := s[len(s)-1]
		if s[len(s)-2] != n {
			return nil, c.Errorf("%s: a must be batches of square matrices, but they are %d by %d matrices", a.Schema.Name, s[len(s)-2], n)
		}
		l := choleskyOf(c, x, !upper)
		if !withInfo {
			return one(l), nil
		}
		// info: 1 + the first diagonal entry that is not positive (the
		// order of the failing leading minor), 0 when the factor exists.
		r := len(s)
		diag := diagonalOf(c, l, 0, r-2, r-1)
		if c.DType(diag).IsComplex() {
			diag = c.Unary("real", diag)
		}
		ds := c.Shape(diag)
		bad := c.Binary("or", c.IsNaN(diag), c.Compare("LE", diag, c.Like(diag, 0)))
		pos := c.Binary("add", c.Iota(dtype.I32, ds, len(ds)-1), c.SplatInt(dtype.I32, ds, 1))
		first := reduceInit(c, c.Select(bad, pos, c.SplatInt(dtype.I32, ds, n+1)), []int64{int64(len(ds) - 1)}, "minimum", c.SplatInt(dtype.I32, nil, n+1))
		bs := c.Shape(first)
		info := c.Select(c.Compare("GT", first, c.SplatInt(dtype.I32, bs, n)), c.SplatInt(dtype.I32, bs, 0), first)
		return []Value{TensorValue(partialFactor(c, x, l, first, upper)), TensorValue(info)}, nil
	}
}

// triSolve solves op(a) x = b (left) or x op(a) = b with a triangular,
// broadcasting the batch dims.
func triSolve(c *LowerCtx, a, b *stablehlo.Value, left, lower, unit bool, transpose string) (*stablehlo.Value, error) {
	as, bs := c.Shape(a), c.Shape(b)
	ra, rb := len(as), len(bs)
	batch, err := broadcastShapes(as[:ra-2], bs[:rb-2])
	if err != nil {
		return nil, c.Errorf("triangular solve: batch dims of %v and %v do not broadcast: %w", as, bs, err)
	}
	n := as[ra-1]
	if as[ra-2] != n {
		return nil, c.Errorf("triangular solve: A must be batches of square matrices, got %v", as)
	}
	if (left && bs[rb-2] != n) || (!left && bs[rb-1] != n) {
		return nil, c.Errorf("triangular solve: incompatible shapes of A %v and B %v", as, bs)
	}
	a = c.BroadcastTo(a, append(append([]int64(nil), batch...), as[ra-2:]...))
	b = c.BroadcastTo(b, append(append([]int64(nil), batch...), bs[rb-2:]...))
	return c.Op1("stablehlo.triangular_solve", []*stablehlo.Value{a, b}, []stablehlo.NamedAttr{
		Attr("left_side", stablehlo.BoolAttr(left)),
		Attr("lower", stablehlo.BoolAttr(lower)),
		Attr("unit_diagonal", stablehlo.BoolAttr(unit)),
		Attr("transpose_a", &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "transpose", Value: transpose}),
	}), nil
}

func lowerSolveTriangular(c *LowerCtx, a *Args) ([]Value, error) {
	A, B := a.Tensor("self"), a.Tensor("B")
	upper, left, unit := a.Bool("upper"), a.Bool("left"), a.Bool("unitriangular")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if err := checkLinalgInput(c, "linalg.solve_triangular", A, B); err != nil {
		return nil, err
	}
	// Only the chosen triangle of A is read.
	x, err := triSolve(c, triangle(c, A, !upper), B, left, !upper, unit, "NO_TRANSPOSE")
	if err != nil {
		return nil, err
	}
	return one(x), nil
}

func lowerTriangularSolve(c *LowerCtx, a *Args) ([]Value, error) {
	B, A := a.Tensor("self"), a.Tensor("A")
	upper, trans, unit := a.Bool("upper"), a.Bool("transpose"), a.Bool("unitriangular")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if err := checkLinalgInput(c, "triangular_solve", B, A); err != nil {
		return nil, err
	}
	t := "NO_TRANSPOSE"
	if trans {
		t = "TRANSPOSE"
	}
	x, err := triSolve(c, triangle(c, A, !upper), B, true, !upper, unit, t)
	if err != nil {
		return nil, err
	}
	// The second result is a copy of A broadcast to the batch shape.
	bs := c.Shape(x)
	as := c.Shape(A)
	ac := c.BroadcastTo(A, append(append([]int64(nil), bs[:len(bs)-2]...), as[len(as)-2:]...))
	return []Value{TensorValue(x), TensorValue(ac)}, nil
}

func lowerCholeskySolve(c *LowerCtx, a *Args) ([]Value, error) {
	B, L := a.Tensor("self"), a.Tensor("input2")
	upper := a.Bool("upper")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if err := checkLinalgInput(c, "cholesky_solve", B, L); err != nil {
		return nil, err
	}
	// A = L Lᴴ (or Uᴴ U): solve with the factor, then its adjoint.
	f := triangle(c, L, !upper)
	first, second := "NO_TRANSPOSE", "ADJOINT"
	if upper {
		first, second = "ADJOINT", "NO_TRANSPOSE"
	}
	y, err := triSolve(c, f, B, true, !upper, false, first)
	if err != nil {
		return nil, err
	}
	x, err := triSolve(c, f, y, true, !upper, false, second)
	if err != nil {
		return nil, err
	}
	return one(x), nil
}

func lowerCholeskyInverse(c *LowerCtx, a *Args) ([]Value, error) {
	L := a.Tensor("self")
	upper := a.Bool("upper")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if err := checkLinalgInput(c, "cholesky_inverse", L); err != nil {
		return nil, err
	}
	s := c.Shape(L)
	n := s[len(s)-1]
	eye := c.Convert(c.Compare("EQ", c.Iota(dtype.I64, []int64{n, n}, 0), c.Iota(dtype.I64, []int64{n, n}, 1)), c.DType(L))
	f := triangle(c, L, !upper)
	first, second := "NO_TRANSPOSE", "ADJOINT"
	if upper {
		first, second = "ADJOINT", "NO_TRANSPOSE"
	}
	y, err := triSolve(c, f, c.BroadcastTo(eye, s), true, !upper, false, first)
	if err != nil {
		return nil, err
	}
	x, err := triSolve(c, f, y, true, !upper, false, second)
	if err != nil {
		return nil, err
	}
	return one(x), nil
}

// partialFactor reproduces what LAPACK's potrf leaves when the leading
// minor of order k+1 is not positive definite (k = first-1): columns
// before k factored, the failing diagonal entry reduced by the factored
// part of its row, and the rest of the chosen triangle untouched input.
// Where the factor exists (first > n) it is l itself.
func partialFactor(c *LowerCtx, x, l, first *stablehlo.Value, upper bool) *stablehlo.Value {
	s := c.Shape(x)
	r := len(s)
	n := s[r-1]
	if upper {
		// Work on the lower form: Uᵀ = L of Aᵀ (A symmetric in the read
		// triangle).
		perm := seqI64(r)
		perm[r-2], perm[r-1] = perm[r-1], perm[r-2]
		adj := func(v *stablehlo.Value) *stablehlo.Value {
			v = emitTranspose(c, v, perm)
			if c.DType(v).IsComplex() {
				v = c.Call1("aten::conj_physical", TensorValue(v))
			}
			return v
		}
		return adj(partialFactor(c, adj(x), adj(l), first, false))
	}
	bdims := seqI64(r - 2)
	k := c.BroadcastInDim(c.Convert(c.Binary("subtract", first, c.SplatInt(dtype.I32, c.Shape(first), 1)), dtype.I64), s, bdims)
	row, col := c.Iota(dtype.I64, s, r-2), c.Iota(dtype.I64, s, r-1)
	// Diagonal value at k: a[k,k] - sum_{m<k} l[k,m]^2.
	lz := c.Select(c.IsNaN(l), c.Like(l, 0), l)
	isRowK := c.Compare("EQ", row, k)
	before := c.Compare("LT", col, k)
	lc := lz
	if c.DType(l).IsComplex() {
		lc = c.Call1("aten::conj_physical", TensorValue(lz))
	}
	sq := c.Select(c.Binary("and", isRowK, before), c.Binary("multiply", lz, lc), c.Like(l, 0))
	rowSum := c.Reduce(sq, []int64{int64(r - 2), int64(r - 1)}, "add", 0)
	isDiagK := c.Binary("and", isRowK, c.Compare("EQ", col, k))
	akk := c.Reduce(c.Select(isDiagK, x, c.Like(x, 0)), []int64{int64(r - 2), int64(r - 1)}, "add", 0)
	dkk := c.BroadcastInDim(c.Binary("subtract", akk, rowSum), s, bdims)
	lowerA := triangle(c, x, true)
	out := c.Select(before, l, lowerA)
	out = c.Select(isDiagK, dkk, out)
	ok := c.BroadcastInDim(c.Compare("GT", first, c.SplatInt(dtype.I32, c.Shape(first), n)), s, bdims)
	return c.Select(ok, l, out)
}

// isLinalgDType reports the dtypes PyTorch's CPU linear algebra takes.
func isLinalgDType(dt dtype.DType) bool {
	return dt == dtype.F32 || dt == dtype.F64 || dt == dtype.C64 || dt == dtype.C128
}
