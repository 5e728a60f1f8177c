package native

import "testing"

func init() {
	// aten's safe softmax tests its scores for rows all -inf: compare
	// EQ -inf, then compare EQ false (a logical not of booleans) before
	// an or-reduction; booleans compared with booleans fuse too, and a
	// select reads the negation
	fuseModules["bool_compare"] = `func.func @main(%x: tensor<4x3x9x9xf32>, %y: tensor<4x3x9x9xf32>, %p: tensor<4x3x9x9xi1>) -> (tensor<4x3x9xi1>, tensor<4x3x9x9xf32>, tensor<4x3x9x9xi1>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<4x3x9x9xf32>
  %f = stablehlo.constant dense<false> : tensor<4x3x9x9xi1>
  %0 = stablehlo.compare EQ, %x, %ninf, FLOAT : (tensor<4x3x9x9xf32>, tensor<4x3x9x9xf32>) -> tensor<4x3x9x9xi1>
  %1 = stablehlo.compare EQ, %0, %f, UNSIGNED : (tensor<4x3x9x9xi1>, tensor<4x3x9x9xi1>) -> tensor<4x3x9x9xi1>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %2 = stablehlo.reduce(%1 init: %false) applies stablehlo.or across dimensions = [3] : (tensor<4x3x9x9xi1>, tensor<i1>) -> tensor<4x3x9xi1>
  %3 = stablehlo.compare NE, %p, %0, UNSIGNED : (tensor<4x3x9x9xi1>, tensor<4x3x9x9xi1>) -> tensor<4x3x9x9xi1>
  %4 = stablehlo.select %3, %x, %y : tensor<4x3x9x9xi1>, tensor<4x3x9x9xf32>
  %5 = stablehlo.compare EQ, %p, %p : (tensor<4x3x9x9xi1>, tensor<4x3x9x9xi1>) -> tensor<4x3x9x9xi1>
  return %2, %4, %5 : tensor<4x3x9xi1>, tensor<4x3x9x9xf32>, tensor<4x3x9x9xi1>
}`
}

// TestBoolCompareFuses checks that equality of booleans joins the fusion
// groups (TestFusionMatchesInterpreter checks the values).
func TestBoolCompareFuses(t *testing.T) {
	m := parseFuseModule(t, "bool_compare")
	ep := compileWith(t, m, true).(*Executable).prog.plans[m.Func("main")].exec
	for _, st := range ep.steps {
		if st.kind == stepOp && st.op.op.Name == "stablehlo.compare" {
			t.Errorf("compare left unfused: %s", ep.summary())
		}
	}
}
