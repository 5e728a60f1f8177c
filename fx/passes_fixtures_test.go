package fx_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/pt2"
)

// TestPassesOnFixtures runs every pass, verifying after each, on every
// fixture program, and checks that user inputs and outputs are unchanged.
func TestPassesOnFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "fixtures")
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixtures missing: %v", err)
		}
		t.Skipf("fixtures missing: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.pt2"))
	removed := 0
	for _, f := range files {
		p, err := pt2.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		g := p.Graph
		before := len(g.Nodes)
		nIn, nOut := len(g.UserInputs()), len(g.UserOutputs())
		if err := fx.RunPasses(g, fx.PassOptions{Verify: true}); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(g.UserInputs()) != nIn || len(g.UserOutputs()) != nOut {
			t.Errorf("%s: user inputs/outputs changed", f)
		}
		if d := before - len(g.Nodes); d > 0 {
			t.Logf("%s: %d removed", filepath.Base(f), d)
		}
		removed += before - len(g.Nodes)
	}
	t.Logf("%d programs, %d nodes removed by cse/dce", len(files), removed)
}
