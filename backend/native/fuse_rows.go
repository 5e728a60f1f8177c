package native

import (
	"math"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
)

// The row kernels of fused loops: each computes one node for a chunk of
// elements, over float32 or float64 rows.

func binaryRow[T fnum](nd *fuseNode, dst, x, y []T) {
	y = y[:len(x)]
	dst = dst[:len(x)]
	if nd.dt == dtype.Bool {
		for k, v := range x {
			dst[k] = f2b[T](nd.bbin(v != 0, y[k] != 0))
		}
		return
	}
	if isNaNMinMax(nd.name) {
		nanMinMaxRow(nd.name, dst, x, y, false)
		return
	}
	if d32, ok := any(dst).([]float32); ok && nd.v2 != nil {
		// a folded chain (foldChains) in one vector loop; in float64
		// rows, bin below
		nd.v2(d32, any(x).([]float32), any(y).([]float32))
		return
	}
	if d32, ok := any(dst).([]float32); ok && simdBinary(nd.name, d32, any(x).([]float32), any(y).([]float32), false, false) {
		return
	}
	switch nd.name {
	case "stablehlo.add":
		for k, v := range x {
			dst[k] = v + y[k]
		}
	case "stablehlo.subtract":
		for k, v := range x {
			dst[k] = v - y[k]
		}
	case "stablehlo.multiply":
		for k, v := range x {
			dst[k] = v * y[k]
		}
	case "stablehlo.divide":
		for k, v := range x {
			dst[k] = v / y[k]
		}
	default:
		for k, v := range x {
			dst[k] = T(nd.bin(float64(v), float64(y[k])))
		}
	}
	roundRow(dst, nd.dt)
}

// binaryRowU is binaryRow where x or y (not both) is uniform: one element
// read as a scalar. It reports false for ops it has no loop for.
func binaryRowU[T fnum](nd *fuseNode, dst, x, y []T, ux, uy bool) bool {
	if nd.dt == dtype.Bool || isNaNMinMax(nd.name) && ux {
		return false
	}
	if isNaNMinMax(nd.name) {
		nanMinMaxRow(nd.name, dst, x, y, true)
		return true
	}
	if d32, ok := any(dst).([]float32); ok && simdBinary(nd.name, d32, any(x).([]float32), any(y).([]float32), ux, uy) {
		return true
	}
	if ux {
		// No loops for c + y and c * y: for two NaNs x86 returns the
		// first source's, and the compiler makes y the first source of a
		// commutative op (x[k] + y[k] keeps x first).
		c := x[0]
		y = y[:len(dst)]
		switch nd.name {
		case "stablehlo.subtract":
			for k, v := range y {
				dst[k] = c - v
			}
		case "stablehlo.divide":
			for k, v := range y {
				dst[k] = c / v
			}
		default:
			return false
		}
		roundRow(dst, nd.dt)
		return true
	}
	// v + c and v * c compile with v, loaded each step, as the first
	// source (as x[k] + y[k] does); fuse_test's uniform modules, run
	// with -tags purego, check that NaNs stay the left operand's.
	c := y[0]
	x = x[:len(dst)]
	switch nd.name {
	case "stablehlo.add":
		for k, v := range x {
			dst[k] = v + c
		}
	case "stablehlo.subtract":
		for k, v := range x {
			dst[k] = v - c
		}
	case "stablehlo.multiply":
		for k, v := range x {
			dst[k] = v * c
		}
	case "stablehlo.divide":
		for k, v := range x {
			dst[k] = v / c
		}
	default:
		return false
	}
	roundRow(dst, nd.dt)
	return true
}

// f2b is 1 for true and 0 for false, without a branch.
func f2b[T fnum](b bool) T {
	var x uint8
	if b {
		x = 1
	}
	return T(x)
}

// selectRow picks a[k] where p[k] != 0, else b[k], bit for bit and
// without branches.
func selectRow[T fnum](dst, p, a, b []T) {
	switch d := any(dst).(type) {
	case []float32:
		pp, aa, bb := any(p).([]float32), any(a).([]float32)[:len(d)], any(b).([]float32)[:len(d)]
		pp = pp[:len(d)]
		if simdRows && len(d) > 0 {
			selPRR32(&d[0], &pp[0], &aa[0], &bb[0], len(d)) // the same blend, 8 lanes at a time
			return
		}
		for k := range d {
			var m uint32
			if pp[k] != 0 {
				m = ^uint32(0)
			}
			d[k] = math.Float32frombits(math.Float32bits(aa[k])&m | math.Float32bits(bb[k])&^m)
		}
	case []float64:
		pp, aa, bb := any(p).([]float64), any(a).([]float64)[:len(d)], any(b).([]float64)[:len(d)]
		pp = pp[:len(d)]
		for k := range d {
			var m uint64
			if pp[k] != 0 {
				m = ^uint64(0)
			}
			d[k] = math.Float64frombits(math.Float64bits(aa[k])&m | math.Float64bits(bb[k])&^m)
		}
	}
}

func sel32(c bool, x, y float32) float32 {
	var m uint32
	if c {
		m = ^uint32(0)
	}
	return math.Float32frombits(math.Float32bits(x)&m | math.Float32bits(y)&^m)
}

func sel64(c bool, x, y float64) float64 {
	var m uint64
	if c {
		m = ^uint64(0)
	}
	return math.Float64frombits(math.Float64bits(x)&m | math.Float64bits(y)&^m)
}

// cmpSelectRow is selectRow of compareRow, in one pass.
func cmpSelectRow[T fnum](dst, a, b, x, y []T, dir string) {
	switch d := any(dst).(type) {
	case []float32:
		if isNaNPick(d, any(a).([]float32), any(b).([]float32), any(x).([]float32), dir) {
			nanSel(d, any(a).([]float32), any(y).([]float32))
			return
		}
		a, b, x, y := any(a).([]float32), any(b).([]float32), any(x).([]float32), any(y).([]float32)
		if !simdCmpSelectRows(dir, d, a, b, x, y) {
			cmpSelect32(d, a, b, x, y, dir)
		}
	case []float64:
		cmpSelect64(d, any(a).([]float64), any(b).([]float64), any(x).([]float64), any(y).([]float64), dir)
	}
}

// cmpSelectRowU is cmpSelectRow with some operands uniform (u*): one
// element read as a scalar. It has loops for float32 rows with a row a
// and a uniform b, and reports false otherwise.
func cmpSelectRowU[T fnum](dst, a, b, x, y []T, ua, ub, ux, uy bool, dir string) bool {
	d, ok := any(dst).([]float32)
	if !ok || ua || !ub {
		return false
	}
	if simdCmpSelect(dir, d, any(a).([]float32), any(b).([]float32)[0], any(x).([]float32), any(y).([]float32), ux, uy) {
		return true
	}
	return cmpSelect32U(d, any(a).([]float32), any(b).([]float32)[0], any(x).([]float32), any(y).([]float32), ux, uy, dir)
}

func cmpSelect32(d, a, b, x, y []float32, dir string) {
	a, b, x, y = a[:len(d)], b[:len(d)], x[:len(d)], y[:len(d)]
	switch dir {
	case "EQ":
		for k := range d {
			d[k] = sel32(a[k] == b[k], x[k], y[k])
		}
	case "NE":
		for k := range d {
			d[k] = sel32(a[k] != b[k], x[k], y[k])
		}
	case "LT":
		for k := range d {
			d[k] = sel32(a[k] < b[k], x[k], y[k])
		}
	case "LE":
		for k := range d {
			d[k] = sel32(a[k] <= b[k], x[k], y[k])
		}
	case "GT":
		for k := range d {
			d[k] = sel32(a[k] > b[k], x[k], y[k])
		}
	case "GE":
		for k := range d {
			d[k] = sel32(a[k] >= b[k], x[k], y[k])
		}
	}
}

func cmpSelect64(d, a, b, x, y []float64, dir string) {
	a, b, x, y = a[:len(d)], b[:len(d)], x[:len(d)], y[:len(d)]
	switch dir {
	case "EQ":
		for k := range d {
			d[k] = sel64(a[k] == b[k], x[k], y[k])
		}
	case "NE":
		for k := range d {
			d[k] = sel64(a[k] != b[k], x[k], y[k])
		}
	case "LT":
		for k := range d {
			d[k] = sel64(a[k] < b[k], x[k], y[k])
		}
	case "LE":
		for k := range d {
			d[k] = sel64(a[k] <= b[k], x[k], y[k])
		}
	case "GT":
		for k := range d {
			d[k] = sel64(a[k] > b[k], x[k], y[k])
		}
	case "GE":
		for k := range d {
			d[k] = sel64(a[k] >= b[k], x[k], y[k])
		}
	}
}

// f32Bytes views little-endian f32 bytes as float32s where the host
// allows (nil otherwise).
func f32Bytes(b []byte) []float32 { return elems[float32](b) }

// floatBytes is the bytes of a float32 slice, in place (f32Bytes' inverse).
func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}

// elems views little-endian bytes as elements of T, in place, where the
// host is little-endian and b is aligned for T; nil otherwise (and for
// fewer bytes than one element), where callers take their
// element-by-element path.
func elems[T uint32 | uint64 | int32 | int64 | float32 | float64](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) < size || !hostLittleEndian || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// roundRow rounds float64 results to f32 where that is the node's type
// (float32 rows hold rounded values already).
func roundRow[T fnum](r []T, d dtype.DType) {
	if d != dtype.F32 {
		return
	}
	if r64, ok := any(r).([]float64); ok {
		for k, v := range r64 {
			r64[k] = float64(float32(v))
		}
	}
}

func compareRow[T fnum](dst, x, y []T, dir string) {
	y = y[:len(x)]
	dst = dst[:len(x)]
	switch dir {
	case "EQ":
		for k, v := range x {
			dst[k] = f2b[T](v == y[k])
		}
	case "NE":
		for k, v := range x {
			dst[k] = f2b[T](v != y[k])
		}
	case "LT":
		for k, v := range x {
			dst[k] = f2b[T](v < y[k])
		}
	case "LE":
		for k, v := range x {
			dst[k] = f2b[T](v <= y[k])
		}
	case "GT":
		for k, v := range x {
			dst[k] = f2b[T](v > y[k])
		}
	case "GE":
		for k, v := range x {
			dst[k] = f2b[T](v >= y[k])
		}
	}
}
