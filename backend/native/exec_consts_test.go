package native

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestConstSpansAcrossRuns: once a run has computed a plan's constants,
// later runs take their bytes from the plan's settled set (execPlan.consts)
// instead of adding them one by one, and those bytes stay out of reach of
// the arena: a returned constant (or a view of one) is the caller's copy,
// which the caller may overwrite without changing a later run's results,
// and no result is ever placed in a constant's bytes. With and without
// the memory plan (without it, every value goes through the arena).
func TestConstSpansAcrossRuns(t *testing.T) {
	const src = `func.func @main(%x: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %i = stablehlo.iota dim = 1 : tensor<4x8xf32>
  %c = stablehlo.constant dense<2.0> : tensor<4x8xf32>
  %k = stablehlo.multiply %i, %c : tensor<4x8xf32>
  %r = stablehlo.reshape %k : (tensor<4x8xf32>) -> tensor<32xf32>
  %y = stablehlo.add %x, %k : tensor<4x8xf32>
  %z = stablehlo.multiply %y, %x : tensor<4x8xf32>
  func.return %r, %y, %z : tensor<32xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}`
	defer func(old bool) { noMemPlan = old }(noMemPlan)
	for _, memPlan := range []bool{true, false} {
		noMemPlan = !memPlan
		m, err := stablehlo.ParseModule("consts", []byte("module {\n"+src+"\n}"))
		if err != nil {
			t.Fatal(err)
		}
		e := compileWith(t, m, true).(*Executable)
		ep := e.prog.plans[m.Func("main")].exec
		if ep.folded == 0 {
			t.Fatalf("memplan=%v: no op evaluated once (%s)", memPlan, ep.summary())
		}
		for run := 0; run < 4; run++ {
			x, err := literal.New(dtype.F32, []int64{4, 8})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 32; k++ {
				x.SetFloat64(k, float64(run*100+k))
			}
			out, err := e.Run(context.Background(), []*literal.Literal{x})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 32; k++ {
				kv := float64(2 * (k % 8))
				xv := float64(run*100 + k)
				if got := out[0].Float64(k); got != kv {
					t.Fatalf("memplan=%v run %d: constant element %d is %v, want %v", memPlan, run, k, got, kv)
				}
				if got := out[1].Float64(k); got != xv+kv {
					t.Fatalf("memplan=%v run %d: y element %d is %v, want %v", memPlan, run, k, got, xv+kv)
				}
				if got, want := out[2].Float64(k), float64(float32(xv+kv)*float32(xv)); got != want {
					t.Fatalf("memplan=%v run %d: z element %d is %v, want %v", memPlan, run, k, got, want)
				}
			}
			// the caller owns its results: overwriting them changes no
			// later run
			for _, l := range out {
				clear(l.Data)
			}
			if run == 0 && ep.consts.Load() == nil {
				t.Fatalf("memplan=%v: the first run kept no constant set", memPlan)
			}
		}
	}
}
