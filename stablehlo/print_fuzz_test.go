package stablehlo

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// FuzzPrintRoundTrip: whatever the parser accepts, Verify must judge
// without panicking and the printer must print,
// and the printed text must parse back to an equal module that prints
// identically. (Without -fuzz, the seeds run as a plain test.)
func FuzzPrintRoundTrip(f *testing.F) {
	for _, s := range []string{
		`func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}`,
		`module @"odd name" attributes {"k k" = "a\"b\n\01", n = 3 : i32, f = 0x7FC00000 : f32} {
  func.func private @"f-1"(%x: tensor<?x2xbf16> {a.b = [1, 2.5, true, unit]}) -> (tensor<?x2xbf16> {r = {d = @x}}) {
    func.return %x : tensor<?x2xbf16>
  }
}`,
		`func.func @c() -> (tensor<2x2xcomplex<f64>>, tensor<3xi1>, tensor<0xf32>, tensor<2xui64>) {
  %0 = stablehlo.constant dense<[[(1.0, -2.0), (0x7FF8000000000000, 0.0)], [(1.0, 2.0), (3.0, 4.0)]]> : tensor<2x2xcomplex<f64>>
  %1 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = stablehlo.constant dense<> : tensor<0xf32>
  %3 = stablehlo.constant dense<[18446744073709551615, 0]> : tensor<2xui64>
  return %0, %1, %2, %3 : tensor<2x2xcomplex<f64>>, tensor<3xi1>, tensor<0xf32>, tensor<2xui64>
}`,
		`func.func @r(%x: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %1:2 = "stablehlo.sort"(%0, %0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    %p = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %1#1 : tensor<4xf32>
}`,
		`func.func @q(%x: tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2xf32> {
  %0 = stablehlo.uniform_dequantize %x : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}`,
	} {
		f.Add(s)
	}
	// Real programs: the interpreter tests and a spread of the JAX/XLA
	// programs of the conformance corpus.
	files, _ := filepath.Glob(filepath.Join(corpusDir, "interpret", "*.mlir"))
	if len(files) == 0 && os.Getenv("CI") == "true" {
		f.Fatalf("conformance corpus missing at %s", corpusDir)
	}
	more, _ := filepath.Glob(filepath.Join(corpusDir, "testdata", "*.mlir"))
	sort.Strings(more)
	for i := 3; i < len(more); i += 40 {
		files = append(files, more[i])
	}
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil && len(src) < 16<<10 {
			f.Add(string(src))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		mods, err := Parse("fuzz", []byte(src))
		if err != nil {
			return
		}
		for _, m := range mods {
			_ = Verify(m) // any verdict, but no panic
			var b bytes.Buffer
			if err := Print(&b, m); err != nil {
				// Parsed IR the printer cannot spell (e.g. an op using a value
				// of another function) must at least be reported, not crash.
				return
			}
			if err := roundTrip(m); err != nil {
				t.Fatalf("%v\ninput:\n%s", err, src)
			}
		}
	})
}
