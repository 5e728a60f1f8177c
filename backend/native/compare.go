package native

import (
	"fmt"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// compare: EQ, NE, GE, GT, LE, LT with compare_type FLOAT (IEEE: NaN is
// unordered, -0 == +0), TOTALORDER (-NaN < -Inf < ... < -0 < +0 < ... <
// +Inf < +NaN, by bit pattern), SIGNED or UNSIGNED. Complex numbers
// support EQ and NE only.

func init() {
	register("stablehlo.compare", evalCompare)
}

// cmpResult turns an ordering (-1, 0, 1; unordered=false) into the
// direction's answer.
func cmpResult(dir string, c int, ordered bool) bool {
	if !ordered {
		return dir == "NE"
	}
	switch dir {
	case "EQ":
		return c == 0
	case "NE":
		return c != 0
	case "GE":
		return c >= 0
	case "GT":
		return c > 0
	case "LE":
		return c <= 0
	case "LT":
		return c < 0
	}
	return false
}

func cmp3[T int64 | uint64 | float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// totalKey maps a float's bits to an integer in total order.
func totalKey(l *literal.Literal, i int) int64 {
	b, sign := floatBits(l, i)
	mag := int64(b &^ sign)
	if b&sign != 0 {
		return -mag - 1
	}
	return mag
}

func evalCompare(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	y, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	if x.DType != y.DType || !shapeEq(x.Shape, y.Shape) {
		return nil, fmt.Errorf("operands %v and %v differ", x, y)
	}
	dir, ok := op.Enum("comparison_direction")
	if !ok {
		return nil, fmt.Errorf("missing comparison_direction")
	}
	switch dir {
	case "EQ", "NE", "GE", "GT", "LE", "LT":
	default:
		return nil, fmt.Errorf("unknown comparison_direction %q", dir)
	}
	ct, _ := op.Enum("compare_type")
	d := x.DType
	if ct == "" || ct == "NOTYPE" {
		switch {
		case d.IsFloat() || d.IsComplex():
			ct = "FLOAT"
		case d.IsSigned():
			ct = "SIGNED"
		default:
			ct = "UNSIGNED"
		}
	}
	out, err := newResult(env, dtype.Bool, x.Shape)
	if err != nil {
		return nil, err
	}
	n := x.Len()
	if cmpFastEnabled && cmpFast(dir, ct, x, y, out) {
		return []Value{out}, nil
	}
	switch {
	case d.IsComplex():
		if dir != "EQ" && dir != "NE" {
			return nil, fmt.Errorf("comparison %s is not defined on %v", dir, d)
		}
		for i := 0; i < n; i++ {
			eq := x.Complex128(i) == y.Complex128(i)
			out.SetInt64(i, b2i(eq == (dir == "EQ")))
		}
	case d.IsFloat() && ct == "TOTALORDER":
		for i := 0; i < n; i++ {
			out.SetInt64(i, b2i(cmpResult(dir, cmp3(totalKey(x, i), totalKey(y, i)), true)))
		}
	case d.IsFloat():
		for i := 0; i < n; i++ {
			a, b := x.Float64(i), y.Float64(i)
			ordered := a == a && b == b
			out.SetInt64(i, b2i(cmpResult(dir, cmp3(a, b), ordered)))
		}
	case ct == "SIGNED" && !d.IsBool():
		for i := 0; i < n; i++ {
			out.SetInt64(i, b2i(cmpResult(dir, cmp3(x.Int64(i), y.Int64(i)), true)))
		}
	case d.IsInteger() || d.IsBool():
		m := widthMask(d)
		for i := 0; i < n; i++ {
			out.SetInt64(i, b2i(cmpResult(dir, cmp3(x.Uint64(i)&m, y.Uint64(i)&m), true)))
		}
	default:
		return nil, unsupportedType(d)
	}
	return []Value{out}, nil
}

// cmpFastEnabled switches cmpFast (tests compare it with the generic
// loop).
var cmpFastEnabled = true

// cmpFast compares float32, float64 (FLOAT), int32 and int64 (SIGNED)
// elements read in place, one byte of out per element, and reports
// whether it did: a mask's compares of a few hundred positions took a
// microsecond through the literals' generic accessors. Go's comparisons
// are IEEE's (NaN unordered but for NE, -0 == +0).
func cmpFast(dir, ct string, x, y, out *literal.Literal) bool {
	if !hostLittleEndian || len(out.Data) != x.Len() {
		return false
	}
	switch {
	case ct == "FLOAT" && x.DType == dtype.F32:
		return cmpRows(dir, inPlace[float32](x.Data), inPlace[float32](y.Data), out.Data)
	case ct == "FLOAT" && x.DType == dtype.F64:
		return cmpRows(dir, inPlace[float64](x.Data), inPlace[float64](y.Data), out.Data)
	case ct == "SIGNED" && x.DType == dtype.I32:
		return cmpRows(dir, inPlace[int32](x.Data), inPlace[int32](y.Data), out.Data)
	case ct == "SIGNED" && x.DType == dtype.I64:
		return cmpRows(dir, inPlace[int64](x.Data), inPlace[int64](y.Data), out.Data)
	}
	return false
}

// inPlace returns data's elements as a slice of T, or nil when data is
// not aligned for T (the host is little-endian: the caller checks).
func inPlace[T int32 | int64 | float32 | float64](data []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(data) == 0 || len(data)%size != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(data)))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), len(data)/size)
}

// cmpRows sets out[i] to x[i] dir y[i] (1 or 0); false where an operand
// could not be read in place or the lengths differ.
func cmpRows[T int32 | int64 | float32 | float64](dir string, x, y []T, out []byte) bool {
	n := len(out)
	if len(x) != n || len(y) != n || n == 0 {
		return false
	}
	set := func(f func(a, b T) bool) {
		for i := range out {
			var v byte
			if f(x[i], y[i]) {
				v = 1
			}
			out[i] = v
		}
	}
	switch dir {
	case "EQ":
		set(func(a, b T) bool { return a == b })
	case "NE":
		set(func(a, b T) bool { return a != b })
	case "LT":
		set(func(a, b T) bool { return a < b })
	case "LE":
		set(func(a, b T) bool { return a <= b })
	case "GT":
		set(func(a, b T) bool { return a > b })
	case "GE":
		set(func(a, b T) bool { return a >= b })
	default:
		return false
	}
	return true
}
