package fx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/pt2"
)

func load(t *testing.T, name string) *fx.Graph {
	t.Helper()
	p, err := pt2.Load("testdata/" + name + ".pt2")
	if err != nil {
		t.Fatal(err)
	}
	return p.Graph
}

// canonical prints g with node outputs renamed v0, v1, ... in node order,
// so that two graphs computing the same thing print the same.
func canonical(g *fx.Graph) string {
	rename := map[string]string{}
	for i, n := range g.Nodes {
		for j, v := range n.OutputNames() {
			rename[v] = fmt.Sprintf("v%d_%d", i, j)
		}
	}
	s := g.Format()
	// Replace longest names first so that "add_1" is not hit by "add".
	names := make([]string, 0, len(rename))
	for v := range rename {
		names = append(names, v)
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if len(names[j]) > len(names[i]) {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	pairs := []string{}
	for _, v := range names {
		pairs = append(pairs, "%"+v, "%"+rename[v], v+" = ", rename[v]+" = ")
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// TestFunctionalizeMatchesPyTorch functionalizes the training-IR program
// and compares it with what PyTorch's run_decompositions() made of the
// same module (testdata/gen_passes.py).
func TestFunctionalizeMatchesPyTorch(t *testing.T) {
	g := load(t, "inplace")
	want := load(t, "inplace_core")
	if err := fx.RunPasses(g, fx.PassOptions{Verify: true}); err != nil {
		t.Fatal(err)
	}
	if got, w := canonical(g), canonical(want); got != w {
		t.Errorf("functionalized:\n%s\nPyTorch:\n%s", got, w)
	}
}

func TestCSEAndDCE(t *testing.T) {
	g := load(t, "cse")
	var dump strings.Builder
	if err := fx.RunPasses(g, fx.PassOptions{Verify: true, Dump: &dump, DumpAfter: map[string]bool{"dce": true}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.String())
	}
	want := []string{
		"sin = aten::sin.default(self=%x)",
		"add = aten::add.Tensor(self=%sin, other=%sin)",
		"neg = aten::neg.default(self=%add)",
		"mul_1 = aten::mul.Tensor(self=%neg, other=%neg)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(dump.String(), "// after dce") {
		t.Errorf("no dump: %q", dump.String())
	}
}

func TestPassesKeepEffects(t *testing.T) {
	// A graph whose dropout and assertion results are unused: DCE keeps
	// them; two identical dropouts are not merged.
	g := &fx.Graph{
		Inputs:    []fx.Arg{fx.TensorRef("x")},
		Signature: &fx.Signature{Inputs: []fx.InputSpec{{Kind: fx.InputUser, Arg: fx.TensorRef("x")}}, Outputs: []fx.OutputSpec{{Kind: fx.OutputUser, Arg: fx.TensorRef("d1")}}},
		Outputs:   []fx.Arg{fx.TensorRef("d1")},
	}
	for _, name := range []string{"d1", "d2", "d3"} {
		g.Nodes = append(g.Nodes, &fx.Node{Name: name, Target: "aten::dropout.default",
			Inputs:  []fx.NamedArg{{Name: "input", Arg: fx.TensorRef("x")}, {Name: "p", Arg: fx.Arg{Kind: fx.ArgFloat, Float: 0.5}}},
			Outputs: []fx.Arg{fx.TensorRef(name)}})
	}
	g.Nodes = append(g.Nodes, &fx.Node{Name: "assert", Target: "aten::_assert_tensor_metadata.default",
		Inputs: []fx.NamedArg{{Name: "a", Arg: fx.TensorRef("x")}}})
	if err := fx.RunPasses(g, fx.PassOptions{Verify: true}); err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 4 {
		t.Errorf("effects removed or merged:\n%s", g.Format())
	}
}

func TestFunctionalizeRejectsViews(t *testing.T) {
	g := &fx.Graph{Inputs: []fx.Arg{fx.TensorRef("x")}}
	g.Nodes = []*fx.Node{
		{Name: "v", Target: "aten::select.int", Inputs: []fx.NamedArg{{Name: "self", Arg: fx.TensorRef("x")}}, Outputs: []fx.Arg{fx.TensorRef("v")}},
		{Name: "a", Target: "aten::add_.Tensor", Inputs: []fx.NamedArg{{Name: "self", Arg: fx.TensorRef("v")}, {Name: "other", Arg: fx.Arg{Kind: fx.ArgInt, Int: 1}}}, Outputs: []fx.Arg{fx.TensorRef("a")}},
	}
	if _, err := fx.Functionalize(g, fx.NameOpInfo{}); err == nil || !strings.Contains(err.Error(), "view") {
		t.Errorf("error %v", err)
	}
}

func TestPassOrder(t *testing.T) {
	if err := fx.CheckPassOrder(fx.Passes); err != nil {
		t.Fatal(err)
	}
	bad := []fx.Pass{{Name: "b", After: []string{"a"}}, {Name: "a"}}
	if err := fx.CheckPassOrder(bad); err == nil {
		t.Error("wrong order accepted")
	}
	if err := fx.RunPasses(&fx.Graph{}, fx.PassOptions{Disable: map[string]bool{"nope": true}}); err == nil {
		t.Error("unknown pass accepted")
	}
}

func TestCloneIsolatesPasses(t *testing.T) {
	g := load(t, "inplace")
	before := g.Format()
	c := g.Clone()
	if c.Format() != before {
		t.Fatalf("clone differs:\n%s\n%s", c.Format(), before)
	}
	if err := fx.RunPasses(c, fx.PassOptions{Verify: true}); err != nil {
		t.Fatal(err)
	}
	if g.Format() != before {
		t.Errorf("passes on the clone changed the original:\n%s", g.Format())
	}
	if c.Format() == before {
		t.Error("passes changed nothing")
	}
}
