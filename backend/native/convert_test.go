package native

import (
	"context"
	"testing"
)

// Bit-level and conversion semantics that follow from the spec and IEEE
// encodings (1.0f is 0x3F800000, stored little-endian).
const convertSrc = `
func.func @bitcast_split() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.bitcast_convert %0 : (tensor<f32>) -> tensor<4xui8>
  check.expect_eq_const %1, dense<[0, 0, 128, 63]> : tensor<4xui8>
  func.return
}

// -----

func.func @bitcast_join_subbyte() {
  %0 = stablehlo.constant dense<[[1, 2], [15, 0]]> : tensor<2x2xui4>
  %1 = stablehlo.bitcast_convert %0 : (tensor<2x2xui4>) -> tensor<2xui8>
  check.expect_eq_const %1, dense<[33, 15]> : tensor<2xui8>
  %2 = stablehlo.bitcast_convert %1 : (tensor<2xui8>) -> tensor<2x2xi4>
  check.expect_eq_const %2, dense<[[1, 2], [-1, 0]]> : tensor<2x2xi4>
  func.return
}

// -----

func.func @convert_saturates() {
  %0 = stablehlo.constant dense<[1.0e10, -1.0e10, 0x7FC00000, -2.5, 2.5]> : tensor<5xf32>
  %1 = stablehlo.convert %0 : (tensor<5xf32>) -> tensor<5xi8>
  check.expect_eq_const %1, dense<[127, -128, 0, -2, 2]> : tensor<5xi8>
  %2 = stablehlo.convert %0 : (tensor<5xf32>) -> tensor<5xi1>
  check.expect_eq_const %2, dense<[true, true, true, true, true]> : tensor<5xi1>
  func.return
}

// -----

func.func @integer_division_edges() {
  %0 = stablehlo.constant dense<[-128, 7, -7, 5]> : tensor<4xi8>
  %1 = stablehlo.constant dense<[-1, 0, 2, -3]> : tensor<4xi8>
  %2 = stablehlo.divide %0, %1 : tensor<4xi8>
  check.expect_eq_const %2, dense<[-128, -1, -3, -1]> : tensor<4xi8>
  %3 = stablehlo.remainder %0, %1 : tensor<4xi8>
  check.expect_eq_const %3, dense<[0, 7, -1, 2]> : tensor<4xi8>
  func.return
}

// -----

func.func @shifts_out_of_range() {
  %0 = stablehlo.constant dense<[-16, -16, 16]> : tensor<3xi8>
  %1 = stablehlo.constant dense<[8, 2, -1]> : tensor<3xi8>
  %2 = stablehlo.shift_right_arithmetic %0, %1 : tensor<3xi8>
  check.expect_eq_const %2, dense<[-1, -4, 0]> : tensor<3xi8>
  %3 = stablehlo.shift_right_logical %0, %1 : tensor<3xi8>
  check.expect_eq_const %3, dense<[0, 60, 0]> : tensor<3xi8>
  %4 = stablehlo.shift_left %0, %1 : tensor<3xi8>
  check.expect_eq_const %4, dense<[0, -64, 0]> : tensor<3xi8>
  func.return
}
`

func TestConvertAndBitsSemantics(t *testing.T) {
	r := RunSource(context.Background(), "convert.mlir", []byte(convertSrc), RunOptions{})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Funcs) != 5 {
		t.Fatalf("ran %d functions, want 5", len(r.Funcs))
	}
	for _, f := range r.Funcs {
		if f.Err != nil {
			t.Errorf("%s: %v", f.Name, f.Err)
		}
	}
}
