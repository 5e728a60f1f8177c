// Quantized types: quantize, requantize, add, dot_general, a convolution
// and a per-axis type, then dequantized (the quant pass).
module @quant {
  func.func public @main(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %img: tensor<1x4x4x1xf32>, %k: tensor<2x2x1x2xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<1x3x3x2xf32>, tensor<4x3xf32>) {
    %q = stablehlo.uniform_quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8:f32, 0.05:-3>>
    %r = stablehlo.uniform_quantize %q : (tensor<2x4x!quant.uniform<i8:f32, 0.05:-3>>) -> tensor<2x4x!quant.uniform<i8:f32, 0.1:2>>
    %s = stablehlo.add %q, %r : (tensor<2x4x!quant.uniform<i8:f32, 0.05:-3>>, tensor<2x4x!quant.uniform<i8:f32, 0.1:2>>) -> tensor<2x4x!quant.uniform<i8:f32, 0.1:0>>
    %d0 = stablehlo.uniform_dequantize %s : (tensor<2x4x!quant.uniform<i8:f32, 0.1:0>>) -> tensor<2x4xf32>
    %qw = stablehlo.uniform_quantize %w : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<i8:f32, 0.02:0>>
    %dot = stablehlo.dot_general %q, %qw, contracting_dims = [1] x [0] : (tensor<2x4x!quant.uniform<i8:f32, 0.05:-3>>, tensor<4x3x!quant.uniform<i8:f32, 0.02:0>>) -> tensor<2x3x!quant.uniform<i32:f32, 0.001:0>>
    %d1 = stablehlo.uniform_dequantize %dot : (tensor<2x3x!quant.uniform<i32:f32, 0.001:0>>) -> tensor<2x3xf32>
    %qi = stablehlo.uniform_quantize %img : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x1x!quant.uniform<i8:f32, 0.03:1>>
    %qk = stablehlo.uniform_quantize %k : (tensor<2x2x1x2xf32>) -> tensor<2x2x1x2x!quant.uniform<i8:f32, 0.04:0>>
    %c = stablehlo.convolution(%qi, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.03:1>>, tensor<2x2x1x2x!quant.uniform<i8:f32, 0.04:0>>) -> tensor<1x3x3x2x!quant.uniform<i32:f32, 0.0012:0>>
    %d2 = stablehlo.uniform_dequantize %c : (tensor<1x3x3x2x!quant.uniform<i32:f32, 0.0012:0>>) -> tensor<1x3x3x2xf32>
    %pa = stablehlo.uniform_quantize %w : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<i8:f32:1, {0.1:0, 0.2:1, 0.3:-1}>>
    %d3 = stablehlo.uniform_dequantize %pa : (tensor<4x3x!quant.uniform<i8:f32:1, {0.1:0, 0.2:1, 0.3:-1}>>) -> tensor<4x3xf32>
    return %d0, %d1, %d2, %d3 : tensor<2x4xf32>, tensor<2x3xf32>, tensor<1x3x3x2xf32>, tensor<4x3xf32>
  }
}
