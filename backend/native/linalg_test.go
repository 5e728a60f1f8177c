package native

import (
	"context"
	"testing"
)

// TestCholesky factors a matrix whose factor has small integer entries,
// so every step is exact: A = L·Lᵀ with L = [[2,0,0],[1,3,0],[-1,1,2]].
func TestCholesky(t *testing.T) {
	src := `
func.func @lower() {
  %a = stablehlo.constant dense<[[4.0, 2.0, -2.0], [2.0, 10.0, 2.0], [-2.0, 2.0, 6.0]]> : tensor<3x3xf32>
  %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
  check.expect_eq_const %l, dense<[[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 1.0, 2.0]]> : tensor<3x3xf32>
  func.return
}

func.func @upper_batched() {
  %a = stablehlo.constant dense<[[[4.0, 2.0, -2.0], [2.0, 10.0, 2.0], [-2.0, 2.0, 6.0]], [[9.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 1.0]]]> : tensor<2x3x3xf64>
  %u = stablehlo.cholesky %a, lower = false : tensor<2x3x3xf64>
  check.expect_eq_const %u, dense<[[[2.0, 1.0, -1.0], [0.0, 3.0, 1.0], [0.0, 0.0, 2.0]], [[3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]]]> : tensor<2x3x3xf64>
  func.return
}

func.func @complex_hermitian() {
  %a = stablehlo.constant dense<[[(4.0, 0.0), (2.0, -2.0)], [(2.0, 2.0), (3.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  %l = stablehlo.cholesky %a, lower = true : tensor<2x2xcomplex<f64>>
  check.expect_eq_const %l, dense<[[(2.0, 0.0), (0.0, 0.0)], [(1.0, 1.0), (1.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  func.return
}
`
	r := RunSource(context.Background(), "linalg_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 3 {
		t.Fatalf("ran %d functions, want 3", len(r.Funcs))
	}
}
