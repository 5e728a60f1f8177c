package stablehlo

import (
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

// Each module is malformed in one way; Verify must reject it with an error
// naming the op (or function) and the problem.
func TestVerifyRejects(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"result type", `func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}`, []string{"stablehlo.add", "2:8", "tensor<3xf32>"}},
		{"operand shapes", `func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.multiply"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}`, []string{"stablehlo.multiply", "does not broadcast"}},
		{"return type", `func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {
  func.return %a : tensor<2xf32>
}`, []string{"func.return", "tensor<2xi32>"}},
		{"missing callee", `func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @nowhere(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}`, []string{"func.call", "@nowhere"}},
		{"call types", `func.func private @f(%x: tensor<2xi32>) -> tensor<2xi32> {
  func.return %x : tensor<2xi32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {
  %0 = func.call @f(%a) : (tensor<2xf32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}`, []string{"func.call", "@f", "tensor<2xf32>"}},
		{"reduce body arity", `func.func @main(%a: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<2xf32> {
  %0 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}`, []string{"stablehlo.reduce", "1 arguments, want 2"}},
		{"sort comparator", `func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}`, []string{"stablehlo.sort", "comparator must return one tensor<i1>"}},
		{"while cond", `func.func @main(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i32>):
    "stablehlo.return"(%x) : (tensor<i32>) -> ()
  }, {
  ^bb0(%x: tensor<i32>):
    "stablehlo.return"(%x) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}`, []string{"stablehlo.while", "cond must return one tensor<i1>"}},
		{"valid reduce", `func.func @main(%a: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %z : tensor<f32>
}`, nil}, // valid: the control case
		{"missing decomposition", `func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.composite"(%a) {name = "my.op", decomposition = @nowhere} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}`, []string{"stablehlo.composite", "@nowhere", "2:8"}},
		{"enum value", `func.func @main(%a: tensor<f32>) -> tensor<i1> {
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction GTE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  func.return %0 : tensor<i1>
}`, []string{"stablehlo.compare", "GTE is not a comparison_direction"}},
		{"stablehlo.return in func", `func.func @main(%a: tensor<f32>) -> tensor<f32> {
  "stablehlo.return"(%a) : (tensor<f32>) -> ()
  func.return %a : tensor<f32>
}`, []string{"stablehlo.return", "must end a region"}},
	}
	for _, c := range cases {
		m, err := ParseModule(c.name, []byte(c.src))
		if err != nil {
			t.Errorf("%s: parse: %v", c.name, err)
			continue
		}
		err = Verify(m)
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: valid module rejected: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: Verify accepted a malformed module", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

// SSA violations cannot be written in text the parser accepts, so they are
// made by editing built IR.
func TestVerifySSA(t *testing.T) {
	build := func() (*Module, *Op, *Op) {
		b := NewBuilder("")
		fb := b.NewFunc("main", f32(2, 3), Tensor(dtype.F32))
		x := fb.Arg(0)
		r := fb.ReduceWith(x, fb.Arg(1), []int64{1}, "add")
		e := fb.Exp(r)
		fb.Return(e)
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return m, r.Def, e.Def
	}

	m, red, exp := build()
	// Use of a value defined later: swap the two ops.
	ops := m.Funcs[0].Body.Blocks[0].Ops
	for i := range ops {
		if ops[i] == red {
			ops[i], ops[i+1] = ops[i+1], ops[i]
			break
		}
	}
	if err := Verify(m); err == nil || !strings.Contains(err.Error(), "before it is defined") {
		t.Errorf("use before definition: got %v", err)
	}

	m, red, exp = build()
	// A value of the reduce body used outside it.
	inner := red.Regions[0].Blocks[0].Ops[0].Results[0]
	exp.Operands[0] = inner
	if err := Verify(m); err == nil || !strings.Contains(err.Error(), "stablehlo.exponential") {
		t.Errorf("value escaping its region: got %v", err)
	}

	m, _, exp = build()
	exp.Operands[0] = nil
	if err := Verify(m); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("nil operand: got %v", err)
	}
	if err := Verify(nil); err == nil {
		t.Errorf("nil module accepted")
	}
}
