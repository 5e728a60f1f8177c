package stablehlo

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are small inputs that reach each part of the parser.
var fuzzSeeds = []string{
	"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
	"module @m attributes {mhlo.num_replicas = 1 : i32} {\n  func.func public @main() {\n    %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>\n    check.expect_eq_const %c, dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>\n    func.return\n  }\n}",
	"func.func @f(%x: tensor<2x3xf32>, %z: tensor<f32>) {\n  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n  func.return\n}",
	"func.func @f(%i: tensor<i64>) {\n  %0 = stablehlo.while(%a = %i) : tensor<i64>\n  cond {\n    %c = stablehlo.compare LT, %a, %a : (tensor<i64>, tensor<i64>) -> tensor<i1>\n    stablehlo.return %c : tensor<i1>\n  } do {\n    stablehlo.return %a : tensor<i64>\n  }\n  func.return\n}",
	"func.func @f(%x: tensor<1x3x9x10xf32>, %w: tensor<3x3x4x5xf32>) {\n  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 3], pad = [[1, 0], [0, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x9x10xf32>, tensor<3x3x4x5xf32>) -> tensor<1x3x4x2xf32>\n  func.return\n}",
	"func.func @f(%a: tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.1:2, 0.2:3, 0.3:4}>>) {\n  func.return\n}",
	"func.func @f(%a: tensor<?x3xf32, #stablehlo.bounds<16, ?>>) -> tuple<tensor<f32>, !stablehlo.token> {\n  %c = stablehlo.constant dense<\"0x0000803F\"> : tensor<4xf32>\n  %b = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>\n}",
	"func.func @f() {\n  %0 = \"stablehlo.gather\"(%a, %b) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>} : (tensor<4x16xf32>, tensor<2x1xi64>) -> tensor<2x16xf32>\n}",
	"func.func @f() {\n  %r:2 = \"stablehlo.sort\"(%a, %b) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %x : tensor<f32>\n  }) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n}",
	"#a = #stablehlo<comparison_direction EQ>\n!t = tensor<f32>\nfunc.func @f(%x: !t) { %0 = \"x.y\"(%x) {d = #a, s = #stablehlo.scatter<update_window_dims = [0]>} : (!t) -> !t loc(#l) }\n#l = loc(unknown)\n// -----\nfunc.func @g()\n",
	"func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) {\n  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [HIGH, HIGH], algorithm = <lhs_precision_type = tf32> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n}",
	"func.func @f() {\n  %c = stablehlo.constant dense_resource<blob> : tensor<2xi32>\n  func.return\n}\n{-#\n  dialect_resources: {\n    builtin: {\n      blob: \"0x040000000100000002000000\"\n    }\n  }\n#-}\n",
}

// FuzzParse checks that no input makes the parser panic or hang, and that
// what it accepts is well formed.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join(corpusDir, "interpret", "*.mlir"))
	if len(files) == 0 && os.Getenv("CI") == "true" {
		f.Fatalf("conformance corpus missing at %s", corpusDir)
	}
	more, _ := filepath.Glob(filepath.Join(corpusDir, "testdata", "*.mlir"))
	for i := 0; i < len(more); i += 40 {
		files = append(files, more[i])
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err == nil && len(src) < 16<<10 {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// The attribute and type entry points take the same text.
		if a, err := ParseAttr(string(src)); err == nil {
			if _, bad := a.(bareWord); bad {
				t.Fatalf("ParseAttr returned a bare word")
			}
		}
		ParseType(string(src))
		mods, err := Parse("fuzz.mlir", src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, m := range mods {
			for _, fn := range m.Funcs {
				checkWellFormed(t, fn.Body)
			}
		}
	})
}

// checkWellFormed checks the invariants the parser promises: every value
// has a type, results point at their op, dense attributes match their type.
func checkWellFormed(t *testing.T, r *Region) {
	t.Helper()
	err := r.Walk(func(op *Op) error {
		for i, v := range op.Results {
			if v.Type == nil || v.Def != op || v.Index != i {
				t.Fatalf("%s: bad result %d", op.Name, i)
			}
		}
		for i, v := range op.Operands {
			if v == nil || v.Type == nil {
				t.Fatalf("%s: bad operand %d", op.Name, i)
			}
		}
		for _, a := range op.Attrs {
			if _, bad := a.Value.(bareWord); bad || a.Value == nil {
				t.Fatalf("%s: attribute %s = %#v", op.Name, a.Name, a.Value)
			}
			if d, ok := a.Value.(*DenseAttr); ok {
				n := d.Type.NumElements()
				if d.Splat {
					n = 1
				}
				if d.Value == nil || int64(d.Value.Len()) != n {
					t.Fatalf("%s: dense attribute %s does not match its type", op.Name, a.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestParseMutations parses damaged copies of corpus files (truncated,
// bytes replaced, spans deleted): errors are fine, panics and malformed IR
// are not. It is a quick, deterministic complement to FuzzParse.
func TestParseMutations(t *testing.T) {
	files := corpusFiles(t)
	r := rand.New(rand.NewSource(1))
	chars := []byte("<>[](){},:=%#!\"x0-.^@ \n9aZ?*/")
	n := 0
	for i := 0; i < len(files); i += 97 {
		src, err := os.ReadFile(files[i])
		if err != nil || len(src) == 0 || len(src) > 20000 {
			continue
		}
		for k := 0; k < 60; k++ {
			m := append([]byte(nil), src...)
			switch k % 3 {
			case 0:
				m = m[:r.Intn(len(m)+1)]
			case 1:
				for j := 0; j < 1+r.Intn(3); j++ {
					m[r.Intn(len(m))] = chars[r.Intn(len(chars))]
				}
			case 2:
				a := r.Intn(len(m))
				b := min(a+r.Intn(20), len(m))
				m = append(m[:a:a], m[b:]...)
			}
			mods, err := Parse("mutated.mlir", m)
			if err != nil {
				if _, ok := err.(*SyntaxError); !ok {
					t.Fatalf("error of type %T: %v", err, err)
				}
				continue
			}
			n++
			for _, md := range mods {
				for _, fn := range md.Funcs {
					checkWellFormed(t, fn.Body)
				}
			}
		}
	}
	if n == 0 {
		t.Errorf("no mutated file parsed; the test checks nothing")
	}
}
