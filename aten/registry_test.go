package aten

import (
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func mustSchema(t *testing.T, name string) *Schema {
	t.Helper()
	s, ok := SchemaFor(name)
	if !ok {
		t.Fatalf("no schema for %s", name)
	}
	return s
}

func TestBindFillsDefaultsAndRejectsBadCalls(t *testing.T) {
	s := mustSchema(t, "aten::add.Tensor")
	x := TensorValue(&stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 2)})
	a, err := Bind(s, []Value{x, FloatValue(2.5)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if al := a.Scalar("alpha"); al.Kind != KInt || al.I != 1 {
		t.Errorf("alpha default = %+v, want int 1", al)
	}
	if o := a.Operand("other"); o.Scalar == nil || o.Scalar.F != 2.5 || !o.Promotion().Wrapped {
		t.Errorf("other = %+v, want the wrapped number 2.5", o)
	}
	if a.Err() != nil {
		t.Errorf("unexpected accessor error %v", a.Err())
	}
	for _, bad := range []struct {
		pos []Value
		kw  map[string]Value
		msg string
	}{
		{[]Value{x}, nil, "missing argument \"other\""},
		{[]Value{x, x}, map[string]Value{"beta": IntValue(1)}, "unknown argument \"beta\""},
		{[]Value{x, x}, map[string]Value{"other": x}, "given twice"},
		{[]Value{x, x, IntValue(1), IntValue(2)}, nil, "positional arguments"},
	} {
		if _, err := Bind(s, bad.pos, bad.kw); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("Bind(%v, %v) = %v, want an error with %q", bad.pos, bad.kw, err, bad.msg)
		}
	}
}

func TestAccessorsRecordTheFirstError(t *testing.T) {
	s := mustSchema(t, "aten::sum.dim_IntList")
	a, err := Bind(s, []Value{FloatValue(1), StrValue("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tensor("self") != nil {
		t.Error("a float read as a tensor without a lowering context")
	}
	_ = a.Ints("dim")
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "self") {
		t.Errorf("Err() = %v, want the error about self", err)
	}
	if _, ok := a.OptDType("dtype"); ok {
		t.Error("dtype default None read as present")
	}
	// A single int for an int[1] parameter repeats to its size.
	a, _ = Bind(s, []Value{FloatValue(1), IntValue(-1)}, nil)
	if d := a.Ints("dim"); len(d) != 1 || d[0] != -1 {
		t.Errorf("dim = %v, want [-1]", d)
	}
}

func TestLookupDerivesInPlaceAndOutVariants(t *testing.T) {
	e, ok := Lookup("torch.ops.aten.add_.Tensor")
	if !ok {
		t.Fatal("add_.Tensor not derived")
	}
	if e.Base == nil || e.Base.Name != "aten::add.Tensor" || !e.ParsedSchema().Params[0].Mutable {
		t.Errorf("add_: base %v, schema %s", e.Base, e.ParsedSchema().Text)
	}
	e, ok = Lookup("aten::atan2.out")
	if !ok || e.Base == nil || e.Base.Name != "aten::atan2.default" {
		t.Fatalf("atan2.out: %v %+v", ok, e)
	}
	if _, ok := Lookup("aten::no_such_op_.default"); ok {
		t.Error("an unknown in-place op was derived")
	}
}

// Every registered entry has a parsed schema, a kind and a function of
// that kind.
func TestRegistryEntriesAreComplete(t *testing.T) {
	for _, e := range Entries() {
		if e.ParsedSchema() == nil || e.Kind == 0 {
			t.Errorf("%s: schema %v kind %v", e.Name, e.ParsedSchema(), e.Kind)
		}
		if e.Kind == HostFallback && e.Host == nil || e.Kind != HostFallback && e.Lower == nil {
			t.Errorf("%s: kind %v without its function", e.Name, e.Kind)
		}
	}
}

// Lowering through an entry: the emitted ops follow PyTorch's promotion
// (int32 tensor + Python float → float32) and errors name the problem.
func TestLowerPromotesAndReportsErrors(t *testing.T) {
	b := &stablehlo.Block{}
	x := &stablehlo.Value{Type: stablehlo.Tensor(dtype.I32, 3)}
	b.Args = append(b.Args, x)
	c := NewLowerCtx(b)
	out, err := c.Call("aten::add.Tensor", []Value{TensorValue(x), FloatValue(2.5)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.DType(out[0].T); got != dtype.F32 {
		t.Errorf("int32 + 2.5 lowered to %v, want f32", got)
	}
	y := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 4)}
	if _, err := c.Call("aten::mul.Tensor", []Value{TensorValue(x), TensorValue(y)}, nil); err == nil || !strings.Contains(err.Error(), "must match") {
		t.Errorf("[3] * [4] gave %v, want a broadcast error", err)
	}
	f := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 3)}
	if _, err := c.Call("aten::bitwise_and.Tensor", []Value{TensorValue(f), TensorValue(f)}, nil); err == nil {
		t.Error("bitwise_and on floats lowered")
	}
	if _, err := c.Call("aten::mean.default", []Value{TensorValue(x)}, nil); err == nil || !strings.Contains(err.Error(), "mean") {
		t.Errorf("mean(int32) gave %v, want PyTorch's dtype error", err)
	}
}

// With NoF64 (TPU) no lowering of float32 work emits a float64 value.
func TestNoF64KeepsFloat32(t *testing.T) {
	b := &stablehlo.Block{}
	x := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 2, 3)}
	b.Args = append(b.Args, x)
	c := NewLowerCtx(b)
	c.NoF64 = true
	for _, op := range []string{"aten::sum.default", "aten::asinh.default", "aten::log2.default", "aten::var.default", "aten::cumsum.default"} {
		pos := []Value{TensorValue(x)}
		if op == "aten::cumsum.default" {
			pos = append(pos, IntValue(1))
		}
		if _, err := c.Call(op, pos, nil); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	for _, op := range b.Ops {
		for _, r := range op.Results {
			if tt, ok := r.Type.(*stablehlo.TensorType); ok && tt.DType() == dtype.F64 {
				t.Errorf("%s produces %v", op.Name, tt)
			}
		}
	}
}

// resize_ reshapes, truncates or pads self to the requested size.
func TestResizeShapes(t *testing.T) {
	for _, size := range [][]int64{{3, 2}, {4}, {2, 5}} {
		b := &stablehlo.Block{}
		x := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 2, 3)}
		b.Args = append(b.Args, x)
		c := NewLowerCtx(b)
		out, err := c.Call("aten::resize_.default", []Value{TensorValue(x), IntsValue(size)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Shape(out[0].T); !sameShape(got, size) {
			t.Errorf("resize_ to %v gave %v", size, got)
		}
	}
}

// Meta infers result dtypes and shapes with PyTorch's rules, no backend.
func TestMetaInference(t *testing.T) {
	out, err := Meta("aten::sum.dim_IntList", []Value{MetaTensor(dtype.I32, 2, 3, 4), IntsValue([]int64{1})}, map[string]Value{"keepdim": BoolValue(true)})
	if err != nil {
		t.Fatal(err)
	}
	if tt := out[0].TensorType(); tt.DType() != dtype.I64 || !sameShape(tt.Shape, []int64{2, 1, 4}) {
		t.Errorf("sum(int32, dim=1, keepdim) = %v, want i64[2,1,4]", tt)
	}
	out, err = Meta("torch.ops.aten.sym_size.int", []Value{MetaTensor(dtype.F32, 5, 7), IntValue(-1)}, nil)
	if err != nil || out[0].Kind != KInt || out[0].I != 7 {
		t.Errorf("sym_size = %v, %v", out, err)
	}
	if _, err := Meta("aten::add.Tensor", []Value{MetaTensor(dtype.F32, 3), MetaTensor(dtype.F32, 4)}, nil); err == nil {
		t.Error("[3] + [4] inferred")
	}
}
