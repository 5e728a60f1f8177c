package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
)

// TestXLACPUFixtures runs every fixture of ../shared/fixtures (ops and
// models, both layouts) on xla-cpu, XLA's CPU PJRT plugin (installed by
// scripts/install-pjrt.sh xla-cpu; CI fails without it), against
// PyTorch's outputs, in crash-isolated worker processes.
// testdata/xla_cpu_fixture_failures.txt lists the cases known to fail,
// each marked [xla only] (the native backend passes it: PyTorch's outputs
// say XLA's answer, or its refusal, is the difference) or [both fail];
// the list may only shrink. FIXTURE_UPDATE=1 rewrites it.

const xlaFailuresFile = "testdata/xla_cpu_fixture_failures.txt"

func TestXLACPUFixtures(t *testing.T) {
	if pjrttest.IsWorker() {
		t.Skip("worker process")
	}
	requireXLACPU(t)
	root := fixtureRoot(t)
	filter := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("FIXTURES"), ",") {
		if n != "" {
			filter[n] = true
		}
	}
	var ids []string
	for _, folder := range fixtureFolders {
		for _, name := range fixtureCases(t, root, folder) {
			if id := folder + "/" + name; len(filter) == 0 || filter[id] {
				ids = append(ids, id)
			}
		}
	}
	start := time.Now()
	res := pjrttest.RunIsolated(t, "TestXLACPUFixturesWorker", ids, 2, 5*time.Minute, "TORCHTPU_FIXTURE_ROOT="+root)
	known := readFailures(t, xlaFailuresFile)
	native := readFailures(t, failuresFile)
	failed := map[string]string{}
	pass := map[string]int{}
	total := map[string]int{}
	for _, id := range ids {
		folder, _, _ := strings.Cut(id, "/")
		total[folder]++
		msg := res[id]
		if msg == "" {
			pass[folder]++
			if _, ok := known[id]; ok {
				t.Errorf("%s passes on xla-cpu now: remove it from %s", id, xlaFailuresFile)
			}
			continue
		}
		kind := "[xla only]"
		if _, nf := native[id]; nf {
			kind = "[both fail]"
		}
		failed[id] = kind + " " + oneLine(msg)
		if _, ok := known[id]; !ok {
			t.Errorf("%s: new failure on xla-cpu: %s", id, msg)
		}
	}
	for _, folder := range fixtureFolders {
		if total[folder] > 0 {
			t.Logf("xla-cpu %s: %d of %d pass", folder, pass[folder], total[folder])
		}
	}
	t.Logf("xla-cpu fixtures took %v", time.Since(start).Round(time.Second))
	if os.Getenv("FIXTURE_UPDATE") == "1" && len(filter) == 0 {
		var lines []string
		for id, why := range failed {
			lines = append(lines, id+" "+why)
		}
		sort.Strings(lines)
		head := "# Fixture cases failing on xla-cpu (runtime/xla_fixtures_test.go); this list may only shrink.\n" +
			"# Format: folder/case [xla only|both fail] reason. [xla only]: the native backend matches PyTorch there.\n"
		for _, folder := range fixtureFolders {
			head += fmt.Sprintf("# %s: %d of %d pass\n", folder, pass[folder], total[folder])
		}
		if err := os.WriteFile(xlaFailuresFile, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestXLACPUFixturesWorker is TestXLACPUFixtures' worker process.
func TestXLACPUFixturesWorker(t *testing.T) {
	if !pjrttest.IsWorker() {
		t.Skip("the worker process of TestXLACPUFixtures")
	}
	root := os.Getenv("TORCHTPU_FIXTURE_ROOT")
	pjrttest.ServeIsolated(func(id string) string {
		if err := runCaseOn(filepath.Join(root, id), "xla-cpu"); err != nil {
			return err.Error()
		}
		return ""
	})
}
