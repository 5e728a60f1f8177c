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

// TestPassesConformanceOnNative runs each rewrite pass alone (after
// prune) on every conformance file where it has work for xla-cpu, and the
// rewritten program on the native backend: its checks must pass as the
// original program's do. No device needed.
func TestPassesConformanceOnNative(t *testing.T) {
	var files []string
	for _, dir := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(confDir, dir, "*.mlir"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("conformance suite not found")
	}
	target := legalize.TargetFor("xla-cpu")
	ran := map[string]int{}
	for _, path := range files {
		src, _ := os.ReadFile(path)
		mods, err := stablehlo.Parse(path, src)
		if err != nil {
			continue
		}
		var passes []string
		for _, p := range legalize.Passes {
			switch p.Name {
			case "chlo", "quant", "types", "fixes":
			default:
				continue
			}
			for _, m := range mods {
				if p.Needed(&legalize.State{Module: m, Target: target}) {
					passes = append(passes, p.Name)
					break
				}
			}
		}
		if len(passes) == 0 {
			continue
		}
		if before := native.RunSource(context.Background(), path, src, native.RunOptions{Timeout: time.Minute}); !before.Passed() {
			continue // the native backend fails the program itself
		}
		for _, pass := range passes {
			text, err := legalizedSource(t, path, pass, "dce")
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(path), pass, err)
				continue
			}
			ran[pass]++
			r := native.RunSource(context.Background(), path, []byte(text), native.RunOptions{Timeout: time.Minute})
			if err := r.FirstError(); err != nil {
				t.Errorf("%s: after %s: %v", filepath.Base(path), pass, err)
			}
		}
	}
	t.Logf("files rewritten and run, by pass: %v", ran)
	for _, p := range []string{"chlo", "quant"} {
		if ran[p] == 0 {
			t.Errorf("no file exercised the %s pass", p)
		}
	}
}
