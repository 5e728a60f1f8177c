package aten

import (
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

const userModule = `module @jit_f {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = call @helper(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.sine %arg0 : tensor<2x3xf32>
    return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.func private @helper(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.multiply %a, %b : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}`

func TestRegisterUserInlinesTheModule(t *testing.T) {
	var seen string
	err := RegisterUser("test_user::mulsin", "test_user::mulsin(Tensor x, Tensor y, float alpha=1.0) -> (Tensor, Tensor)",
		func(op string, call []byte) (string, error) {
			seen = op + " " + string(call)
			return userModule, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	b := &stablehlo.Block{}
	x := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 2, 3)}
	c := NewLowerCtx(b)
	out, err := c.Call("test_user::mulsin", []Value{TensorValue(x), TensorValue(x), FloatValue(0.5)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `test_user::mulsin.default [{"dtype":"float32","shape":[2,3]},{"dtype":"float32","shape":[2,3]},0.5]`; seen != want {
		t.Errorf("callback saw %s, want %s", seen, want)
	}
	if len(out) != 2 || len(b.Ops) != 2 || b.Ops[0].Name != "stablehlo.multiply" || b.Ops[1].Name != "stablehlo.sine" {
		t.Fatalf("inlined %d ops: %v", len(b.Ops), b.Ops)
	}
	if out[0].T != b.Ops[0].Results[0] || b.Ops[0].Operands[0] != x {
		t.Errorf("values are not wired through")
	}
	// a wrong argument type is an error naming the op
	y := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F64, 2, 3)}
	_, err = NewLowerCtx(&stablehlo.Block{}).Call("test_user::mulsin", []Value{TensorValue(y), TensorValue(y)}, nil)
	if err == nil || !strings.Contains(err.Error(), "test_user::mulsin.default") || !strings.Contains(err.Error(), "tensor<2x3xf64>") {
		t.Errorf("err = %v", err)
	}
	if err := RegisterUser("aten::add.Tensor", "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", nil); err == nil {
		t.Errorf("replacing a built-in entry: no error")
	}
}
