package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeMLIR(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The expected values are integer arithmetic written for the test.
const runGood = `func.func @sum() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}
`

const runBad = `func.func @wrong() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi32>
  func.return
}
`

func TestStablehloRun(t *testing.T) {
	dir := t.TempDir()
	good := writeMLIR(t, dir, "good.mlir", runGood)
	bad := writeMLIR(t, dir, "bad.mlir", runBad)
	ctx := context.Background()

	var out, errb bytes.Buffer
	if code := dispatch(ctx, []string{"stablehlo", "run", good}, &out, &errb); code != 0 {
		t.Fatalf("good file: exit %d, output %q %q", code, out.String(), errb.String())
	}
	if got := strings.TrimSpace(out.String()); got != "1 passed, 0 failed" {
		t.Errorf("good file output %q", got)
	}

	out.Reset()
	code := dispatch(ctx, []string{"stablehlo", "run", good, bad, filepath.Join(dir, "missing.mlir")}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code == 0 || len(lines) != 3 || lines[2] != "1 passed, 2 failed" {
		t.Fatalf("exit %d, output %q", code, out.String())
	}
	if !strings.Contains(lines[0], "bad.mlir: @wrong:") || !strings.Contains(lines[1], "missing.mlir") {
		t.Errorf("failure lines %q", lines[:2])
	}

	errb.Reset()
	if code := dispatch(ctx, []string{"stablehlo", "run"}, &out, &errb); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
	errb.Reset()
	if code := dispatch(ctx, []string{"stablehlo", "run", "-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "N passed, M failed") {
		t.Errorf("-h: exit %d, help %q", code, errb.String())
	}
}
