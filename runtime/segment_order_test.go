package runtime_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestSegmentKeyStable: a segment with several results (max.dim returns
// values and indices) lowers to the same module, so the same compile
// cache key, on every load of the program.
func TestSegmentKeyStable(t *testing.T) {
	dir := filepath.Join(fixtureRoot(t), "ops")
	f, err := safetensors.Load(filepath.Join(dir, "max_dim_float32.io.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for range 20 {
		p, err := pt2.Load(filepath.Join(dir, "max_dim_float32.pt2"))
		if err != nil {
			t.Fatal(err)
		}
		prog, err := runtime.FromPT2(p, "cpu")
		if err != nil {
			t.Fatal(err)
		}
		if err := prog.Configure(runtime.Options{NoCache: true}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := prog.Run(context.Background(), f.Inputs()); err != nil {
			t.Fatal(err)
		}
		for _, s := range prog.Metrics().Snapshot().Segments {
			keys[s.Key] = true
		}
	}
	if len(keys) != 1 {
		t.Errorf("one program, %d different segment keys: %v", len(keys), keys)
	}
}
