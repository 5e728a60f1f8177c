package runtime

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestEagerScalarsShareExecutable: x*2 and x*3 (a Python number in a
// Tensor slot becomes a 0-d argument) compile once, and match PyTorch
// (testdata/eager/gen.py), dtypes included.
func TestEagerScalarsShareExecutable(t *testing.T) {
	ref, err := safetensors.Load("testdata/eager/eager.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	T := ref.Tensors
	check := func(name string, op string, args ...any) {
		t.Helper()
		outs, err := Eager(context.Background(), b, op, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := T[name]
		if c := Compare(outs[0], want, DefaultTolerance(want.DType)); !c.OK {
			t.Errorf("%s: %s", name, c.Detail)
		}
	}
	compiles := func() int { return EagerMetrics().Snapshot().Compiles }
	c0 := compiles()
	check("x_mul_2", "aten::mul.Tensor", T["x"], 2.0)
	c1 := compiles()
	check("x_mul_3", "aten::mul.Tensor", T["x"], 3.0)
	if c1-c0 != 1 || compiles() != c1 {
		t.Errorf("x*2 then x*3: %d then %d compiles, want 1 then 0", c1-c0, compiles()-c1)
	}
	check("xi_mul_2", "aten::mul.Tensor", T["xi"], 2)
	c2 := compiles()
	check("xi_mul_3", "aten::mul.Tensor", T["xi"], int64(3))
	if compiles() != c2 {
		t.Errorf("xi*3 compiled again after xi*2")
	}
	check("xi_mul_2.5", "aten::mul.Tensor", T["xi"], 2.5) // int tensor * float: float32
	check("xd_mul_0.1", "aten::mul.Tensor", T["xd"], 0.1) // stays float64
	check("x_add_x", "aten::add.Tensor", T["x"], T["x"])
	if _, err := Eager(context.Background(), b, "aten::no_such_op", T["x"]); err == nil {
		t.Error("unknown op: no error")
	}
}
