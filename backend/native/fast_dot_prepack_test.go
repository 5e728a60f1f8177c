package native

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func compileModule(t *testing.T, m *stablehlo.Module) backend.Executable {
	t.Helper()
	e, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func runExe(t *testing.T, e backend.Executable, args ...*literal.Literal) []*literal.Literal {
	t.Helper()
	out, err := e.Run(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func closeTo(t *testing.T, name string, got, want *literal.Literal) {
	t.Helper()
	closeToK(t, name, got, want, 0)
}

// closeToK is closeTo for sums of k products of unit-scale normal values
// in two different orders: their rounding differs by about k·2⁻²⁴ at
// worst (a sum that cancels to near zero keeps its partial sums' error).
func closeToK(t *testing.T, name string, got, want *literal.Literal, k int) {
	t.Helper()
	for i := 0; i < want.Len(); i++ {
		g, e := got.Float64(i), want.Float64(i)
		if math.IsNaN(e) != math.IsNaN(g) || (!math.IsNaN(e) && math.Abs(g-e) > max(1e-5, 6e-8*float64(k))*(1+math.Abs(e))) {
			t.Fatalf("%s: element %d = %v, want %v", name, i, g, e)
		}
	}
}

// TestPrepackedWeights runs a linear layer (x·Wᵀ, W an argument of the
// entry function) on the same weight literal again and again (packed
// once, then hits), on a new weight literal (packed again), and with NaN
// and Inf in the weight, against the product without prepacking, for odd
// shapes.
func TestPrepackedWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	none := []int64{}
	for _, dc := range []dotCase{
		{[]int64{17, 333}, []int64{129, 333}, none, none, []int64{1}, []int64{1}, true},    // Wᵀ
		{[]int64{1, 70, 96}, []int64{300, 96}, none, none, []int64{2}, []int64{1}, true},   // merged rows
		{[]int64{65, 96}, []int64{96, 77}, none, none, []int64{1}, []int64{0}, true},       // W row-major
		{[]int64{40, 3, 50}, []int64{50, 3, 41}, none, none, []int64{2}, []int64{0}, true}, // merged free dims on both sides
		{[]int64{3, 2, 64}, []int64{99, 64}, none, none, []int64{2}, []int64{1}, false},    // small: the exact kernel
		{[]int64{24, 64}, []int64{192, 64}, none, none, []int64{1}, []int64{1}, true},      // few rows, above the threshold
		{[]int64{1, 1280}, []int64{1000, 1280}, none, none, []int64{1}, []int64{1}, true},  // one token: the packed matrix-vector blocks
		{[]int64{1, 1, 245}, []int64{487, 245}, none, none, []int64{2}, []int64{1}, true},  // the same, a last block of 7 rows, k%4 = 1
	} {
		e := compileModule(t, dc.module(t))
		w := randF32Literal(t, r, dc.rhs...)
		w.Frozen = true // weights as an archive's are
		hits0, packs0 := prepackStats.hits.Load(), prepackStats.packs.Load()
		for it := 0; it < 4; it++ {
			x := randF32Literal(t, r, dc.lhs...)
			if it == 2 {
				w = randF32Literal(t, r, dc.rhs...) // a new weight: packed again
				w.SetFloat64(3, math.NaN())
				w.SetFloat64(w.Len()-1, math.Inf(-1))
				w.Frozen = true
			}
			got := runExe(t, e, x, w)[0]
			prepackEnabled = false
			want := runExe(t, e, x, w)[0]
			prepackEnabled = true
			closeToK(t, "prepacked", got, want, int(dc.lhs[len(dc.lhs)-1]))
		}
		hits, packs := prepackStats.hits.Load()-hits0, prepackStats.packs.Load()-packs0
		rows := int64(1)
		for _, d := range dc.lhs[:len(dc.lhs)-1] {
			rows *= d
		}
		if rows == 1 && !gemvPackedOK {
			dc.fast = false // one token, no vector gemv: dot products read the weight in place
		}
		if dc.fast && (packs != 2 || hits != 2) {
			t.Errorf("%v x %v: %d packs and %d hits, want 2 and 2", dc.lhs, dc.rhs, packs, hits)
		}
		if !dc.fast && packs+hits != 0 {
			t.Errorf("%v x %v: %d packs and %d hits, want none", dc.lhs, dc.rhs, packs, hits)
		}
		// A weight written in place between runs (not frozen: the eager
		// device's buffers, memory lent through the C ABI) is never packed
		// ahead, so no run reads a stale copy.
		w = randF32Literal(t, r, dc.rhs...)
		hits0, packs0 = prepackStats.hits.Load(), prepackStats.packs.Load()
		for it := 0; it < 3; it++ {
			for i := 0; i < w.Len(); i += 7 {
				w.SetFloat64(i, float64(it+i%5))
			}
			x := randF32Literal(t, r, dc.lhs...)
			got := runExe(t, e, x, w)[0]
			prepackEnabled = false
			want := runExe(t, e, x, w)[0]
			prepackEnabled = true
			closeTo(t, "written in place", got, want)
		}
		if n := prepackStats.hits.Load() - hits0 + prepackStats.packs.Load() - packs0; n != 0 {
			t.Errorf("%v x %v: a weight that is not frozen was packed ahead (%d packs and hits)", dc.lhs, dc.rhs, n)
		}
	}
}

// TestPrepackedNotForCalleeArgs: a product in a called function whose B
// is the callee's argument, an intermediate value of the caller (whose
// literal header the memory plan reuses run after run with new contents),
// is never prepacked: each run gets the product of its own values.
func TestPrepackedNotForCalleeArgs(t *testing.T) {
	src := `module {
  func.func @main(%x: tensor<48x64xf32>, %w: tensor<96x64xf32>) -> tensor<48x96xf32> {
    %w2 = stablehlo.multiply %w, %w : tensor<96x64xf32>
    %0 = func.call @lin(%x, %w2) : (tensor<48x64xf32>, tensor<96x64xf32>) -> tensor<48x96xf32>
    func.return %0 : tensor<48x96xf32>
  }
  func.func private @lin(%a: tensor<48x64xf32>, %b: tensor<96x64xf32>) -> tensor<48x96xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<48x64xf32>, tensor<96x64xf32>) -> tensor<48x96xf32>
    func.return %0 : tensor<48x96xf32>
  }
}`
	m, err := stablehlo.ParseModule("callee.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := compileModule(t, m)
	r := rand.New(rand.NewPCG(23, 24))
	x := randF32Literal(t, r, 48, 64)
	packs0 := prepackStats.packs.Load()
	for it := 0; it < 4; it++ {
		w := randF32Literal(t, r, 96, 64)
		got := runExe(t, e, x, w)[0]
		prepackEnabled = false
		want := runExe(t, e, x, w)[0]
		prepackEnabled = true
		closeTo(t, "callee", got, want)
	}
	if packs := prepackStats.packs.Load() - packs0; packs != 0 {
		t.Errorf("%d packs of a callee's argument", packs)
	}
}
