package native

import (
	"context"
	"testing"
)

// TestReduceFastMatchesGeneric compares the fast folds and the compiled
// scalar bodies with the generic region path (forced by an extra op the
// fast paths do not take) bit for bit, on rounding-heavy bf16 and f16 data
// and on NaNs, signed zeros and ties.
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

func.func @argmax_scalar_program() {
  %x = stablehlo.constant dense<[[1.0, 3.0, 3.0, -0.0, 2.0], [0.0, 0xFF800000, 0x7FC00000, 5.0, 0x7FC00000], [-0.0, 0.0, -1.0, 0.0, -0.0]]> : tensor<3x5xf32>
  %i = stablehlo.iota dim = 1 : tensor<3x5xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %v, %idx = stablehlo.reduce(%x init: %ninf), (%i init: %z) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
      %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nan = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %pick = stablehlo.or %gt, %nan : tensor<i1>
      %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mi = stablehlo.minimum %b, %d : tensor<i32>
      %nv = stablehlo.select %pick, %a, %c : tensor<i1>, tensor<f32>
      %ni0 = stablehlo.select %pick, %b, %d : tensor<i1>, tensor<i32>
      %ni = stablehlo.select %eq, %mi, %ni0 : tensor<i1>, tensor<i32>
      %s = stablehlo.add %nv, %nv : tensor<f32>
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %back = stablehlo.multiply %s, %h : tensor<f32>
      stablehlo.return %back, %ni : tensor<f32>, tensor<i32>
    }
  %v2, %idx2 = stablehlo.reduce(%x init: %ninf), (%i init: %z) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
      %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nan = stablehlo.compare NE, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %pick = stablehlo.or %gt, %nan : tensor<i1>
      %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mi = stablehlo.minimum %b, %d : tensor<i32>
      %nv = stablehlo.select %pick, %a, %c : tensor<i1>, tensor<f32>
      %ni0 = stablehlo.select %pick, %b, %d : tensor<i1>, tensor<i32>
      %ni = stablehlo.select %eq, %mi, %ni0 : tensor<i1>, tensor<i32>
      %s = stablehlo.add %nv, %nv : tensor<f32>
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %back = stablehlo.multiply %s, %h : tensor<f32>
      %r = stablehlo.reshape %back : (tensor<f32>) -> tensor<f32>
      stablehlo.return %r, %ni : tensor<f32>, tensor<i32>
    }
  check.expect_eq %v, %v2 : tensor<3xf32>
  check.expect_eq %idx, %idx2 : tensor<3xi32>
  func.return
}

func.func @window_argmax_scalar_program() {
  %x = stablehlo.constant dense<[3.0, 0x7FC00000, 1.0, 4.0, 4.0, -2.0, 0.0, 9.0]> : tensor<8xf32>
  %i = stablehlo.iota dim = 0 : tensor<8xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m1 = stablehlo.constant dense<-1> : tensor<i32>
  %v, %idx = "stablehlo.reduce_window"(%x, %i, %ninf, %m1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
      %ge = stablehlo.compare GE, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nv = stablehlo.select %ge, %a, %c : tensor<i1>, tensor<f32>
      %ni = stablehlo.select %ge, %b, %d : tensor<i1>, tensor<i32>
      stablehlo.return %nv, %ni : tensor<f32>, tensor<i32>
  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<8xf32>, tensor<8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  %v2, %idx2 = "stablehlo.reduce_window"(%x, %i, %ninf, %m1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
      %ge = stablehlo.compare GE, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %nv = stablehlo.select %ge, %a, %c : tensor<i1>, tensor<f32>
      %ni = stablehlo.select %ge, %b, %d : tensor<i1>, tensor<i32>
      %r = stablehlo.reshape %ni : (tensor<i32>) -> tensor<i32>
      stablehlo.return %nv, %r : tensor<f32>, tensor<i32>
  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<8xf32>, tensor<8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  check.expect_eq %v, %v2 : tensor<4xf32>
  check.expect_eq %idx, %idx2 : tensor<4xi32>
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
	if len(r.Funcs) != 5 {
		t.Fatalf("ran %d functions, want 5", len(r.Funcs))
	}
}
