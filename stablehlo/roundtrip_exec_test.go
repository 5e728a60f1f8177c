package stablehlo_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestRoundTripExecutes runs a sample of the conformance corpus on the
// native backend twice: as written, and after print -> parse in canonical
// form. The files' own checks compare results with the expected values, so
// every function that passes as written must pass after the round trip.
func TestRoundTripExecutes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the native backend")
	}
	const dir = "../../shared/conformance/stablehlo"
	var files []string
	for _, sub := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.mlir"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance corpus missing at %s", dir)
		}
		t.Skipf("conformance corpus missing at %s", dir)
	}
	sort.Strings(files)
	ctx := context.Background()
	opts := native.RunOptions{Timeout: 20 * time.Second}
	compared, funcs := 0, 0
	for i, f := range files {
		if i%3 != 0 { // a spread sample of every op family, ~800 files
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		canon, err := canonicalFile(f, src)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		before := native.RunSource(ctx, f, src, opts)
		after := native.RunSource(ctx, f, canon, opts)
		if before.Err != nil {
			continue // not runnable as written (a known native gap)
		}
		if after.Err != nil {
			t.Errorf("%s: canonical form fails: %v", f, after.Err)
			continue
		}
		if len(before.Funcs) != len(after.Funcs) {
			t.Errorf("%s: %d functions as written, %d in canonical form", f, len(before.Funcs), len(after.Funcs))
			continue
		}
		compared++
		for k, b := range before.Funcs {
			a := after.Funcs[k]
			if b.Err == nil && !b.CompiledOnly {
				funcs++
				if a.Err != nil {
					t.Errorf("%s %s: passes as written, fails in canonical form: %v", f, b.Name, a.Err)
				}
			}
		}
	}
	t.Logf("%d files, %d passing functions compared", compared, funcs)
	if compared < 400 {
		t.Errorf("only %d files compared", compared)
	}
}

// canonicalFile prints every module of src canonically, keeping the RUN
// lines (they carry test arguments).
func canonicalFile(name string, src []byte) ([]byte, error) {
	mods, err := stablehlo.Parse(name, src)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "// RUN:") {
			buf.WriteString(line + "\n")
		}
	}
	for i, m := range mods {
		if i > 0 {
			buf.WriteString("\n// -----\n\n")
		}
		if err := stablehlo.Print(&buf, m); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
