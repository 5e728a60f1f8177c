// Ops XLA:CPU computes against the spec: max/min with NaN and of complex
// numbers, i1 arithmetic, an i1 bitcast, a gather with its offset dims
// first, erf at large |x|.
module @fixes {
  func.func public @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<2xcomplex<f32>>, %d: tensor<2xcomplex<f32>>, %p: tensor<8xi1>, %q: tensor<8xi1>, %t: tensor<4x4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xcomplex<f32>>, tensor<8xi1>, tensor<8xi1>, tensor<ui8>, tensor<8xi1>, tensor<4x4x2xf32>, tensor<4xf32>) {
    %0 = stablehlo.maximum %x, %y : tensor<4xf32>
    %1 = stablehlo.minimum %x, %y : tensor<4xf32>
    %2 = stablehlo.maximum %c, %d : tensor<2xcomplex<f32>>
    %3 = stablehlo.add %p, %q : tensor<8xi1>
    %4 = stablehlo.multiply %p, %q : tensor<8xi1>
    %5 = stablehlo.bitcast_convert %p : (tensor<8xi1>) -> tensor<ui8>
    %6 = stablehlo.bitcast_convert %5 : (tensor<ui8>) -> tensor<8xi1>
    %i = stablehlo.constant dense<[[1], [3]]> : tensor<2x1xi64>
    %7 = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [2], start_index_map = [2], index_vector_dim = 1>, slice_sizes = array<i64: 4, 4, 1>} : (tensor<4x4x4xf32>, tensor<2x1xi64>) -> tensor<4x4x2xf32>
    %big = stablehlo.constant dense<1.0e+30> : tensor<4xf32>
    %m = stablehlo.multiply %x, %big : tensor<4xf32>
    %8 = chlo.erf %m : tensor<4xf32> -> tensor<4xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<2xcomplex<f32>>, tensor<8xi1>, tensor<8xi1>, tensor<ui8>, tensor<8xi1>, tensor<4x4x2xf32>, tensor<4xf32>
  }
}
