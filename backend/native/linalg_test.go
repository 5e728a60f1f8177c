package native

import (
	"context"
	"fmt"
	"strings"
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

// Empty systems (0x0 matrices, no right-hand sides, an empty batch) solve
// to empty results instead of indexing a missing first row.
func TestTriangularSolveEmpty(t *testing.T) {
	var src strings.Builder
	cases := [][2]string{{"0x0", "0x0"}, {"0x0", "0x1"}, {"2x0x0", "2x0x1"}, {"0x3x3", "0x3x2"}}
	for i, tc := range cases {
		fmt.Fprintf(&src, `
func.func @empty%d() {
  %%a = stablehlo.constant dense<> : tensor<%sxf32>
  %%b = stablehlo.constant dense<> : tensor<%sxf32>
  %%x = "stablehlo.triangular_solve"(%%a, %%b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<%sxf32>, tensor<%sxf32>) -> tensor<%sxf32>
  check.expect_eq_const %%x, dense<> : tensor<%sxf32>
  func.return
}
`, i, tc[0], tc[1], tc[0], tc[1], tc[1], tc[1])
	}
	r := RunSource(context.Background(), "trisolve_empty.mlir", []byte(src.String()), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != len(cases) {
		t.Fatalf("ran %d functions, want %d", len(r.Funcs), len(cases))
	}
}
