package native

import (
	"context"
	"testing"
)

// TestRngRange checks that stablehlo.rng keeps UNIFORM draws inside
// [a, b) and that two calls give different draws.
func TestRngRange(t *testing.T) {
	src := `
func.func @uniform_in_range() {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.constant dense<3.0> : tensor<f32>
  %shape = stablehlo.constant dense<[64, 32]> : tensor<2xi64>
  %r = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<64x32xf32>
  %lo = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
  %hi = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
  %ge = stablehlo.compare GE, %r, %lo : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xi1>
  %lt = stablehlo.compare LT, %r, %hi : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xi1>
  %ok = stablehlo.and %ge, %lt : tensor<64x32xi1>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%ok init: %t) applies stablehlo.and across dimensions = [0, 1] : (tensor<64x32xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  %r2 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<64x32xf32>
  %same = stablehlo.compare EQ, %r, %r2 : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xi1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %any = stablehlo.reduce(%same init: %f) applies stablehlo.and across dimensions = [0, 1] : (tensor<64x32xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %any, dense<false> : tensor<i1>
  func.return
}

func.func @int_uniform_in_range() {
  %a = stablehlo.constant dense<-5> : tensor<i32>
  %b = stablehlo.constant dense<7> : tensor<i32>
  %shape = stablehlo.constant dense<[1000]> : tensor<1xi64>
  %r = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<1000xi32>
  %init = stablehlo.constant dense<100> : tensor<i32>
  %mn = stablehlo.reduce(%r init: %init) applies stablehlo.minimum across dimensions = [0] : (tensor<1000xi32>, tensor<i32>) -> tensor<i32>
  %init2 = stablehlo.constant dense<-100> : tensor<i32>
  %mx = stablehlo.reduce(%r init: %init2) applies stablehlo.maximum across dimensions = [0] : (tensor<1000xi32>, tensor<i32>) -> tensor<i32>
  check.expect_eq_const %mn, dense<-5> : tensor<i32>
  check.expect_eq_const %mx, dense<6> : tensor<i32>
  func.return
}
`
	r := RunSource(context.Background(), "rng_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 2 {
		t.Fatalf("ran %d functions, want 2", len(r.Funcs))
	}
}
