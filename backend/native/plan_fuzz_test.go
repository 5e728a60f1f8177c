package native

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// FuzzPlan parses mutated conformance programs and, for every module that
// verifies, builds the execution plan of each of its functions as Compile
// does. Plan building recovers nothing: a panic there fails the target.
// (Execution, which turns kernel panics into errors, is covered by the
// mutation harness, tools/mutate, through `stablehlo run`'s code path.)
func FuzzPlan(f *testing.F) {
	var files []string
	for _, sub := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(conformanceDir, sub, "*.mlir"))
		sort.Strings(m)
		if sub == "testdata" { // a spread of the 2,263 JAX/XLA programs
			var some []string
			for i := 0; i < len(m); i += 37 {
				some = append(some, m[i])
			}
			m = some
		}
		files = append(files, m...)
	}
	if len(files) == 0 && os.Getenv("CI") == "true" {
		f.Fatalf("conformance corpus missing at %s", conformanceDir)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err == nil && len(src) <= 16<<10 {
			f.Add(src)
		}
	}
	f.Add([]byte("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n"))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, src []byte) {
		mods, err := stablehlo.Parse("fuzz.mlir", src)
		if err != nil {
			return
		}
		for _, m := range mods {
			if stablehlo.Verify(m) != nil {
				continue
			}
			for _, fn := range m.Funcs {
				exe, err := (&Backend{}).Compile(ctx, m, backend.Options{Entry: fn.Name})
				if err == nil && exe == nil {
					t.Fatalf("@%s: Compile returned neither an executable nor an error", fn.Name)
				}
			}
		}
	})
}
