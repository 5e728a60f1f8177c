package native

// triangular_solve and cholesky over the trailing two dims (leading dims
// are batch), computed in float64 or complex128 and rounded once.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"math"
	"math/cmplx"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.triangular_solve", evalTriangularSolve)
	register("stablehlo.cholesky", evalCholesky)
}

type linalgElem interface{ ~float64 | ~complex128 }

func conjOf[T linalgElem](v T) T {
	if c, ok := any(v).(complex128); ok {
		return any(cmplx.Conj(c)).(T)
	}
	return v
}

func evalTriangularSolve(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	a, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	b, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	left, _ := op.Bool("left_side")
	lower, _ := op.Bool("lower")
	unit, _ := op.Bool("unit_diagonal")
	trans, ok := op.Enum("transpose_a")
	if !ok {
		trans = "NO_TRANSPOSE"
	}
	switch trans {
	case "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT":
	default:
		return nil, fmt.Errorf("%s: unknown transpose_a %q", op.Name, trans)
	}
	r := a.Rank()
	if r < 2 || b.Rank() != r || a.Shape[r-1] != a.Shape[r-2] {
		return nil, fmt.Errorf("%s: a %v must be square matrices and b %v of the same rank", op.Name, a, b)
	}
	n := int(a.Shape[r-1])
	for d := 0; d < r-2; d++ {
		if a.Shape[d] != b.Shape[d] {
			return nil, fmt.Errorf("%s: batch dims of a %v and b %v differ", op.Name, a, b)
		}
	}
	rows, cols := int(b.Shape[r-2]), int(b.Shape[r-1])
	if (left && rows != n) || (!left && cols != n) {
		return nil, fmt.Errorf("%s: b %v does not match a %v (left_side=%v)", op.Name, b, a, left)
	}
	if err := checkComputedShape(op, 0, b.Shape); err != nil {
		return nil, err
	}
	out, err := literal.New(b.DType, b.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	if out.Len() == 0 {
		// Nothing to solve (0x0 matrices, no right-hand sides or an empty
		// batch): the kernels below index the first row.
		return []Value{out}, nil
	}
	batch := elemCount(a.Shape[:r-2])
	cfg := triSolve{n: n, rows: rows, cols: cols, left: left, lower: lower, unit: unit, trans: trans}
	switch {
	case b.DType.IsComplex() && n <= triSolveBlock:
		rnd := func(v complex128) complex128 { return v }
		if b.DType == dtype.C64 {
			rnd = func(v complex128) complex128 { return complex(f32r(real(v)), f32r(imag(v))) }
		}
		encodeComplexes(out, triSolveInverse(cfg, batch, decodeComplexes(a), decodeComplexes(b), rnd))
	case b.DType.IsComplex():
		encodeComplexes(out, triSolveRun(cfg, batch, decodeComplexes(a), decodeComplexes(b)))
	case n <= triSolveBlock && (b.DType == dtype.F32 || b.DType == dtype.F64):
		rnd := func(v float64) float64 { return v }
		if b.DType == dtype.F32 {
			rnd = f32r
		}
		encodeFloats(out, triSolveInverse(cfg, batch, decodeFloats(a), decodeFloats(b), rnd))
	default:
		encodeFloats(out, triSolveRun(cfg, batch, decodeFloats(a), decodeFloats(b)))
	}
	return []Value{out}, nil
}

type triSolve struct {
	n, rows, cols     int
	left, lower, unit bool
	trans             string
}

// triSolveRun solves every batch. The effective matrix t = op(a) keeps
// only the triangle named by lower (read before op is applied).
func triSolveRun[T linalgElem](c triSolve, batch int, a, b []T) []T {
	n := c.n
	out := make([]T, len(b))
	t := make([]T, n*n)
	for bi := 0; bi < batch; bi++ {
		am := a[bi*n*n : (bi+1)*n*n]
		for i := range t {
			t[i] = 0
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if (c.lower && j > i) || (!c.lower && j < i) {
					continue
				}
				v := am[i*n+j]
				if i == j && c.unit {
					v = 1
				}
				switch c.trans {
				case "TRANSPOSE":
					t[j*n+i] = v
				case "ADJOINT":
					t[j*n+i] = conjOf(v)
				default:
					t[i*n+j] = v
				}
			}
		}
		tLower := c.lower != (c.trans != "NO_TRANSPOSE")
		bm := b[bi*c.rows*c.cols : (bi+1)*c.rows*c.cols]
		xm := out[bi*c.rows*c.cols : (bi+1)*c.rows*c.cols]
		copy(xm, bm)
		if c.left {
			// t x = b, column by column of b (x is n × cols)
			for col := 0; col < c.cols; col++ {
				if tLower {
					for i := 0; i < n; i++ {
						s := xm[i*c.cols+col]
						for k := 0; k < i; k++ {
							s -= t[i*n+k] * xm[k*c.cols+col]
						}
						xm[i*c.cols+col] = s / t[i*n+i]
					}
				} else {
					for i := n - 1; i >= 0; i-- {
						s := xm[i*c.cols+col]
						for k := i + 1; k < n; k++ {
							s -= t[i*n+k] * xm[k*c.cols+col]
						}
						xm[i*c.cols+col] = s / t[i*n+i]
					}
				}
			}
		} else {
			// x t = b, row by row of b (x is rows × n): x[j] = (b[j] - sum_k x[k] t[k][j]) / t[j][j]
			for row := 0; row < c.rows; row++ {
				x := xm[row*n : (row+1)*n]
				if tLower {
					for j := n - 1; j >= 0; j-- {
						s := x[j]
						for k := j + 1; k < n; k++ {
							s -= x[k] * t[k*n+j]
						}
						x[j] = s / t[j*n+j]
					}
				} else {
					for j := 0; j < n; j++ {
						s := x[j]
						for k := 0; k < j; k++ {
							s -= x[k] * t[k*n+j]
						}
						x[j] = s / t[j*n+j]
					}
				}
			}
		}
	}
	return out
}

func evalCholesky(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	a, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	r := a.Rank()
	if r < 2 || a.Shape[r-1] != a.Shape[r-2] {
		return nil, fmt.Errorf("%s: operand %v must hold square matrices", op.Name, a)
	}
	lower, _ := op.Bool("lower")
	out, err := literal.New(a.DType, a.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	n := int(a.Shape[r-1])
	batch := elemCount(a.Shape[:r-2])
	if a.DType.IsComplex() {
		encodeComplexes(out, choleskyRun(decodeComplexes(a), batch, n, lower, func(v complex128) complex128 { return cmplx.Sqrt(v) }))
	} else {
		encodeFloats(out, choleskyRun(decodeFloats(a), batch, n, lower, math.Sqrt))
	}
	return []Value{out}, nil
}

// choleskyRun factors each matrix from its lower (or upper) triangle; the
// other triangle of the result is zero.
func choleskyRun[T linalgElem](a []T, batch, n int, lower bool, sqrt func(T) T) []T {
	out := make([]T, len(a))
	l := make([]T, n*n)
	for bi := 0; bi < batch; bi++ {
		m := a[bi*n*n : (bi+1)*n*n]
		// read the Hermitian matrix from the chosen triangle, as lower
		at := func(i, j int) T { // i >= j
			if lower {
				return m[i*n+j]
			}
			return conjOf(m[j*n+i])
		}
		for i := range l {
			l[i] = 0
		}
		for j := 0; j < n; j++ {
			s := at(j, j)
			for k := 0; k < j; k++ {
				s -= l[j*n+k] * conjOf(l[j*n+k])
			}
			d := sqrt(s)
			l[j*n+j] = d
			for i := j + 1; i < n; i++ {
				s := at(i, j)
				for k := 0; k < j; k++ {
					s -= l[i*n+k] * conjOf(l[j*n+k])
				}
				l[i*n+j] = s / d
			}
		}
		o := out[bi*n*n : (bi+1)*n*n]
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				if lower {
					o[i*n+j] = l[i*n+j]
				} else {
					o[j*n+i] = conjOf(l[i*n+j])
				}
			}
		}
	}
	return out
}
