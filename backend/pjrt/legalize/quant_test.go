package legalize_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// legalizedSource runs the named passes on every module of a file and
// prints the result (modules separated as the suite writes them).
func legalizedSource(t *testing.T, path string, passes ...string) (string, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := stablehlo.Parse(path, src)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for i, m := range mods {
		if i > 0 {
			sb.WriteString("\n// -----\n\n")
		}
		for _, f := range m.Funcs { // every test function, as the device harness makes each @main
			if len(f.Type.Inputs) != 0 || f.Body == nil {
				continue
			}
		}
		s := &legalize.State{Module: m, Target: legalize.TargetFor("xla-cpu")}
		if err := legalize.Run(s, legalize.Options{Only: passes, Verify: true}); err != nil {
			return "", err
		}
		if err := stablehlo.Print(&sb, m); err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}

// TestQuantConformanceOnNative lowers the quantized types of every
// conformance file that has them and runs the result on the native
// backend: its checks must pass as the quantized program's do.
func TestQuantConformanceOnNative(t *testing.T) {
	var files []string
	for _, dir := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(confDir, dir, "*.mlir"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("conformance suite not found")
	}
	ran := 0
	for _, path := range files {
		src, _ := os.ReadFile(path)
		if !strings.Contains(string(src), "!quant.uniform") {
			continue
		}
		if before := native.RunSource(context.Background(), path, src, native.RunOptions{Timeout: time.Minute}); !before.Passed() {
			continue // the native backend fails the quantized program itself
		}
		text, err := legalizedSource(t, path, "quant", "dce")
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
			continue
		}
		ran++
		r := native.RunSource(context.Background(), path, []byte(text), native.RunOptions{Timeout: time.Minute})
		if err := r.FirstError(); err != nil {
			t.Errorf("%s: lowered: %v", filepath.Base(path), err)
		}
	}
	t.Logf("%d quantized files lowered and run", ran)
}
