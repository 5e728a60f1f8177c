package native

import (
	"context"
	"testing"
)

// TestDotAlgorithm checks that the operands are rounded to the algorithm's
// precision types (ties to even) before the product.
func TestDotAlgorithm(t *testing.T) {
	src := `
func.func @bf16_operands() {
  %a = stablehlo.constant dense<[[1.00390625, 2.0]]> : tensor<1x2xf32>
  %b = stablehlo.constant dense<[[3.0], [0.5]]> : tensor<2x1xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %r, dense<[[4.0]]> : tensor<1x1xf32>
  %plain = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %plain, dense<[[4.01171875]]> : tensor<1x1xf32>
  func.return
}

func.func @tf32_operands() {
  %a = stablehlo.constant dense<[1.00048828125, 1.000732421875]> : tensor<2xf32>
  %b = stablehlo.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  check.expect_eq_const %r, dense<3.0009765625> : tensor<f32>
  func.return
}
`
	r := RunSource(context.Background(), "dot_algorithm_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 2 {
		t.Fatalf("ran %d functions, want 2", len(r.Funcs))
	}
}
