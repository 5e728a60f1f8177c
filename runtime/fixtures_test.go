package runtime_test

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

// TestFixtures runs every case of ../shared/fixtures/{ops,ops-torch2.6,
// models,models-torch2.6} through load → lower → run on the native
// backend → compare with PyTorch's outputs (the logic of `torchtpu
// verify`). testdata/fixture_failures.txt lists the cases known to fail;
// the list may only shrink: a new failure fails the test, and so does a
// listed case that now passes (remove it). FIXTURE_UPDATE=1 rewrites the
// list; FIXTURES=ops/abs_float32,... narrows the run.

var fixtureFolders = []string{"ops", "ops-torch2.6", "models", "models-torch2.6"}

const failuresFile = "testdata/fixture_failures.txt" // of TestFixtures

func fixtureRoot(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "fixtures")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixtures missing in CI: %v", err)
		}
		t.Skipf("fixtures missing: %v", err)
	}
	return dir
}

func fixtureCases(t *testing.T, root, folder string) []string {
	b, err := os.ReadFile(filepath.Join(root, folder, "INDEX.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Cases []struct{ Name string } `json:"cases"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatalf("%s/INDEX.json: %v", folder, err)
	}
	var out []string
	for _, c := range idx.Cases {
		out = append(out, c.Name)
	}
	return out
}

func readFailures(t *testing.T, file string) map[string]string {
	b, err := os.ReadFile(file)
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

func TestFixtures(t *testing.T) {
	runSuite(t, fixtureRoot(t), fixtureFolders, failuresFile)
}

// TestOracleCases runs the edge cases of tools/oracle/gen_cases.py and the
// dtype/broadcast/dim sweep of tools/oracle/gen_sweep.py (PyTorch's own
// results, checked in under testdata/oracle and testdata/sweep).
func TestOracleCases(t *testing.T) {
	runSuite(t, "testdata", []string{"oracle", "sweep"}, "testdata/oracle_failures.txt")
}

// runSuite verifies every case of the folders under root against a
// shrink-only failure list.
func runSuite(t *testing.T, root string, folders []string, failuresFile string) {
	known := readFailures(t, failuresFile)
	filter := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("FIXTURES"), ",") {
		if n != "" {
			filter[n] = true
		}
	}
	failed := map[string]string{}
	for _, folder := range folders {
		pass, total := 0, 0
		for _, name := range fixtureCases(t, root, folder) {
			id := folder + "/" + name
			if len(filter) > 0 && !filter[id] {
				continue
			}
			total++
			if err := runCase(filepath.Join(root, folder, name)); err != nil {
				failed[id] = oneLine(err.Error())
				if _, ok := known[id]; !ok {
					t.Errorf("%s: new failure: %v", id, err)
				}
				continue
			}
			pass++
			if _, ok := known[id]; ok {
				t.Errorf("%s passes now: remove it from %s", id, failuresFile)
			}
		}
		t.Logf("%s: %d of %d pass", folder, pass, total)
	}
	if os.Getenv("FIXTURE_UPDATE") == "1" && len(filter) == 0 {
		writeFailures(t, failuresFile, failed)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func writeFailures(t *testing.T, failuresFile string, failed map[string]string) {
	var ids []string
	for id := range failed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("# Cases known to fail (runtime/fixtures_test.go); this list may only shrink.\n")
	b.WriteString("# Format: folder/case reason (the error when the list was written).\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "%s %s\n", id, failed[id])
	}
	if err := os.WriteFile(failuresFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCase is `torchtpu verify CASE.pt2 --io CASE.io.safetensors`.
func runCase(base string) error { return runCaseOn(base, "cpu") }

// runCaseOn is runCase on device.
func runCaseOn(base, device string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		return err
	}
	io, err := safetensors.Load(base + ".io.safetensors")
	if err != nil {
		return err
	}
	prog, err := runtime.FromPT2(p, device)
	if err != nil {
		return err
	}
	prog.Check = true // every lowered module must verify and survive print → parse
	outs, _, err := prog.Run(context.Background(), io.Inputs())
	if err != nil {
		return err
	}
	want := io.Outputs()
	if len(outs) != len(want) {
		return fmt.Errorf("%d outputs, want %d", len(outs), len(want))
	}
	for i := range want {
		if c := runtime.Compare(outs[i], want[i], runtime.DefaultTolerance(want[i].DType)); !c.OK {
			return fmt.Errorf("output %d: %s (%d mismatches, max abs %.3g, max rel %.3g)", i, c.Detail, c.Mismatches, c.MaxAbs, c.MaxRel)
		}
	}
	return nil
}

// TestOpInfoCases runs a few cases of the OpInfo sweep (tools/opinfo,
// copied from its generated cases) that once failed, in Check mode.
func TestOpInfoCases(t *testing.T) {
	runSuite(t, "testdata", []string{"opinfo"}, "testdata/opinfo_failures.txt")
}
