package fx

import (
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/sym"
)

func TestNormalizeTarget(t *testing.T) {
	for in, want := range map[string]string{
		"torch.ops.aten.add.Tensor":   "aten::add.Tensor",
		"torch.ops.aten.view.default": "aten::view.default",
		"torch.ops.higher_order.cond": "higher_order::cond",
		"#my_ns:my_op":                "my_ns::my_op",
		"_operator.mul":               "_operator.mul",
		"torch.sym_max":               "torch.sym_max",
		"torch.ops.":                  "torch.ops.",
	} {
		if got := NormalizeTarget(in); got != want {
			t.Errorf("NormalizeTarget(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLookups(t *testing.T) {
	s77, _ := sym.Parse("Symbol('s77', positive=True, integer=True)")
	g := &Graph{
		Inputs: []Arg{TensorRef("x")},
		Nodes: []*Node{{Name: "add", Target: "aten::add.Tensor",
			Inputs:  []NamedArg{{Name: "self", Arg: TensorRef("x")}, {Name: "other", Arg: Arg{Kind: ArgInt, Int: 1}}},
			Outputs: []Arg{TensorRef("add")}}},
		Outputs: []Arg{TensorRef("add")},
		Tensors: map[string]*TensorMeta{
			"x":   {DType: dtype.F32, Shape: []Dim{{Expr: s77}, StaticDim(3)}},
			"add": {DType: dtype.F32, Shape: []Dim{{Expr: s77}, StaticDim(3)}},
		},
	}
	if v, ok := g.Value("add"); !ok || v.Kind != ValueTensor || v.Producer != g.Nodes[0] {
		t.Errorf("Value(add) = %+v, %v", v, ok)
	}
	if v, ok := g.Value("x"); !ok || v.Producer != nil {
		t.Errorf("Value(x) = %+v, %v", v, ok)
	}
	if _, ok := g.Value("nope"); ok {
		t.Error("Value(nope) found")
	}
	if u := g.Users("x"); len(u) != 1 {
		t.Errorf("Users(x) = %v", u)
	}
	if got := g.Tensor("x").String(); got != "f32[s77,3]" {
		t.Errorf("meta string %q", got)
	}
	shape, err := g.Tensor("x").EvalShape(map[string]int64{"s77": 8})
	if err != nil || shape[0] != 8 || shape[1] != 3 {
		t.Errorf("EvalShape = %v, %v", shape, err)
	}
	if got := g.Symbols(); len(got) != 1 || got[0] != "s77" {
		t.Errorf("Symbols = %v", got)
	}
	if got := g.Nodes[0].String(); got != "add = aten::add.Tensor(self=%x, other=1)" {
		t.Errorf("node string %q", got)
	}
}

func TestArgString(t *testing.T) {
	cases := map[string]Arg{
		"[[1 2] [3]]":         {Kind: ArgIntLists, IntLists: [][]int64{{1, 2}, {3}}},
		"[[%a, %b], [%c]]":    {Kind: ArgNestedTensors, NestedNames: [][]string{{"a", "b"}, {"c"}}},
		"[%s0, 2.5]":          {Kind: ArgSymFloats, SymFloats: []SymFloat{{Name: "s0"}, {Const: 2.5}}},
		"true":                {Kind: ArgSymBool, SymBools: []SymBool{{Const: true}}},
		"torch.channels_last": {Kind: ArgMemoryFormat, MemoryFormat: ChannelsLast},
		"torch.strided":       {Kind: ArgLayout, Layout: Strided},
		"[None, %x]":          {Kind: ArgOptionalTensors, Names: []string{"", "x"}},
		"torch.bfloat16":      {Kind: ArgScalarType, DType: dtype.BF16},
		`{"k": 3}`:            {Kind: ArgStringToArg, Map: map[string]*Arg{"k": {Kind: ArgInt, Int: 3}}},
	}
	for want, a := range cases {
		if got := a.String(); got != want {
			t.Errorf("%v: got %q, want %q", a.Kind, got, want)
		}
	}
}

func TestSourceLine(t *testing.T) {
	n := &Node{Meta: map[string]string{"stack_trace": "  File \"/home/u/m.py\", line 12, in forward\n    x = self.fc(x)\n  File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", line 134, in forward\n    return F.linear(input, self.weight, self.bias)\n  File \"<eval_with_key>.5\", line 10, in forward\n    cond = f()"}}
	if got, want := n.SourceLine(), `File "/home/u/m.py", line 12, in forward x = self.fc(x)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	n.Meta["stack_trace"] = "  File \"<eval_with_key>.5\", line 10, in forward\n    cond = f()"
	if got := n.SourceLine(); got != `File "<eval_with_key>.5", line 10, in forward cond = f()` {
		t.Errorf("fallback: %q", got)
	}
	if (&Node{}).SourceLine() != "" {
		t.Error("empty trace")
	}
}

// The schema tags parse back to the kinds that print them.
func TestKindTags(t *testing.T) {
	for k := InputUser; k <= InputConstant; k++ {
		if got, ok := ParseInputKind(k.String()); !ok || got != k {
			t.Errorf("ParseInputKind(%q) = %v, %v", k.String(), got, ok)
		}
	}
	for k := OutputUser; k <= OutputParameterMutation; k++ {
		if got, ok := ParseOutputKind(k.String()); !ok || got != k {
			t.Errorf("ParseOutputKind(%q) = %v, %v", k.String(), got, ok)
		}
	}
	if _, ok := ParseInputKind("no_such_kind"); ok {
		t.Error("an unknown input tag parsed")
	}
}
