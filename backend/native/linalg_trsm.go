package native

// triangular_solve as XLA expands it for matrices up to one diagonal block.

import "math"

// triSolveBlock is the size up to which a triangular solve follows XLA's
// expansion (its diagonal block size): invert the masked triangle row by
// row, then multiply.
const triSolveBlock = 128

// triSolveInverse solves as XLA's TriangularSolveExpander does for one
// diagonal block: the triangle (unit diagonal substituted when asked) is
// scaled to a unit diagonal by columns, inverted one row at a time by
// matrix-vector products, unscaled by rows, and op(inverse) multiplies b
// from the solved side. Every product and sum is rounded by rnd, sums run
// in ascending index order with fused multiply-adds (real types), which
// comes closest to XLA's CPU results.
func triSolveInverse[T linalgElem](c triSolve, batch int, a, b []T, rnd func(T) T) []T {
	n := c.n
	out := make([]T, len(b))
	m := make([]T, n*n)
	sc := make([]T, n*n)
	inv := make([]T, n*n)
	d := make([]T, n)
	dot := func(x, y func(k int) T) T {
		var s T
		for k := 0; k < n; k++ {
			s = fusedMulAdd(x(k), y(k), s, rnd)
		}
		return s
	}
	for bi := 0; bi < batch; bi++ {
		am := a[bi*n*n : (bi+1)*n*n]
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var v T
				in := (c.lower && j <= i) || (!c.lower && j >= i)
				if in {
					v = am[i*n+j]
				}
				if c.unit && i == j {
					v = 1
				}
				m[i*n+j] = v
			}
		}
		for k := 0; k < n; k++ {
			d[k] = m[k*n+k]
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				sc[i*n+j] = rnd(m[i*n+j] / d[j])
			}
		}
		// inverse of the unit triangle, one row per step
		for i := range inv {
			inv[i] = 0
		}
		for k := 0; k < n; k++ {
			inv[k*n+k] = -1
		}
		first := 0
		if !c.lower {
			first = n - 1
		}
		inv[first*n+first] = 1
		row := make([]T, n)
		for it := 1; it < n; it++ {
			j := it
			if !c.lower {
				j = n - 1 - it
			}
			for col := 0; col < n; col++ {
				row[col] = -dot(func(k int) T { return sc[j*n+k] }, func(k int) T { return inv[k*n+col] })
			}
			copy(inv[j*n:(j+1)*n], row)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := rnd(inv[i*n+j] / d[i])
				if c.trans == "ADJOINT" {
					v = conjOf(v)
				}
				inv[i*n+j] = v
			}
		}
		opInv := func(i, j int) T {
			if c.trans != "NO_TRANSPOSE" {
				return inv[j*n+i]
			}
			return inv[i*n+j]
		}
		bm := b[bi*c.rows*c.cols : (bi+1)*c.rows*c.cols]
		xm := out[bi*c.rows*c.cols : (bi+1)*c.rows*c.cols]
		for r := 0; r < c.rows; r++ {
			for col := 0; col < c.cols; col++ {
				if c.left {
					xm[r*c.cols+col] = dot(func(k int) T { return opInv(r, k) }, func(k int) T { return bm[k*c.cols+col] })
				} else {
					xm[r*c.cols+col] = dot(func(k int) T { return bm[r*c.cols+k] }, func(k int) T { return opInv(k, col) })
				}
			}
		}
	}
	return out
}

// fusedMulAdd returns rnd(x*y + s), with one rounding for real types (the
// float64 fused result is rounded again by rnd, which for float32 agrees
// with a float32 fused multiply-add except in double-rounding ties).
func fusedMulAdd[T linalgElem](x, y, s T, rnd func(T) T) T {
	if xf, ok := any(x).(float64); ok {
		return rnd(any(math.FMA(xf, any(y).(float64), any(s).(float64))).(T))
	}
	return rnd(s + rnd(x*y))
}
