package native

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The planned float32 reduce gives evalReduce's general bits for every
// body kind and set of reduced dims, also when one op sees several
// operand shapes (a dynamic dim).
func TestReducePlannedMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	k := kernels["stablehlo.reduce"]
	for iter := 0; iter < 120; iter++ {
		rank := 1 + r.IntN(4)
		var dims []int64
		for d := 0; d < rank; d++ {
			if r.IntN(2) == 0 {
				dims = append(dims, int64(d))
			}
		}
		if len(dims) == 0 {
			dims = append(dims, int64(r.IntN(rank)))
		}
		r.Shuffle(len(dims), func(i, j int) { dims[i], dims[j] = dims[j], dims[i] })
		body := []string{"add", "multiply", "maximum", "minimum"}[r.IntN(4)]
		in := make([]string, rank)
		var out []string
		for d := range in {
			in[d] = "?"
			if !slices.Contains(dims, int64(d)) {
				out = append(out, "?")
			}
		}
		ty := func(s []string) string {
			if len(s) == 0 {
				return "tensor<f32>"
			}
			return "tensor<" + strings.Join(s, "x") + "xf32>"
		}
		list := strings.Trim(strings.ReplaceAll(fmt.Sprint(dims), " ", ", "), "[]")
		src := fmt.Sprintf(`func.func @f(%%a: %s, %%z: tensor<f32>) -> %s {
  %%0 = "stablehlo.reduce"(%%a, %%z) ({
    ^bb0(%%p: tensor<f32>, %%q: tensor<f32>):
      %%1 = stablehlo.%s %%p, %%q : tensor<f32>
      stablehlo.return %%1 : tensor<f32>
  }) {dimensions = array<i64: %s>} : (%s, tensor<f32>) -> %s
  func.return %%0 : %s
}`, ty(in), ty(out), body, list, ty(in), ty(out), ty(out))
		m, err := stablehlo.ParseModule("reduce.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		op := m.Funcs[0].Body.Blocks[0].Ops[0]
		for call := 0; call < 3; call++ {
			shape := make([]int64, rank)
			for d := range shape {
				shape[d] = int64(r.IntN(5))
			}
			x := randF32Literal(t, r, shape...)
			z := randF32Literal(t, r)
			got, err := k(nil, op, []Value{x, z})
			if err != nil {
				t.Fatal(err)
			}
			reducePlanned = false
			want, err := k(nil, op, []Value{x, z})
			reducePlanned = true
			if err != nil {
				t.Fatal(err)
			}
			g, w := got[0].(*literal.Literal), want[0].(*literal.Literal)
			if !slices.Equal(g.Shape, w.Shape) || string(g.Data) != string(w.Data) {
				t.Fatalf("%s over %v of %v: %v, want %v", body, dims, shape, g, w)
			}
		}
	}
}
