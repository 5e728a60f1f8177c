package native

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Reductions over leading dims (a bias gradient: the sum over the rows of
// a [rows, cols] tensor) read their input row by row into a vector of
// accumulators, one per output element, instead of gathering each output's
// strided column through an index. Each accumulator still folds its
// elements in index order, from the init value, so the bits are those of
// the gathered fold.

// reduceLeadingCols folds input over its first lead dims into out (rows =
// product of those dims, cols = the rest) for float32 and float64 add,
// multiply, maximum and minimum. It returns false when it does not apply.
func reduceLeadingCols(name string, input, init, out *literal.Literal, rows, cols int) bool {
	k, ok := foldOf(name)
	d := input.DType
	if !ok || init.DType != d || out.DType != d || rows*cols != int(len(input.Data))/max(1, d.Size()) ||
		len(out.Data) != cols*d.Size() || !hostLittleEndian {
		return false
	}
	switch d {
	case dtype.F32:
		return leadingColsF32(k, input, init, out, rows, cols)
	case dtype.F64:
		f := floatFold(k, d)
		if f == nil || len(init.Data) < 8 {
			return false
		}
		src := f64Bytes(input.Data)
		if src == nil && rows*cols > 0 {
			return false
		}
		res := make([]float64, cols)
		start := init.Float64(0)
		colsParallel(rows, cols, func(lo, hi int) {
			acc := res[lo:hi]
			for j := range acc {
				acc[j] = start
			}
			for r := 0; r < rows; r++ {
				row := src[r*cols+lo : r*cols+hi]
				if k == foldAdd {
					for j, x := range row {
						if v := acc[j]; v == v { // a NaN sum keeps the first NaN
							acc[j] = v + x
						}
					}
					continue
				}
				for j, x := range row {
					acc[j] = f(acc[j], x)
				}
			}
		})
		for j, v := range res {
			binary.LittleEndian.PutUint64(out.Data[8*j:], math.Float64bits(v))
		}
		return true
	}
	return false
}

// leadingColsF32 is reduceLeadingCols for float32 (the planned reduce's
// sums over leading dims too): each row folded into the column
// accumulators, which are out's elements; a sum adds whole rows as
// vectors (addCols32), columns shared out among threads.
func leadingColsF32(k foldKind, input, init, out *literal.Literal, rows, cols int) bool {
	var f func(a, x float32) float32 // nil: a sum
	switch k {
	case foldAdd:
	case foldMul:
		f = func(a, x float32) float32 { return a * x }
	case foldMax:
		f = max32
	case foldMin:
		f = min32
	default:
		return false
	}
	src := f32View(input.Data)
	res, store := f32Out(out.Data)
	if len(src) != rows*cols || len(res) != cols || len(init.Data) < 4 {
		return false
	}
	start := f32View(init.Data)[0]
	if rows == 0 {
		start = quiet32(start)
	}
	colsParallel(rows, cols, func(lo, hi int) {
		acc := res[lo:hi]
		for j := range acc {
			acc[j] = start
		}
		for r := 0; r < rows; r++ {
			row := src[r*cols+lo : r*cols+hi]
			if f == nil {
				addCols32(acc, row)
				continue
			}
			for j, x := range row {
				acc[j] = f(acc[j], x)
			}
		}
	})
	store()
	return true
}

// addCols32 adds row into acc element by element, where a NaN sum keeps
// the first NaN: the vector add (acc its first operand, whose NaN the
// hardware returns, quieted, as Go's float addition does) or that loop.
func addCols32(acc, row []float32) {
	if simdBinary("stablehlo.add", acc, acc, row, false, false) {
		return
	}
	for j, x := range row {
		if v := acc[j]; v == v {
			acc[j] = v + x
		}
	}
}

// f64Bytes views aligned little-endian bytes as float64s (nil otherwise).
func f64Bytes(b []byte) []float64 {
	n := len(b) / 8
	if n == 0 || uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), n)
}

// colsParallel splits the columns over goroutines when the work is large
// (each column's fold keeps its order, so the split changes no bit).
func colsParallel(rows, cols int, fn func(lo, hi int)) {
	parts := min(Threads(), cols/64)
	if rows*cols < reduceParMin || parts < 2 {
		fn(0, cols)
		return
	}
	runParts(cols, parts, fn)
}

// leadingDims reports whether dims are exactly 0..len(dims)-1 (in any
// order) and returns the rows (their product) and cols (the rest).
func leadingDims(shape []int64, dims []int64) (rows, cols int, ok bool) {
	seen := make([]bool, len(shape))
	for _, d := range dims {
		if d < 0 || int(d) >= len(shape) || seen[d] {
			return 0, 0, false
		}
		seen[d] = true
	}
	rows, cols = 1, 1
	for i, n := range shape {
		if i < len(dims) {
			if !seen[i] {
				return 0, 0, false
			}
			rows *= int(n)
		} else {
			cols *= int(n)
		}
	}
	return rows, cols, len(dims) > 0 && len(dims) < len(shape)
}
