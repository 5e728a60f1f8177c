package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt"
)

// TestStablehloRunSample runs a jax.export program with a symbolic batch
// on xla-cpu with --sample (refinement and bucketing on the device,
// results against the native backend).
func TestStablehloRunSample(t *testing.T) {
	if !pjrt.CanLoad || pjrt.ForKind(pjrt.Search(nil), "xla-cpu") == nil {
		if os.Getenv("CI") == "true" && pjrt.CanLoad {
			t.Fatal("no xla-cpu PJRT plugin in CI")
		}
		t.Skip("no xla-cpu PJRT plugin (scripts/install-pjrt.sh xla-cpu)")
	}
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), []string{"stablehlo", "run", "--device", "xla-cpu", "--sample", "5", "-v",
		"../../backend/pjrt/testdata/jax/mlp_poly.mlir"}, &out, &errb)
	// The file's @main takes an argument: skipped as a test, run as the
	// sampled one.
	if code != 0 || !strings.Contains(out.String(), "ok (1 tests") || !strings.Contains(out.String(), "1 passed, 0 failed, 1 skipped") {
		t.Fatalf("exit %d, output %q %q", code, out.String(), errb.String())
	}
}
