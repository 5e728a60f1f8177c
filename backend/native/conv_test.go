package native

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestConvBands reruns the convolution conformance files with an im2col
// band of a few rows, so every convolution is cut into many bands; the
// results must not change.
func TestConvBands(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(conformanceDir, "testdata", "conv_general_dilated_*.mlir"))
	if err != nil || len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance suite missing in CI (%v)", err)
		}
		t.Skipf("conformance suite not found (%v)", err)
	}
	interp, _ := filepath.Glob(filepath.Join(conformanceDir, "interpret", "convolution.mlir"))
	files = append(files, interp...)
	saved := convBandElems
	defer func() { convBandElems = saved }()
	convBandElems = 5
	for _, f := range files {
		if r := RunFile(context.Background(), f, RunOptions{}); !r.Passed() {
			t.Errorf("%s with 5-element bands: %v", filepath.Base(f), r.FirstError())
		}
	}
}
