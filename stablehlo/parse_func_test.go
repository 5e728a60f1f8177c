package stablehlo

import "testing"

// TestFuncsAndValues checks function signatures, attributes and the
// naming and resolution of values.
func TestFuncsAndValues(t *testing.T) {
	src := `module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<i32>) -> (tensor<2xf32> {jax.result_info = "r"}, tensor<2xf32>) attributes {foo = unit} {
    %r:2 = "x.pair"(%arg0) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %s = stablehlo.add %r#1, %r : tensor<2xf32>
    %t = stablehlo.add %s#0, %s : tensor<2xf32>
    return %t, %r#0 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @decl(tensor<f32>, tensor<i1>) -> tensor<f32>
}`
	m, err := ParseModule("f.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "jit_f" || len(m.Attrs) != 1 || len(m.Funcs) != 2 {
		t.Fatalf("module %q attrs %d funcs %d", m.Name, len(m.Attrs), len(m.Funcs))
	}
	f := m.Func("main")
	if f.Visibility != "public" || len(f.Type.Inputs) != 2 || len(f.Type.Results) != 2 {
		t.Errorf("signature %s %v", f.Visibility, f.Type)
	}
	if f.ArgAttrs[0].Get("mhlo.sharding") != StringAttr("{replicated}") || f.ArgAttrs[1] != nil {
		t.Errorf("arg attrs %v", f.ArgAttrs)
	}
	if f.ResultAttrs[0].Get("jax.result_info") != StringAttr("r") || len(f.Attrs) != 1 {
		t.Errorf("result attrs %v, attrs %v", f.ResultAttrs, f.Attrs)
	}
	entry := f.Body.Entry()
	if len(entry.Args) != 2 || entry.Args[0].Name != "arg0" || entry.Args[1].Index != 1 {
		t.Errorf("entry args %v", entry.Args)
	}
	ops := entry.Ops
	pair, add := ops[0], ops[1]
	if pair.Results[0].Name != "r#0" || pair.Results[1].Name != "r#1" {
		t.Errorf("group names %q %q", pair.Results[0].Name, pair.Results[1].Name)
	}
	if add.Operands[0] != pair.Results[1] || add.Operands[1] != pair.Results[0] {
		t.Errorf("%%r#1 and %%r resolve wrongly")
	}
	if ops[2].Operands[0] != add.Results[0] || ops[2].Operands[1] != add.Results[0] {
		t.Errorf("%%s#0 and %%s resolve wrongly")
	}
	ret := ops[3]
	if ret.Name != "func.return" || ret.Operands[1] != pair.Results[0] || ret.Loc.Line != 6 {
		t.Errorf("return %s %v", ret.Name, ret.Loc)
	}
	d := m.Func("decl")
	if d.Body != nil || d.Visibility != "private" || len(d.Type.Inputs) != 2 {
		t.Errorf("declaration %v", d)
	}
}

// TestLenientForms checks forms met in real files that are not StableHLO
// proper: unnamed results, generic ops at module level, other builtin
// types, arith.constant, trailing commas in dimension attributes.
func TestLenientForms(t *testing.T) {
	src := `module {
  "sdy.mesh"() {sym_name = "mesh", axes = [{name = "x", size = 2 : i64}]} : () -> ()
  func.func @main(%m: memref<2xf32>) {
    "interpreter.run_parallel"() {programs = [[@f]]} : () -> (tensor<i64>, tensor<i64>)
    %c = arith.constant 0 : index
    %d = arith.constant dense<1> : tensor<i32>
    %g = "stablehlo.gather"(%d, %d) {dimension_numbers = #stablehlo.gather<
      offset_dims = [0],
      index_vector_dim = 1,
    >, slice_sizes = array<i64: 1>} : (tensor<i32>, tensor<i32>) -> tensor<i32>
    func.return
  }
}`
	m, err := ParseModule("l.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if _, ok := f.Type.Inputs[0].(*OpaqueType); !ok || len(m.Funcs) != 1 {
		t.Errorf("memref argument %v, %d funcs", f.Type.Inputs[0], len(m.Funcs))
	}
	ops := f.Body.Entry().Ops
	if len(ops[0].Results) != 2 || ops[0].Results[1].Def != ops[0] {
		t.Errorf("unnamed results: %d", len(ops[0].Results))
	}
	if c, ok := ops[1].Attr("value").(*IntAttr); !ok || c.Type.String() != "index" || ops[1].Results[0].Type.String() != "index" {
		t.Errorf("scalar arith.constant %#v", ops[1].Attr("value"))
	}
	if g, ok := ops[3].Attr("dimension_numbers").(*GatherDims); !ok || g.IndexVectorDim != 1 {
		t.Errorf("gather dims with trailing comma %#v", ops[3].Attr("dimension_numbers"))
	}
}
