package native

import (
	"fmt"
	"math"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// floatBits returns the raw bits of float element i and the mask of its
// sign bit (0 for the unsigned f8E8M0FNU).
func floatBits(l *literal.Literal, i int) (bits, sign uint64) {
	sz := l.DType.Size()
	b := l.Data[i*sz : (i+1)*sz]
	for k := sz - 1; k >= 0; k-- {
		bits = bits<<8 | uint64(b[k])
	}
	if l.DType == dtype.F8E8M0FNU {
		return bits, 0
	}
	return bits, 1 << (l.DType.Bits() - 1)
}

// ulpDiff is the distance in units of the last place between two floats
// of one type: 0 for identical bits or two NaNs, the sum of the distances
// to zero when the signs differ, and MaxUint64 when one is not finite.
func ulpDiff(fb, gb, sign uint64, f, g float64) uint64 {
	if fb == gb {
		return 0
	}
	if !math.IsNaN(f) && !math.IsInf(f, 0) && !math.IsNaN(g) && !math.IsInf(g, 0) {
		a, b := fb&^sign, gb&^sign
		if fb&sign != gb&sign {
			return a + b
		}
		if a > b {
			return a - b
		}
		return b - a
	}
	if math.IsNaN(f) && math.IsNaN(g) {
		return 0
	}
	return math.MaxUint64
}

func elemULP(a, b *literal.Literal, i int) uint64 {
	if a.DType.IsComplex() {
		x, y := a.Complex128(i), b.Complex128(i)
		part := a.DType.ComplexPart()
		pa := &literal.Literal{DType: part, Shape: []int64{2}, Data: a.Data[i*a.DType.Size() : (i+1)*a.DType.Size()]}
		pb := &literal.Literal{DType: part, Shape: []int64{2}, Data: b.Data[i*b.DType.Size() : (i+1)*b.DType.Size()]}
		r0, s := floatBits(pa, 0)
		r1, _ := floatBits(pb, 0)
		i0, _ := floatBits(pa, 1)
		i1, _ := floatBits(pb, 1)
		return max(ulpDiff(r0, r1, s, real(x), real(y)), ulpDiff(i0, i1, s, imag(x), imag(y)))
	}
	fb, s := floatBits(a, i)
	gb, _ := floatBits(b, i)
	return ulpDiff(fb, gb, s, a.Float64(i), b.Float64(i))
}

// expectClose checks lo <= ULP distance <= hi for every element.
func expectClose(a, b *literal.Literal, lo, hi uint64) error {
	if err := sameType(a, b); err != nil {
		return err
	}
	if !a.DType.IsFloat() && !a.DType.IsComplex() {
		return fmt.Errorf("expect_close on %v: want a float or complex type", a.DType)
	}
	var bad strings.Builder
	nbad := 0
	var hist [5]int
	for i := 0; i < a.Len(); i++ {
		d := elemULP(a, b, i)
		if d > hi || d < lo {
			if nbad < 5 {
				fmt.Fprintf(&bad, "\n  index=%v, actual=%s, expected=%s, ULP difference=%d", unravel(a.Shape, i), formatElem(a, i), formatElem(b, i), d)
			}
			nbad++
		}
		hist[min(d, 4)]++
	}
	if nbad == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d of %d elements differ by more than %d ULP (ULP 0..>=4 counts %v):%s",
		ErrCheckFailed, nbad, a.Len(), hi, hist, bad.String())
}
