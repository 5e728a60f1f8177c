// A jax.export-style program: @main reads the batch from its argument,
// asserts it and calls the body with it (refine, inline, pad).
module @refine_jax {
  func.func public @main(%arg0: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?xf32>) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.compare GE, %1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "batch {0} must be >= 1", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3:2 = call @body(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?xf32>)
    return %3#0, %3#1 : tensor<?x2xf32>, tensor<?xf32>
  }
  func.func private @body(%b: tensor<i64>, %x: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?xf32>) {
    %w = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %b32 = stablehlo.convert %b : (tensor<i64>) -> tensor<i32>
    %r = stablehlo.reshape %b32 : (tensor<i32>) -> tensor<1xi32>
    %two = stablehlo.constant dense<2> : tensor<1xi32>
    %s = stablehlo.concatenate %r, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %i = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi32>) -> tensor<?x2xf32>
    %z = stablehlo.add %y, %i : tensor<?x2xf32>
    %t = stablehlo.tanh %z : tensor<?x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x2xf32>, tensor<f32>) -> tensor<?xf32>
    return %t, %sum : tensor<?x2xf32>, tensor<?xf32>
  }
}
