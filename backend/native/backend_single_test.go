package native

import (
	"context"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// A one-process run executes on the caller's goroutine; a kernel that
// panics there still ends the run with an error rather than a crash.
func TestSingleProcessPanicIsAnError(t *testing.T) {
	src := `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.reverse %a, dims = [0] : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}`
	m, err := stablehlo.ParseModule("panic.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	old := kernels["stablehlo.reverse"]
	defer func() { kernels["stablehlo.reverse"] = old }()
	kernels["stablehlo.reverse"] = func(Env, *stablehlo.Op, []Value) ([]Value, error) { panic("boom") }
	exe, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := literal.New(dtype.F32, []int64{4})
	_, err = exe.Run(context.Background(), []*literal.Literal{x})
	if err == nil || !strings.Contains(err.Error(), "panicked: boom") {
		t.Fatalf("run = %v, want a panic error", err)
	}
}
