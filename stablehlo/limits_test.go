package stablehlo

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/limits"
)

func expectLimit(t *testing.T, what string, err error, env string) {
	t.Helper()
	var le *limits.Error
	if !errors.As(err, &le) || le.Env != env {
		t.Errorf("%s: error %v, want the limit of %s", what, err, env)
	}
	var se *SyntaxError
	if err != nil && !errors.As(err, &se) {
		t.Errorf("%s: error of type %T, want a *SyntaxError", what, err)
	}
}

// nestedRegions returns a function whose body nests n generic ops, each
// holding the next in its region.
func nestedRegions(n int) string {
	var b strings.Builder
	b.WriteString("func.func @main() {\n")
	for range n {
		b.WriteString(`"test.wrap"() ({` + "\n")
	}
	for range n {
		b.WriteString("}) : () -> ()\n")
	}
	b.WriteString("func.return\n}\n")
	return b.String()
}

func TestNestingLimit(t *testing.T) {
	if _, err := Parse("ok.mlir", []byte(nestedRegions(100))); err != nil {
		t.Fatalf("100 nested regions: %v", err)
	}
	// 600 nested regions exceed the default of 500 levels.
	deep := []byte(nestedRegions(600))
	_, err := Parse("deep.mlir", deep)
	expectLimit(t, "600 nested regions", err, limits.EnvNesting)
	// Raised, the same file parses.
	if _, err := ParseWithLimits("deep.mlir", deep, limits.Limits{Nesting: 5000}); err != nil {
		t.Errorf("600 nested regions under 5000 levels: %v", err)
	}
	// Types count too: tuple<tuple<...>> 600 deep.
	typ := strings.Repeat("tuple<", 600) + "f32" + strings.Repeat(">", 600)
	_, err = Parse("types.mlir", []byte("func.func @f(%a: "+typ+") {\n func.return\n}\n"))
	expectLimit(t, "600 nested tuple types", err, limits.EnvNesting)
}

func TestProgramSizeLimit(t *testing.T) {
	files := corpusFiles(t)
	var src []byte
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(b) > 4000 {
			src = b
			break
		}
	}
	if src == nil {
		t.Fatal("no corpus file of more than 4000 bytes")
	}
	_, err := ParseWithLimits("big.mlir", src, limits.Limits{ProgramBytes: 4000})
	expectLimit(t, "a conformance program under 4000 bytes", err, limits.EnvProgramBytes)
	if _, err := ParseWithLimits("big.mlir", src, limits.Limits{ProgramBytes: int64(len(src))}); err != nil {
		t.Errorf("at its own size: %v", err)
	}
}
