package stablehlo

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseErrors checks that malformed input gives a SyntaxError at the
// right place with a useful message.
func TestParseErrors(t *testing.T) {
	const head = "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) {\n"
	cases := []struct {
		src  string
		pos  string // "line:col"
		want string
	}{
		{head + "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n", "3:1", "unterminated region"},
		{head + "  %0 = stablehlo.add %a, %b : tensor<2xfoo>\n}", "2:40", `unknown type "foo"`},
		{head + "  %0 = foo.bar %a : tensor<2xf32>\n}", "2:8", "unknown operation"},
		{head + "  %0 = stablehlo.add %a, %b : (tensor<2xf32>) -> tensor<2xf32>\n}", "2:31", "2 operands but its type lists 1"},
		{head + "  %0, %1 = stablehlo.add %a, %b : tensor<2xf32>\n}", "2:35", "cannot tell 2 result types"},
		{head + "  %0, %1 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n}", "2:3", "1 result types but 2 result names"},
		{head + "  %0 = stablehlo.add %a, %c : tensor<2xf32>\n}", "2:26", "undefined value %c"},
		{head + "  %a = stablehlo.add %a, %b : tensor<2xf32>\n}", "2:3", "redefinition of value %a"},
		{head + "  %0 = stablehlo.constant dense<1.0> : tensor<100000000000x100000000000xf32>\n}", "2:40", "more than"},
		{head + "  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xf32>\n}", "2:27", "does not match"},
		{head + "  %0 = stablehlo.broadcast_in_dim %a, dimz = [0] : (tensor<2xf32>) -> tensor<2xf32>\n}", "2:39", `unexpected "dimz"`},
		{head + "  %0 = stablehlo.compare LT, %a, %b, FLOAT, BOGUS : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n}", "2:45", `unexpected "BOGUS"`},
		{"func.func @main() {\n  %0 = \"stablehlo.add\"(%x) : (tensor<f32>) -> tensor<f32>\n}", "2:24", "undefined value"},
		{"module {\n  func.func @f() {\n    func.return\n  }\n", "5:1", "unterminated module"},
		{"func.func @main() {\n  %0 = stablehlo.constant dense<\"0x0000", "2:33", "unterminated string"},
		{"func.func @main() -> tensor<2x", "1:22", "unterminated tensor type"},
		{"garbage", "1:1", "expected 'module' or 'func.func'"},
		{"func.func @main() {\n  %0:0 = stablehlo.add : tensor<f32>\n}", "2:6", "bad result count"},
		{"func.func @main() {\n  %0:99999999999 = \"x.y\"() : () -> ()\n}", "2:6", "bad result count"},
	}
	for _, c := range cases {
		_, err := Parse("t.mlir", []byte(c.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: got %v, want a SyntaxError", c.src, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "t.mlir:"+c.pos+": ") || !strings.Contains(msg, c.want) {
			t.Errorf("%q:\n got  %s\n want t.mlir:%s: ...%s...", c.src, msg, c.pos, c.want)
		}
	}
}

// TestGenericUnknownOp checks that unregistered ops are accepted in the
// generic form, with their attributes, regions and locations.
func TestGenericUnknownOp(t *testing.T) {
	src := `#alias = #foo.bar<x = 1>
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = "mydialect.op"(%a) ({
  ^bb0(%x: tensor<f32>):
    "mydialect.yield"(%x) : (tensor<f32>) -> ()
  }) {attr = #alias, other = #mhlo.sharding<"{replicated}">} : (tensor<f32>) -> tensor<f32> loc(#loc1)
  return %0 : tensor<f32>
}
#loc1 = loc("x.py":1:2)
`
	m, err := ParseModule("u.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ops := m.Funcs[0].Body.Entry().Ops
	if ops[0].Name != "mydialect.op" || len(ops[0].Regions) != 1 || ops[0].Loc.Line != 3 || ops[0].Loc.Col != 8 {
		t.Errorf("op %s regions %d loc %v", ops[0].Name, len(ops[0].Regions), ops[0].Loc)
	}
	s, ok := ops[0].Attr("attr").(*StructAttr)
	if !ok || s.Name != "foo.bar" || len(s.Fields) != 1 {
		t.Errorf("alias attr %#v", ops[0].Attr("attr"))
	}
	if _, ok := ops[0].Attr("other").(*OpaqueAttr); !ok {
		t.Errorf("other attr %#v", ops[0].Attr("other"))
	}
	if ops[1].Name != "func.return" || ops[1].Operands[0] != ops[0].Results[0] {
		t.Errorf("return %s", ops[1].Name)
	}
	if ops[0].Results[0].Name != "0" {
		t.Errorf("result name %q", ops[0].Results[0].Name)
	}
}

// TestSplitChunks checks `// -----` splitting and implicit modules.
func TestSplitChunks(t *testing.T) {
	src := "func.func @a() {\n  func.return\n}\n\n// -----\n\nmodule @m {\n  func.func @b() {\n    return\n  }\n}\n// -----\nfunc.func @c() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n  func.return\n}\nfunc.func @d()\n"
	mods, err := Parse("s.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 3 || mods[0].Funcs[0].Name != "a" || mods[1].Name != "m" || len(mods[2].Funcs) != 2 {
		t.Fatalf("got %d modules", len(mods))
	}
	if mods[2].Funcs[1].Body != nil {
		t.Errorf("declaration has a body")
	}
	op := mods[2].Funcs[0].Body.Entry().Ops[0]
	if op.Loc.Line != 14 || op.Loc.Col != 8 {
		t.Errorf("loc across chunks: %v", op.Loc)
	}
	if _, err := ParseModule("s.mlir", []byte(src)); err == nil {
		t.Errorf("ParseModule accepted 3 modules")
	}
}

// TestDuplicateAttrs checks duplicates in small and large dictionaries and
// between an op's properties and attributes.
func TestDuplicateAttrs(t *testing.T) {
	var big strings.Builder
	big.WriteString("{")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&big, "a%d = %d, ", i, i)
	}
	ok := big.String() + "z = 1}"
	if a, err := ParseAttr(ok); err != nil || len(a.(DictAttr)) != 20001 {
		t.Errorf("large dictionary: %v", err)
	}
	for _, s := range []string{"{a = 1, a = 2}", big.String() + "a19999 = 1}"} {
		if _, err := ParseAttr(s); err == nil || !strings.Contains(err.Error(), "duplicate attribute") {
			t.Errorf("%.40s...: got %v", s, err)
		}
	}
	src := "func.func @f() {\n  %0 = \"x.y\"() <{a = 1}> {a = 2} : () -> tensor<f32>\n}"
	if _, err := Parse("d.mlir", []byte(src)); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("property and attribute: got %v", err)
	}
}
