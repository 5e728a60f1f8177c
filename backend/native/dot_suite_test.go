package native

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// kernelSuiteGlobs are the conformance files of the compute kernels (dot,
// convolution, reduce, windows, fft, linalg, rng, chlo, quantization).
var kernelSuiteGlobs = []string{
	"interpret/dot*.mlir", "interpret/convolution.mlir", "interpret/dynamic_conv.mlir",
	"interpret/reduce.mlir", "interpret/reduce_window.mlir", "interpret/select_and_scatter.mlir",
	"interpret/fft.mlir", "interpret/triangular_solve.mlir", "interpret/quantized_ops.mlir",
	"interpret/chlo_*.mlir",
	"testdata/dot*.mlir", "testdata/conv*.mlir", "testdata/reduce*.mlir", "testdata/argm*.mlir",
	"testdata/*select_and_scatter*.mlir", "testdata/fft*.mlir", "testdata/*triangular_solve*.mlir",
	"testdata/rng*.mlir", "testdata/*_chlo*.mlir", "testdata/*qi8*.mlir", "testdata/*quantize*.mlir",
}

// TestKernelSuite runs the conformance files of the compute kernels
// (TORCHTPU_SUITE_GLOB narrows them: a comma-separated list of globs
// relative to the suite) and reports every failure.
func TestKernelSuite(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("conformance suite not found: %v", err)
	}
	globs := kernelSuiteGlobs
	if g := os.Getenv("TORCHTPU_SUITE_GLOB"); g != "" {
		globs = strings.Split(g, ",")
	}
	seen := map[string]bool{}
	var files []string
	for _, g := range globs {
		m, err := filepath.Glob(filepath.Join(conformanceDir, g))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no suite files matched")
	}
	pass := 0
	for _, f := range files {
		r := RunFile(context.Background(), f, RunOptions{Timeout: 60 * time.Second})
		rel, _ := filepath.Rel(conformanceDir, f)
		if r.Passed() {
			pass++
			continue
		}
		t.Errorf("%s: %s", rel, shortCause(r.FirstError()))
	}
	t.Logf("%d of %d files pass", pass, len(files))
}
