package native

// float32 folds on the literals' bytes in place. The generic fast fold
// decodes the input to float64 and rounds after every step; for add and
// multiply a float32 operation gives the same bits (float64 has more than
// twice float32's precision, so rounding twice equals rounding once), and
// maximum/minimum pick one of the operands, so working in float32 skips the
// decoded copy and the result slice, which cost more than the sums for the
// softmax and layer-norm rows of a small model.

import (
	"math"

	"github.com/torchtpu/torchtpu/backend/native/rowsum"
	"github.com/torchtpu/torchtpu/literal"
)

// reduceF32 folds float32 groups as reduceFast does; false when k has no
// float32 fold here (the caller then takes the generic fold).
func reduceF32(k foldKind, input, init, out *literal.Literal, groups, size int, idx []int) bool {
	var f func(acc, x float32) float32
	switch k {
	case foldAdd:
		f = func(a, x float32) float32 { return a + x }
	case foldMul:
		f = func(a, x float32) float32 { return a * x }
	case foldMax:
		f = max32
	case foldMin:
		f = min32
	default:
		return false
	}
	if len(init.Data) < 4 {
		return false
	}
	src := f32View(input.Data)
	start := f32View(init.Data)[0]
	if size == 0 {
		start = quiet32(start) // the generic fold's decode quiets it
	}
	res, store := f32Out(out.Data)
	if len(res) < groups || len(src) < groups*size {
		return false
	}
	groupsParallel(groups, size, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			acc := start
			base := g * size
			switch {
			case idx != nil:
				for _, j := range idx[base : base+size] {
					acc = f(acc, src[j])
				}
			case k == foldAdd: // the common cases without a call through f
				acc = rowsum.Sum(acc, src[base:base+size]) // partial sums (package rowsum)
			case k == foldMax:
				acc = maxRow32(acc, src[base:base+size])
			default:
				for _, x := range src[base : base+size] {
					acc = f(acc, x)
				}
			}
			res[g] = acc
		}
	})
	store()
	return true
}

// max32 is floatFold's maximum in float32: NaN-propagating (the first NaN,
// quieted as the float64 round trip of the generic fold quiets it), and
// +0 over -0 as math.Max.
func max32(a, x float32) float32 {
	// Ordered and unequal first (a NaN compares false): small enough to
	// inline into the fold loop.
	if a > x {
		return a
	}
	if x > a {
		return x
	}
	return max32Slow(a, x)
}

// maxRow32 returns the fold's maximum of init and x (max32 element by
// element, in order). Without a NaN, and with a nonzero result (zeros'
// signs the only other thing the order decides), the vector maximum
// (package rowsum) is the same value, sixteen lanes at a time.
func maxRow32(init float32, x []float32) float32 {
	if rowsum.HasMax() && len(x) >= 8 {
		m, nan := rowsum.Max(x)
		return maxOfRow(init, m, nan, x)
	}
	return maxFold32(init, x)
}

// maxOfRow is the fold's maximum of init and x given x's vector maximum
// m and whether x held a NaN: max32(init, m) where that is the fold's
// value (no NaN, a nonzero m), else the fold itself.
func maxOfRow(init, m float32, nan bool, x []float32) float32 {
	if !nan && m != 0 && init == init {
		return max32(init, m)
	}
	return maxFold32(init, x)
}

// maxFold32 is max32 over x from init, element by element.
func maxFold32(init float32, x []float32) float32 {
	acc := init
	for _, v := range x {
		acc = max32(acc, v)
	}
	return acc
}

// foldRowsBlock is the rows a foldRows32 call folds at a time (its
// maxima and NaN flags live on the stack).
const foldRowsBlock = 256

// foldRows32 sets d[r] to the sum (rowsum.Sum) or, isMax, the maximum
// (maxRow32) of init and row r of x (rows of n end to end), the same
// bits, with one vector loop for all the rows where there is one (a call
// per row of a softmax's dozen scores cost more than its arithmetic).
func foldRows32(isMax bool, init float32, x []float32, n int, d []float32) {
	if !isMax {
		rowsum.SumRows(init, x, n, d)
		return
	}
	if !rowsum.HasMax() || n <= 0 {
		for r := range d {
			d[r] = maxRow32(init, x[r*n:(r+1)*n])
		}
		return
	}
	var nan [foldRowsBlock]bool
	for r0 := 0; r0 < len(d); r0 += foldRowsBlock {
		dd := d[r0:min(len(d), r0+foldRowsBlock)]
		xx := x[r0*n : (r0+len(dd))*n]
		rowsum.MaxRows(xx, n, dd, nan[:len(dd)])
		for k, m := range dd {
			dd[k] = maxOfRow(init, m, nan[k], xx[k*n:(k+1)*n])
		}
	}
}

// max32Slow is max32 for equal operands and NaNs (kept out of line so
// that max32 inlines).
//
//go:noinline
func max32Slow(a, x float32) float32 {
	switch {
	case a != a:
		return quiet32(a)
	case x != x:
		return quiet32(x)
	case math.Signbit(float64(a)):
		return x // equal: -0 and ±0 give the other one
	}
	return a
}

// min32 is floatFold's minimum in float32 (-0 under +0, as math.Min).
func min32(a, x float32) float32 {
	if a < x {
		return a
	}
	if x < a {
		return x
	}
	return min32Slow(a, x)
}

// min32Slow is min32 for equal operands and NaNs.
//
//go:noinline
func min32Slow(a, x float32) float32 {
	switch {
	case a != a:
		return quiet32(a)
	case x != x:
		return quiet32(x)
	case math.Signbit(float64(a)):
		return a
	}
	return x
}

// quiet32 sets the quiet bit of a NaN, as the float64 round trip of the
// generic fold does on amd64 and arm64; other values pass unchanged.
func quiet32(x float32) float32 {
	if x != x {
		return math.Float32frombits(math.Float32bits(x) | 0x00400000)
	}
	return x
}
