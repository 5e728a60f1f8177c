package native

import (
	"math"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// TestReduceLeadingColsMatchesGatheredFold checks the column path against
// the indexed fold it replaces, bit for bit (infinities and signed zeros
// included; any NaN matches any NaN), for float32 and float64 and every fold kind;
// and the float32 sum's vector adds against the element loop, bit for bit,
// NaN payloads included.
func TestReduceLeadingColsMatchesGatheredFold(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-40, 3e38,
		float64(math.Float32frombits(0x7fc00123)), float64(math.Float32frombits(0xffc00456))} // NaNs of other payloads
	for _, d := range []dtype.DType{dtype.F32, dtype.F64} {
		for _, kind := range []string{"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum"} {
			for _, shape := range [][]int64{{7, 5}, {3, 4, 9}, {600, 520}, {0, 3}, {5, 37}, {2, 1}} {
				lead := 1
				if len(shape) == 3 {
					lead = 2
				}
				in, _ := literal.New(d, shape)
				n := len(in.Data) / d.Size()
				for i := 0; i < n; i++ {
					v := rng.NormFloat64()
					if rng.Intn(50) == 0 {
						v = specials[rng.Intn(len(specials))]
					}
					in.SetFloat64(i, v)
				}
				init, _ := literal.New(d, nil)
				if kind == "stablehlo.multiply" {
					init.SetFloat64(0, 1)
				}
				dims := make([]int64, lead)
				for i := range dims {
					dims[i] = int64(i)
				}
				perm, outShape, size, _ := reduceLayout(shape, dims)
				groups := elemCount(outShape)
				want, _ := literal.New(d, outShape)
				if !reduceFast(kind, in, init, want, groups, size, permutedIndex(shape, perm)) {
					t.Fatalf("%v %s: no fast fold", d, kind)
				}
				got, _ := literal.New(d, outShape)
				rows, cols, ok := leadingDims(shape, dims)
				if !ok || !reduceLeadingCols(kind, in, init, got, rows, cols) {
					t.Fatalf("%v %s %v: the column path did not apply", d, kind, shape)
				}
				if d == dtype.F32 && kind == "stablehlo.add" && rows > 0 {
					// the vector column sums against the element loop
					// that keeps each column's first NaN
					acc := make([]float32, cols)
					for r := 0; r < rows; r++ {
						for j := range acc {
							if v := acc[j]; v == v {
								acc[j] = v + float32(in.Float64(r*cols+j))
							}
						}
					}
					for j, v := range acc {
						if g := float32(got.Float64(j)); math.Float32bits(g) != math.Float32bits(v) {
							t.Fatalf("%v: column %d is %v (%#x), the element loop gives %v (%#x)", shape, j, g, math.Float32bits(g), v, math.Float32bits(v))
						}
					}
				}
				for i := 0; i < len(got.Data)/d.Size(); i++ {
					g, w := got.Float64(i), want.Float64(i)
					if math.IsNaN(g) && math.IsNaN(w) {
						continue // NaN payloads follow the order the compiler picks for a commutative add
					}
					if math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("%v %s %v: element %d is %v, the gathered fold gives %v", d, kind, shape, i, g, w)
					}
				}
			}
		}
	}
}
