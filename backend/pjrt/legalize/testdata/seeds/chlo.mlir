// Ops XLA's plugins refuse: chlo.mulhi, chlo.scan, chlo.ragged_dot, the
// sign of an unsigned integer, the cube root of a complex number.
module @chlo {
  func.func public @main(%a: tensor<4xi64>, %b: tensor<4xi64>, %u: tensor<3xui8>, %z: tensor<2xcomplex<f32>>) -> (tensor<4xi64>, tensor<4xi8>, tensor<4xi64>, tensor<i64>, tensor<3xui8>, tensor<2xcomplex<f32>>, tensor<5x2xf32>) {
    %0 = chlo.mulhi %a, %b : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
    %a8 = stablehlo.convert %a : (tensor<4xi64>) -> tensor<4xi8>
    %1 = chlo.mulhi %a8, %a8 : tensor<4xi8>, tensor<4xi8> -> tensor<4xi8>
    %init = stablehlo.constant dense<0> : tensor<i64>
    %2:2 = chlo.scan(%a) inits(%init) dimension=0 {
    ^bb0(%x: tensor<i64>, %acc: tensor<i64>):
      %s = stablehlo.add %x, %acc : tensor<i64>
      stablehlo.return %s, %s : tensor<i64>, tensor<i64>
    } : (tensor<4xi64>, tensor<i64>) -> (tensor<4xi64>, tensor<i64>)
    %3 = stablehlo.sign %u : tensor<3xui8>
    %4 = stablehlo.cbrt %z : tensor<2xcomplex<f32>>
    %lhs = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0]]> : tensor<5x2xf32>
    %rhs = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]> : tensor<2x2x2xf32>
    %gs = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %5 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<5x2xf32>, tensor<2x2x2xf32>, tensor<2xi64>) -> tensor<5x2xf32>
    return %0, %1, %2#0, %2#1, %3, %4, %5 : tensor<4xi64>, tensor<4xi8>, tensor<4xi64>, tensor<i64>, tensor<3xui8>, tensor<2xcomplex<f32>>, tensor<5x2xf32>
  }
}
