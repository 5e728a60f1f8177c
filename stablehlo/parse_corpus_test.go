package stablehlo

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// corpusDir is the StableHLO conformance corpus (interpret/ and testdata/).
const corpusDir = "../../shared/conformance/stablehlo"

// corpusFiles lists the corpus .mlir files; it fails under CI=true when the
// corpus is missing and skips otherwise.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, sub := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(corpusDir, sub, "*.mlir"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance corpus missing at %s", corpusDir)
		}
		t.Skipf("conformance corpus missing at %s", corpusDir)
	}
	sort.Strings(files)
	return files
}

// TestParseCorpus parses every file of the conformance corpus.
func TestParseCorpus(t *testing.T) {
	files := corpusFiles(t)
	start := time.Now()
	failed, modules, ops := 0, 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := Parse(f, src)
		if err != nil {
			failed++
			if failed <= 30 {
				t.Errorf("%v", err)
			}
			continue
		}
		if len(mods) == 0 {
			t.Errorf("%s: no module", f)
		}
		modules += len(mods)
		for _, m := range mods {
			for _, fn := range m.Funcs {
				fn.Body.Walk(func(*Op) error { ops++; return nil })
			}
		}
	}
	t.Logf("parsed %d/%d files (%d modules, %d ops) in %v", len(files)-failed, len(files), modules, ops, time.Since(start))
	if failed > 0 {
		t.Errorf("%d of %d files failed to parse", failed, len(files))
	}
}
