package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fmtInput = `// two modules, pretty form
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

module @m {
  func.func @main() -> tensor<i1> {
    %c = stablehlo.constant dense<true> : tensor<i1>
    return %c : tensor<i1>
  }
}
`

func TestStablehloFmt(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.mlir")
	if err := os.WriteFile(in, []byte(fmtInput), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("stablehlo", "fmt", "-verify", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>`,
		"// -----",
		`module @m {`,
		`{value = dense<true> : tensor<i1>}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The canonical form is a fixed point.
	canon := filepath.Join(dir, "canon.mlir")
	if err := os.WriteFile(canon, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, again, errs := run("stablehlo", "fmt", canon); code != 0 || again != out {
		t.Errorf("second fmt differs (exit %d, %s):\n%s", code, errs, again)
	}
	// -w rewrites the file in place.
	if code, _, errs := run("stablehlo", "fmt", "-w", in); code != 0 {
		t.Fatalf("-w: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(in); string(b) != out {
		t.Errorf("-w wrote:\n%s", b)
	}

	if code, _, errs := run("stablehlo", "fmt", "-h"); code != 0 || !strings.Contains(errs, "canonical form") {
		t.Errorf("-h: exit %d, help:\n%s", code, errs)
	}
	if code, _, errs := run("stablehlo", "fmt"); code != 2 || !strings.Contains(errs, "usage") {
		t.Errorf("no file: exit %d: %s", code, errs)
	}
	bad := filepath.Join(dir, "bad.mlir")
	os.WriteFile(bad, []byte("func.func @main( {"), 0o644)
	if code, _, errs := run("stablehlo", "fmt", bad); code != 1 || !strings.Contains(errs, "bad.mlir") {
		t.Errorf("bad input: exit %d: %s", code, errs)
	}
}
