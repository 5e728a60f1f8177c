// Element types XLA:CPU cannot transfer (i4, ui2) or compile (f6E2M3FN,
// f8E3M4): the types pass carries them.
module @types {
  func.func public @main(%a: tensor<4xi4>, %b: tensor<4xi4>, %u: tensor<2xui2>) -> (tensor<4xi4>, tensor<2xui2>, tensor<3xf6E2M3FN>, tensor<f8E3M4>) {
    %0 = stablehlo.add %a, %b : tensor<4xi4>
    %1 = stablehlo.xor %u, %u : tensor<2xui2>
    %2 = stablehlo.constant dense<[1.0, -3.25, 7.5]> : tensor<3xf6E2M3FN>
    %x = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf8E3M4>
    %3 = stablehlo.dot_general %x, %x, contracting_dims = [0] x [0] : (tensor<4xf8E3M4>, tensor<4xf8E3M4>) -> tensor<f8E3M4>
    return %0, %1, %2, %3 : tensor<4xi4>, tensor<2xui2>, tensor<3xf6E2M3FN>, tensor<f8E3M4>
  }
}
