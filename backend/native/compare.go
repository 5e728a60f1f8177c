package native

import (
	"fmt"

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
