package native

import (
	"context"
	"testing"
)

// TestReduceFastMatchesGeneric compares the fast folds with the generic
// region path (forced by a body of two ops) bit for bit, on rounding-heavy
// bf16, f16 and f32 data, for reduce and reduce_window.
func TestReduceFastMatchesGeneric(t *testing.T) {
	src := `
func.func @bf16_sum() {
  %i = stablehlo.iota dim = 1 : tensor<3x200xf32>
  %s = stablehlo.constant dense<0.1> : tensor<3x200xf32>
  %m = stablehlo.multiply %i, %s : tensor<3x200xf32>
  %x = stablehlo.convert %m : (tensor<3x200xf32>) -> tensor<3x200xbf16>
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %fast = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x200xbf16>, tensor<bf16>) -> tensor<3xbf16>
  %slow = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %0 = stablehlo.add %a, %b : tensor<bf16>
      %1 = stablehlo.maximum %0, %0 : tensor<bf16>
      stablehlo.return %1 : tensor<bf16>
  }) {dimensions = array<i64: 1>} : (tensor<3x200xbf16>, tensor<bf16>) -> tensor<3xbf16>
  check.expect_eq %fast, %slow : tensor<3xbf16>
  func.return
}

func.func @f16_product_window() {
  %i = stablehlo.iota dim = 0 : tensor<40xf32>
  %s = stablehlo.constant dense<0.037> : tensor<40xf32>
  %o = stablehlo.constant dense<0.9> : tensor<40xf32>
  %m = stablehlo.multiply %i, %s : tensor<40xf32>
  %a = stablehlo.add %m, %o : tensor<40xf32>
  %x = stablehlo.convert %a : (tensor<40xf32>) -> tensor<40xf16>
  %one = stablehlo.constant dense<1.0> : tensor<f16>
  %fast = "stablehlo.reduce_window"(%x, %one) ({
    ^bb0(%p: tensor<f16>, %q: tensor<f16>):
      %0 = stablehlo.multiply %p, %q : tensor<f16>
      stablehlo.return %0 : tensor<f16>
  }) {window_dimensions = array<i64: 7>, window_strides = array<i64: 2>, padding = dense<[[3, 2]]> : tensor<1x2xi64>} : (tensor<40xf16>, tensor<f16>) -> tensor<20xf16>
  %slow = "stablehlo.reduce_window"(%x, %one) ({
    ^bb0(%p: tensor<f16>, %q: tensor<f16>):
      %0 = stablehlo.multiply %p, %q : tensor<f16>
      %1 = stablehlo.minimum %0, %0 : tensor<f16>
      stablehlo.return %1 : tensor<f16>
  }) {window_dimensions = array<i64: 7>, window_strides = array<i64: 2>, padding = dense<[[3, 2]]> : tensor<1x2xi64>} : (tensor<40xf16>, tensor<f16>) -> tensor<20xf16>
  check.expect_eq %fast, %slow : tensor<20xf16>
  func.return
}

func.func @promoted_accumulator() {
  %x = stablehlo.constant dense<[[100, 100, 100], [-128, -128, 1]]> : tensor<2x3xi8>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %0 : tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<2x3xi8>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const %r, dense<[300, -255]> : tensor<2xi32>
  func.return
}
`
	r := RunSource(context.Background(), "reduce_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 3 {
		t.Fatalf("ran %d functions, want 3", len(r.Funcs))
	}
}
