package aten_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestOpInfoCopies runs a few cases copied from the OpInfo sweep
// (tools/opinfo: PyTorch 2.14's sample inputs and eager outputs) for ops
// whose lowering has no other test here: stft, istft, _scaled_mm(_v2)
// and the chunked linear_cross_entropy ops. Outputs must match within
// torch.testing's default tolerance, as the sweep checks them.
func TestOpInfoCopies(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "opinfo", "*.pt2"))
	if len(files) == 0 {
		t.Fatal("no cases in testdata/opinfo")
	}
	for _, f := range files {
		base := strings.TrimSuffix(f, ".pt2")
		t.Run(filepath.Base(base), func(t *testing.T) {
			p, err := pt2.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			io, err := safetensors.Load(base + ".io.safetensors")
			if err != nil {
				t.Fatal(err)
			}
			prog, err := runtime.FromPT2(p, "cpu")
			if err != nil {
				t.Fatal(err)
			}
			prog.Check = true
			outs, _, err := prog.Run(context.Background(), io.Inputs())
			if err != nil {
				t.Fatal(err)
			}
			want := io.Outputs()
			if len(outs) != len(want) {
				t.Fatalf("%d outputs, want %d", len(outs), len(want))
			}
			for i, w := range want {
				if cmp := runtime.Compare(outs[i], w, runtime.DefaultTolerance(w.DType)); !cmp.OK {
					t.Errorf("output %d: %s", i, cmp.Detail)
				}
			}
		})
	}
}
