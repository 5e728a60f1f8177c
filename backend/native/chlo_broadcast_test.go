package native

import (
	"context"
	"testing"
)

// TestChloBroadcastOps checks the numpy-style broadcasting of the
// chlo.broadcast_* ops on exact small-integer arithmetic.
func TestChloBroadcastOps(t *testing.T) {
	src := `
func.func @broadcast_add() {
  %a = stablehlo.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %r = chlo.broadcast_add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %r, dense<[[11.0, 21.0, 31.0], [12.0, 22.0, 32.0]]> : tensor<2x3xf32>
  func.return
}

func.func @broadcast_compare() {
  %a = stablehlo.constant dense<[[15], [25]]> : tensor<2x1xi32>
  %b = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %r = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  check.expect_eq_const %r, dense<[[false, true, true], [false, false, true]]> : tensor<2x3xi1>
  func.return
}

func.func @broadcast_dimensions() {
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = stablehlo.constant dense<[100, 200]> : tensor<2xi32>
  %r = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %r, dense<[[100, 200, 300], [800, 1000, 1200]]> : tensor<2x3xi32>
  func.return
}
`
	r := RunSource(context.Background(), "chlo_broadcast_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 3 {
		t.Fatalf("ran %d functions, want 3", len(r.Funcs))
	}
}
