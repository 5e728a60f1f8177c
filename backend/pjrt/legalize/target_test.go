package legalize_test

import (
	"os"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// A plugin that supports a construct gets no rewrite of it: with a
// target that lacks nothing, only the passes that do not depend on the
// plugin (prune, inline, refine) have work on the seeds.
func TestPassesSkippedWhenTheTargetSupports(t *testing.T) {
	full := &legalize.Target{Name: "everything", Quant: true}
	xla := legalize.TargetFor("xla-cpu")
	want := map[string]string{ // seed → the pass it needs on xla-cpu
		"chlo.mlir": "chlo", "quant.mlir": "quant", "types.mlir": "types", "fixes.mlir": "fixes",
	}
	for _, path := range seedFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := stablehlo.Parse(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range legalize.Passes {
			switch p.Name {
			case "chlo", "quant", "types", "fixes":
			default:
				continue
			}
			if p.Needed(&legalize.State{Module: mods[0], Target: full}) {
				t.Errorf("%s: pass %s has work for a target that supports everything", path, p.Name)
			}
			need := p.Needed(&legalize.State{Module: mods[0], Target: xla})
			base := path[len("testdata/seeds/"):]
			if w, ok := want[base]; ok && w == p.Name && !need {
				t.Errorf("%s: pass %s has no work on xla-cpu", base, p.Name)
			}
		}
	}
}

// TargetFor strips a device ordinal and falls back to XLA's lists.
func TestTargetFor(t *testing.T) {
	if legalize.TargetFor("tpu:3").Name != "tpu" || legalize.TargetFor("xla-cpu").Name != "xla-cpu" {
		t.Error("TargetFor does not find the known kinds")
	}
	if u := legalize.TargetFor("some-plugin"); u.Name != "some-plugin" || len(u.Ops) == 0 || len(u.Fixes) == 0 {
		t.Errorf("an unknown plugin gets %+v, want XLA's lists", u)
	}
	if _, ok := legalize.TargetFor("xla-cpu").Ops["chlo.ragged_dot"]; !ok {
		t.Error("xla-cpu does not list chlo.ragged_dot")
	}
	if _, ok := legalize.TargetFor("tpu").Ops["chlo.ragged_dot"]; ok {
		t.Error("tpu lists chlo.ragged_dot, which XLA:TPU has")
	}
}
