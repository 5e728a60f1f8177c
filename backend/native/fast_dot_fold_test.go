package native

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// attentionModule is an attention's two products on heads transposed from
// [b, t, h, d] projections (as PyTorch's attention lowers): q·kᵀ batched
// over [b, h], then p·v. With keep, the transposed q is returned too (a
// transpose another op reads stays).
func attentionModule(b, t, h, d int, keep bool) string {
	x := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", b, t, h, d)
	hd := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", b, h, t, d)
	s := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", b, h, t, t)
	ret, rets := "%o", hd
	if keep {
		ret, rets = "%o, %q", hd+", "+hd
	}
	return fmt.Sprintf(`func.func @main(%%x: %[1]s, %%y: %[1]s, %%z: %[1]s, %%p: %[3]s) -> (%[5]s) {
  %%q = stablehlo.transpose %%x, dims = [0, 2, 1, 3] : (%[1]s) -> %[2]s
  %%k = stablehlo.transpose %%y, dims = [0, 2, 1, 3] : (%[1]s) -> %[2]s
  %%v = stablehlo.transpose %%z, dims = [0, 2, 1, 3] : (%[1]s) -> %[2]s
  %%s = stablehlo.dot_general %%q, %%k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (%[2]s, %[2]s) -> %[3]s
  %%w = stablehlo.add %%s, %%p : %[3]s
  %%o = stablehlo.dot_general %%w, %%v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (%[3]s, %[2]s) -> %[2]s
  func.return %[4]s : %[5]s
}`, x, hd, s, ret, rets)
}

// TestFoldDotTransposes: products of transposed heads read the
// projections in place (their batch dims as two runs, [b] and [h]) and
// give the bits of the products of the transposed copies, on the exact
// kernel's small products and on the GEMM, with NaN and infinities; the
// transposes no other op reads are not run, one returned as well is.
func TestFoldDotTransposes(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	defer func(old bool) { foldTransposesEnabled = old }(foldTransposesEnabled)
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, s := range []struct{ b, t, h, d int }{{2, 5, 3, 4}, {1, 7, 1, 3}, {2, 64, 4, 32}, {1, 96, 2, 80}} {
			for _, keep := range []bool{false, true} {
				name := fmt.Sprintf("%v/keep=%v/procs=%d", s, keep, procs)
				m, err := stablehlo.ParseModule("attn", []byte("module {\n"+attentionModule(s.b, s.t, s.h, s.d, keep)+"\n}"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				foldTransposesEnabled = true
				folded := compileWith(t, m, true)
				foldTransposesEnabled = false
				plain := compileWith(t, m, true)
				ep := folded.(*Executable).prog.plans[m.Func("main")].exec
				// all three fold; q's transpose stays when it is returned
				sum := ep.summary()
				if keep != strings.Contains(sum, "stablehlo.transpose×1") || strings.Contains(sum, "transpose×2") ||
					strings.Contains(sum, "transpose×3") {
					t.Fatalf("%s: plan %s", name, sum)
				}
				var args []*literal.Literal
				for _, it := range m.Func("main").Type.Inputs {
					l := randomLiteral(t, r, stablehlo.AsTensor(it))
					for i := 0; i < l.Len(); i++ {
						l.SetFloat64(i, r.NormFloat64())
					}
					args = append(args, l)
				}
				args[0].SetFloat64(5%args[0].Len(), math.NaN())
				args[1].SetFloat64(args[1].Len()-1, math.Inf(1))
				args[2].SetFloat64(args[2].Len()/2, math.Inf(-1))
				got, err := folded.Run(context.Background(), args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ref, err := plain.Run(context.Background(), args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for i := range ref {
					if !shapeEq(got[i].Shape, ref[i].Shape) || !bytes.Equal(got[i].Data, ref[i].Data) {
						t.Fatalf("%s: result #%d differs from the products of the transposed copies", name, i)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// A transpose that would reorder a product's free dims (the result's
// dims would change) is not folded, nor one of a float64 product.
func TestFoldDotTransposesDeclines(t *testing.T) {
	for name, src := range map[string]string{
		"free dims reordered": `func.func @main(%x: tensor<3x4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x3x6xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<3x4x5xf32>) -> tensor<4x3x5xf32>
  %o = stablehlo.dot_general %t, %y, contracting_dims = [2] x [0] : (tensor<4x3x5xf32>, tensor<5x6xf32>) -> tensor<4x3x6xf32>
  func.return %o : tensor<4x3x6xf32>
}`,
		"float64": `func.func @main(%x: tensor<4x3xf64>, %y: tensor<4x6xf64>) -> tensor<3x6xf64> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x3xf64>) -> tensor<3x4xf64>
  %o = stablehlo.dot_general %t, %y, contracting_dims = [1] x [0] : (tensor<3x4xf64>, tensor<4x6xf64>) -> tensor<3x6xf64>
  func.return %o : tensor<3x6xf64>
}`,
	} {
		m, err := stablehlo.ParseModule(name, []byte("module {\n"+src+"\n}"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e := compileWith(t, m, true)
		if sum := e.(*Executable).prog.plans[m.Func("main")].exec.summary(); !strings.Contains(sum, "transpose") {
			t.Errorf("%s: the transpose was folded: %s", name, sum)
		}
		var args []*literal.Literal
		r := rand.New(rand.NewSource(42))
		for _, it := range m.Func("main").Type.Inputs {
			args = append(args, randomLiteral(t, r, stablehlo.AsTensor(it)))
		}
		if _, err := e.Run(context.Background(), args); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
