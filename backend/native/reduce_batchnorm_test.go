package native

import (
	"context"
	"testing"
)

// TestBatchNorm runs the three batch norm ops on data whose statistics
// are exact (means, variances and square roots of small integers), so the
// expected values follow from the spec's formulas by hand.
func TestBatchNorm(t *testing.T) {
	src := `
func.func @training() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf32>
  %scale = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %offset = stablehlo.constant dense<[0.0, 10.0]> : tensor<2xf32>
  %out, %mean, %var = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %out, dense<[[-1.0, 8.0], [1.0, 12.0]]> : tensor<2x2xf32>
  check.expect_eq_const %mean, dense<[2.0, 4.0]> : tensor<2xf32>
  check.expect_eq_const %var, dense<[1.0, 4.0]> : tensor<2xf32>
  func.return
}

func.func @inference() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[0.0, 10.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf64>
  %var = stablehlo.constant dense<[0.75, 3.75]> : tensor<2xf64>
  %out = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 0.25 : f32, feature_index = 1 : i64} : (tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  check.expect_eq_const %out, dense<[[-1.0, 8.0], [1.0, 12.0]]> : tensor<2x2xf64>
  func.return
}

func.func @grad() {
  %x = stablehlo.constant dense<[[0.0], [0.0], [4.0], [4.0]]> : tensor<4x1xf32>
  %scale = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %mean = stablehlo.constant dense<[2.0]> : tensor<1xf32>
  %var = stablehlo.constant dense<[4.0]> : tensor<1xf32>
  %gy = stablehlo.constant dense<[[1.0], [0.0], [0.0], [0.0]]> : tensor<4x1xf32>
  %gx, %gs, %gb = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %gy) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<4x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<1xf32>, tensor<1xf32>)
  check.expect_eq_const %gx, dense<[[0.25], [-0.25], [0.0], [0.0]]> : tensor<4x1xf32>
  check.expect_eq_const %gs, dense<[-1.0]> : tensor<1xf32>
  check.expect_eq_const %gb, dense<[1.0]> : tensor<1xf32>
  func.return
}
`
	r := RunSource(context.Background(), "batchnorm_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 3 {
		t.Fatalf("ran %d functions, want 3", len(r.Funcs))
	}
}
