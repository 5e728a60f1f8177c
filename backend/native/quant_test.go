package native

import (
	"context"
	"testing"
)

// TestQuantizedIntegerPaths checks the integer paths of quantized dot and
// convolution (the ones the quant-to-math lowering takes) against the
// same computation done in float on the dequantized operands; values sit
// on the quantization grids and sums stay small, so both are exact.
func TestQuantizedIntegerPaths(t *testing.T) {
	src := `
func.func @conv_nhwc_padded() {
  %l = stablehlo.constant dense<[[[[1.0], [-2.5], [3.0]], [[0.5], [4.0], [-1.0]], [[2.0], [0.0], [-3.5]]]]> : tensor<1x3x3x1xf32>
  %r = stablehlo.constant dense<[[[[0.25, -0.5]], [[1.0, 0.75]]], [[[-1.25, 0.5]], [[0.0, 2.0]]]]> : tensor<2x2x1x2xf32>
  %lq = stablehlo.uniform_quantize %l : (tensor<1x3x3x1xf32>) -> tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:-3>>
  %rq = stablehlo.uniform_quantize %r : (tensor<2x2x1x2xf32>) -> tensor<2x2x1x2x!quant.uniform<i8:f32, 0.25>>
  %cq = stablehlo.convolution(%lq, %rq) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 0], [0, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x2x1x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x3x3x2x!quant.uniform<i32:f32, 0.125:4>>
  %c = stablehlo.uniform_dequantize %cq : (tensor<1x3x3x2x!quant.uniform<i32:f32, 0.125:4>>) -> tensor<1x3x3x2xf32>
  %lf = stablehlo.uniform_dequantize %lq : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x3x3x1xf32>
  %rf = stablehlo.uniform_dequantize %rq : (tensor<2x2x1x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x2x1x2xf32>
  %cf = stablehlo.convolution(%lf, %rf) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 0], [0, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32>) -> tensor<1x3x3x2xf32>
  check.expect_eq %c, %cf : tensor<1x3x3x2xf32>
  func.return
}

func.func @dot_both_zero_points() {
  %l = stablehlo.constant dense<[[1.0, -2.0, 3.5], [0.5, 4.0, -1.5]]> : tensor<2x3xf32>
  %r = stablehlo.constant dense<[[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]]> : tensor<3x2xf32>
  %lq = stablehlo.uniform_quantize %l : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:7>>
  %rq = stablehlo.uniform_quantize %r : (tensor<3x2xf32>) -> tensor<3x2x!quant.uniform<i8:f32, 0.25:-5>>
  %dq = stablehlo.dot_general %lq, %rq, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:7>>, tensor<3x2x!quant.uniform<i8:f32, 0.25:-5>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.125:-2>>
  %d = stablehlo.uniform_dequantize %dq : (tensor<2x2x!quant.uniform<i32:f32, 0.125:-2>>) -> tensor<2x2xf32>
  %lf = stablehlo.uniform_dequantize %lq : (tensor<2x3x!quant.uniform<i8:f32, 0.5:7>>) -> tensor<2x3xf32>
  %rf = stablehlo.uniform_dequantize %rq : (tensor<3x2x!quant.uniform<i8:f32, 0.25:-5>>) -> tensor<3x2xf32>
  %df = stablehlo.dot_general %lf, %rf, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  check.expect_eq %d, %df : tensor<2x2xf32>
  func.return
}
`
	r := RunSource(context.Background(), "quant_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 2 {
		t.Fatalf("ran %d functions, want 2", len(r.Funcs))
	}
}
