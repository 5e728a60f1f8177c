package native

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The harness must report a failing check as a failure, name the
// function, and pass a file whose checks hold. The expected values here
// are plain integer arithmetic.
const harnessSrc = `
func.func @good() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}

// -----

func.func @bad() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 5]> : tensor<2xi32>
  func.return
}
`

func TestHarnessReportsChecks(t *testing.T) {
	r := RunSource(context.Background(), "harness.mlir", []byte(harnessSrc), RunOptions{})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Passed() || len(r.Funcs) != 2 {
		t.Fatalf("passed=%v with %d functions, want a failure among 2", r.Passed(), len(r.Funcs))
	}
	good, bad := r.Funcs[0], r.Funcs[1]
	if good.Name != "@good" || good.Err != nil {
		t.Errorf("@good: %s %v", good.Name, good.Err)
	}
	if bad.Name != "@bad" || !errors.Is(bad.Err, ErrCheckFailed) || !strings.Contains(bad.Err.Error(), "at index [1]") {
		t.Errorf("@bad: %s %v, want a check failure at index [1]", bad.Name, bad.Err)
	}
}

func TestHarnessParseError(t *testing.T) {
	r := RunSource(context.Background(), "broken.mlir", []byte("func.func @f( {"), RunOptions{})
	if r.Err == nil || r.Passed() {
		t.Fatal("a file that does not parse passed")
	}
}
