package aten

import "testing"

// Every embedded schema must parse: they come from PyTorch itself.
func TestEmbeddedSchemasParse(t *testing.T) {
	if len(coreOps) != 193 {
		t.Errorf("core ops: %d, want 193", len(coreOps))
	}
	for name, text := range schemaTable {
		if _, err := ParseSchema(text); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseSchema(t *testing.T) {
	s, err := ParseSchema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
	if err != nil {
		t.Fatal(err)
	}
	if s.QualifiedName() != "aten::add.Tensor" || len(s.Params) != 3 || !s.Params[2].KwargOnly || s.Params[2].Default.I != 1 {
		t.Errorf("parsed %+v", s)
	}
	s, err = ParseSchema("max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)")
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Params[3]; p.Type.N != 2 || len(p.Default.List) != 2 || p.Default.List[1].I != 0 {
		t.Errorf("padding %+v", p)
	}
	if len(s.Returns) != 2 {
		t.Errorf("returns %+v", s.Returns)
	}
	s, err = ParseSchema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
	if err != nil || !s.Params[1].Type.ElemOpt || !s.Params[1].Type.List {
		t.Errorf("index: %v %+v", err, s)
	}
	s, err = ParseSchema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
	if err != nil || !s.Params[0].Mutable || s.Params[0].Alias != "a" || !s.Mutates() {
		t.Errorf("add_: %v %+v", err, s)
	}
	for _, bad := range []string{"add(Tensor self", "add Tensor", "f(Tensor) -> Tensor", "f(x[ y) -> Tensor"} {
		if _, err := ParseSchema(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCanonicalName(t *testing.T) {
	for in, want := range map[string]string{
		"torch.ops.aten.add.Tensor":   "aten::add.Tensor",
		"aten.abs.default":            "aten::abs.default",
		"aten::abs":                   "aten::abs.default",
		"<built-in function getitem>": "_operator.getitem",
		"_operator.ge":                "_operator.ge",
	} {
		if got := CanonicalName(in); got != want {
			t.Errorf("CanonicalName(%q) = %q, want %q", in, got, want)
		}
	}
}
