package native

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestCompareFastMatchesGeneric checks the in-place compares (float32,
// float64, int32, int64) against the generic loop, every direction, with
// NaNs, infinities, signed zeros and equal elements.
func TestCompareFastMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 3}
	for _, c := range []struct {
		d  dtype.DType
		ct string
	}{{dtype.F32, "FLOAT"}, {dtype.F64, "FLOAT"}, {dtype.I32, "SIGNED"}, {dtype.I64, "SIGNED"}} {
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			x, _ := literal.New(c.d, []int64{3, 37})
			y, _ := literal.New(c.d, []int64{3, 37})
			for i := 0; i < x.Len(); i++ {
				a, b := specials[r.Intn(len(specials))], specials[r.Intn(len(specials))]
				if r.Intn(3) == 0 {
					a, b = float64(r.Intn(7)-3), float64(r.Intn(7)-3)
				}
				if !c.d.IsFloat() {
					if a != a || math.IsInf(a, 0) {
						a = -7
					}
					if b != b || math.IsInf(b, 0) {
						b = 1 << 20
					}
				}
				x.SetFloat64(i, a)
				y.SetFloat64(i, b)
			}
			src := fmt.Sprintf(`func.func @main(%%x: tensor<3x37x%[1]s>, %%y: tensor<3x37x%[1]s>) -> tensor<3x37xi1> {
  %%c = "stablehlo.compare"(%%x, %%y) {compare_type = #stablehlo<comparison_type %[2]s>, comparison_direction = #stablehlo<comparison_direction %[3]s>} : (tensor<3x37x%[1]s>, tensor<3x37x%[1]s>) -> tensor<3x37xi1>
  func.return %%c : tensor<3x37xi1>
}`, c.d.MLIR(), c.ct, dir)
			m, err := stablehlo.ParseModule("cmp", []byte("module {\n"+src+"\n}"))
			if err != nil {
				t.Fatal(err)
			}
			op := m.Func("main").Body.Blocks[0].Ops[0]
			got, err := evalCompare(nil, op, []Value{x, y})
			if err != nil {
				t.Fatal(err)
			}
			cmpFastEnabled = false
			want, err := evalCompare(nil, op, []Value{x, y})
			cmpFastEnabled = true
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[0].(*literal.Literal).Data, want[0].(*literal.Literal).Data) {
				t.Fatalf("%v %s %s: in-place compare differs from the generic loop", c.d, c.ct, dir)
			}
		}
	}
}
