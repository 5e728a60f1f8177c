package stablehlo_test

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// A softmax over the last dim of a [2, 3] tensor, as a lowering would
// emit it: broadcasting is explicit, the reductions take named combiners,
// and -inf prints as its bit pattern.
func ExampleBuilder() {
	b := stablehlo.NewBuilder("softmax")
	fb := b.NewFunc("main", stablehlo.Tensor(dtype.F32, 2, 3))
	x := fb.Arg(0)
	mx := fb.ReduceWith(x, fb.Scalar(dtype.F32, math.Inf(-1)), []int64{1}, "maximum")
	e := fb.Exp(fb.Sub(x, fb.BroadcastInDim(mx, []int64{2, 3}, []int64{0})))
	sum := fb.ReduceWith(e, fb.Scalar(dtype.F32, 0), []int64{1}, "add")
	fb.Return(fb.Div(e, fb.BroadcastInDim(sum, []int64{2, 3}, []int64{0})))
	m, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(m)
	// Output:
	// module @softmax {
	//   func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
	//     %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
	//     %1 = "stablehlo.reduce"(%arg0, %0) ({
	//     ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
	//       %2 = "stablehlo.maximum"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
	//       "stablehlo.return"(%2) : (tensor<f32>) -> ()
	//     }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
	//     %3 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x3xf32>
	//     %4 = "stablehlo.subtract"(%arg0, %3) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
	//     %5 = "stablehlo.exponential"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
	//     %6 = "stablehlo.constant"() {value = dense<0.0e+00> : tensor<f32>} : () -> tensor<f32>
	//     %7 = "stablehlo.reduce"(%5, %6) ({
	//     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
	//       %8 = "stablehlo.add"(%arg3, %arg4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
	//       "stablehlo.return"(%8) : (tensor<f32>) -> ()
	//     }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
	//     %9 = "stablehlo.broadcast_in_dim"(%7) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x3xf32>
	//     %10 = "stablehlo.divide"(%5, %9) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
	//     "func.return"(%10) : (tensor<2x3xf32>) -> ()
	//   }
	// }
}
