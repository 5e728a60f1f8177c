package native

import (
	"context"
	"testing"
)

// async_start/async_done around a slice, and control flow whose results
// are plain arithmetic.
const controlSrc = `
func.func @async_slice() {
  %0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %1 = "stablehlo.async_start"(%0) ({
    %2 = "stablehlo.slice"(%0) {start_indices = array<i64: 1>, limit_indices = array<i64: 3>, strides = array<i64: 1>} : (tensor<4xi32>) -> tensor<2xi32>
    "stablehlo.return"(%2) : (tensor<2xi32>) -> ()
  }) : (tensor<4xi32>) -> !stablehlo.future<tensor<2xi32>>
  %3 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<2xi32>>) -> tensor<2xi32>
  check.expect_eq_const %3, dense<[2, 3]> : tensor<2xi32>
  func.return
}

// -----

func.func @case_clamps_index() {
  %i = stablehlo.constant dense<7> : tensor<i32>
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.constant dense<10> : tensor<i32>
    stablehlo.return %a : tensor<i32>
  }, {
    %b = stablehlo.constant dense<20> : tensor<i32>
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  check.expect_eq_const %r, dense<20> : tensor<i32>
  func.return
}
`

func TestControlFlow(t *testing.T) {
	r := RunSource(context.Background(), "control.mlir", []byte(controlSrc), RunOptions{})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Funcs) != 2 {
		t.Fatalf("ran %d functions, want 2", len(r.Funcs))
	}
	for _, f := range r.Funcs {
		if f.Err != nil {
			t.Errorf("%s: %v", f.Name, f.Err)
		}
	}
}
