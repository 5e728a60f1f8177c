package aten_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestHeldout runs the held-out programs of tools/heldout/gen.py (vision,
// language and recurrent models with small random weights, and single ops
// at other dtypes and values; PyTorch's outputs checked in under
// testdata/heldout, and under testdata/heldout-torch2.6 the same kinds
// exported by torch 2.6 in the legacy archive layout) through pt2 →
// runtime → native backend, as `torchtpu verify` does.
// testdata/heldout_failures.txt lists the cases (folder/case) known to
// fail; it may only shrink: a new failure fails the test, and so does a
// listed case that passes. HELDOUT_UPDATE=1 rewrites the list;
// HELDOUT_CASES=heldout/name1,... narrows the run.

const heldoutFailures = "testdata/heldout_failures.txt"

var heldoutDirs = []string{"heldout", "heldout-torch2.6"}

func heldoutCases(t *testing.T, folder string) []string {
	heldoutDir := filepath.Join("testdata", folder)
	b, err := os.ReadFile(filepath.Join(heldoutDir, "INDEX.json"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("held-out cases missing in CI: %v", err)
		}
		t.Skipf("held-out cases missing: %v", err)
	}
	var idx struct {
		Cases []struct{ Name string } `json:"cases"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatalf("%s/INDEX.json: %v", heldoutDir, err)
	}
	if len(idx.Cases) == 0 {
		t.Fatalf("%s/INDEX.json lists no cases", heldoutDir)
	}
	names := make([]string, len(idx.Cases))
	for i, c := range idx.Cases {
		names[i] = c.Name
	}
	return names
}

func readHeldoutFailures(t *testing.T) map[string]string {
	b, err := os.ReadFile(heldoutFailures)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, _ := strings.Cut(line, " ")
		out[name] = strings.TrimSpace(why)
	}
	return out
}

func TestHeldout(t *testing.T) {
	known := readHeldoutFailures(t)
	filter := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("HELDOUT_CASES"), ",") {
		if n != "" {
			filter[n] = true
		}
	}
	failed := map[string]string{}
	pass, total := 0, 0
	var names []string
	for _, folder := range heldoutDirs {
		for _, c := range heldoutCases(t, folder) {
			names = append(names, folder+"/"+c)
		}
	}
	for _, name := range names {
		if len(filter) > 0 && !filter[name] {
			continue
		}
		total++
		maxAbs, err := runHeldout(filepath.Join("testdata", name))
		if err != nil {
			failed[name] = strings.Join(strings.Fields(err.Error()), " ")
			if _, ok := known[name]; !ok {
				t.Errorf("%s: new failure: %v", name, err)
			}
			continue
		}
		pass++
		if testing.Verbose() {
			t.Logf("%s: ok (max abs error %.3g)", name, maxAbs)
		}
		if _, ok := known[name]; ok {
			t.Errorf("%s passes now: remove it from %s", name, heldoutFailures)
		}
	}
	t.Logf("held-out: %d of %d pass", pass, total)
	if os.Getenv("HELDOUT_UPDATE") == "1" && len(filter) == 0 {
		writeHeldoutFailures(t, failed)
	}
}

func writeHeldoutFailures(t *testing.T, failed map[string]string) {
	var ids []string
	for id := range failed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("# Held-out cases known to fail (aten/heldout_test.go); this list may only shrink.\n")
	b.WriteString("# Format: case reason (the error when the list was written).\n")
	for _, id := range ids {
		why := failed[id]
		if len(why) > 300 {
			why = why[:300] + "…"
		}
		fmt.Fprintf(&b, "%s %s\n", id, why)
	}
	if err := os.WriteFile(heldoutFailures, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runHeldout is `torchtpu verify BASE.pt2 --io BASE.io.safetensors`; it
// returns the largest absolute error over the outputs.
func runHeldout(base string) (maxAbs float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		return 0, err
	}
	io, err := safetensors.Load(base + ".io.safetensors")
	if err != nil {
		return 0, err
	}
	prog, err := runtime.FromPT2(p, "cpu")
	if err != nil {
		return 0, err
	}
	outs, _, err := prog.Run(context.Background(), io.Inputs())
	if err != nil {
		return 0, err
	}
	want := io.Outputs()
	if len(outs) != len(want) {
		return 0, fmt.Errorf("%d outputs, want %d", len(outs), len(want))
	}
	for i := range want {
		c := runtime.Compare(outs[i], want[i], runtime.DefaultTolerance(want[i].DType))
		if !c.OK {
			return 0, fmt.Errorf("output %d: %s (%d mismatches, max abs %.3g, max rel %.3g)", i, c.Detail, c.Mismatches, c.MaxAbs, c.MaxRel)
		}
		maxAbs = max(maxAbs, c.MaxAbs)
	}
	return maxAbs, nil
}
