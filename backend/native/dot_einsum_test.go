package native

import (
	"context"
	"testing"
)

// TestEinsum checks the deprecated einsum forms on small integer data.
func TestEinsum(t *testing.T) {
	src := `
func.func @matmul() {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = stablehlo.constant dense<[[1, 0], [0, 1], [1, 1]]> : tensor<3x2xi32>
  %r = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %r, dense<[[4, 5], [10, 11]]> : tensor<2x2xi32>
  func.return
}

func.func @transposed_outer() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[3.0, 4.0, 5.0]> : tensor<3xf32>
  %r = "stablehlo.einsum"(%a, %b) {einsum_config = "a,b->ba"} : (tensor<2xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  check.expect_eq_const %r, dense<[[3.0, 6.0], [4.0, 8.0], [5.0, 10.0]]> : tensor<3x2xf32>
  func.return
}

func.func @unary_row_sum() {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %r = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->a"} : (tensor<2x3xi64>) -> tensor<2xi64>
  check.expect_eq_const %r, dense<[6, 15]> : tensor<2xi64>
  func.return
}
`
	r := RunSource(context.Background(), "einsum_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 3 {
		t.Fatalf("ran %d functions, want 3", len(r.Funcs))
	}
}
