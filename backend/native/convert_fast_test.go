package native

import (
	"bytes"
	"math"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// The typed conversions against the element-by-element definition
// (convertInto): NaN, infinities, values past the integer bounds, negative
// fractions, integers past float32's exact range; sizes below and above
// the parallel split.
func TestConvertFastMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.0, -1.5, 2.5, 1 << 31, -(1 << 31) - 1,
		1 << 63, -(1 << 63), 3e38, 16777217, -2147483648.5}
	pairs := [][2]dtype.DType{{dtype.F32, dtype.I64}, {dtype.F32, dtype.I32}, {dtype.F64, dtype.I64},
		{dtype.I64, dtype.F64}, {dtype.I32, dtype.F32}}
	for _, p := range pairs {
		for _, n := range []int{len(special), convertParMin + 5} {
			x, _ := literal.New(p[0], []int64{int64(n)})
			for i := 0; i < n; i++ {
				switch {
				case p[0].IsFloat() && i < len(special):
					x.SetFloat64(i, special[i])
				case p[0].IsFloat():
					x.SetFloat64(i, rng.NormFloat64()*math.Pow(10, float64(rng.Intn(20))))
				default:
					x.SetInt64(i, rng.Int63()>>uint(rng.Intn(63))*int64(1-2*rng.Intn(2)))
				}
			}
			got, _ := literal.New(p[1], x.Shape)
			want, _ := literal.New(p[1], x.Shape)
			if !convertFast(x, got) {
				t.Fatalf("%v -> %v: no fast path", p[0], p[1])
			}
			if err := convertInto(x, want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Data, want.Data) {
				for i := 0; i < n; i++ {
					if got.Float64(i) != want.Float64(i) {
						t.Fatalf("%v -> %v: element %d (%v): %v, want %v", p[0], p[1], i, x.Float64(i), got.Float64(i), want.Float64(i))
					}
				}
			}
		}
	}
}
