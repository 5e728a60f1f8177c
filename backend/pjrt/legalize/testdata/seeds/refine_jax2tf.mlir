// A jax2tf-style program: argument 0 is the batch, the dynamic ops take
// shapes computed from it (refine folds them; the shape argument is
// specialised by value).
module @refine_jax2tf {
  func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x5xf32>) {
    %0 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    %c3 = stablehlo.constant dense<3> : tensor<1xi32>
    %2 = stablehlo.concatenate %1, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %3 = stablehlo.dynamic_broadcast_in_dim %one, %2, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
    %4 = stablehlo.multiply %arg1, %3 : tensor<?x3xf32>
    %z = stablehlo.constant dense<0> : tensor<2xi32>
    %c2 = stablehlo.constant dense<2> : tensor<1xi32>
    %lim = stablehlo.concatenate %1, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %st = stablehlo.constant dense<1> : tensor<2xi32>
    %5 = stablehlo.real_dynamic_slice %4, %z, %lim, %st : (tensor<?x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>
    %lo = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
    %hi = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
    %in = stablehlo.constant dense<0> : tensor<2xi32>
    %pv = stablehlo.constant dense<0.5> : tensor<f32>
    %6 = stablehlo.dynamic_pad %4, %pv, %lo, %hi, %in : (tensor<?x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x5xf32>
    return %4, %5, %6 : tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x5xf32>
  }
}
