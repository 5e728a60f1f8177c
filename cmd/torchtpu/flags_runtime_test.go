package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets a test run the CLI in a child process (the test binary
// itself, with TORCHTPU_CLI_CHILD=1), and keeps the tests' compile cache
// out of the user's cache folder.
func TestMain(m *testing.M) {
	if os.Getenv("TORCHTPU_CLI_CHILD") == "1" {
		os.Exit(dispatch(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv("TORCHTPU_CACHE_DIR") == "" {
		dir, err := os.MkdirTemp("", "torchtpu-test-cache")
		if err == nil {
			os.Setenv("TORCHTPU_CACHE_DIR", dir)
			defer os.RemoveAll(dir)
		}
	}
	code := m.Run()
	if dir := os.Getenv("TORCHTPU_CACHE_DIR"); strings.Contains(dir, "torchtpu-test-cache") {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// child runs the CLI in a new process.
func child(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TORCHTPU_CLI_CHILD=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("start child: %v", err)
	}
	return code, out.String(), errb.String()
}

func readMetrics(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("metrics %s: %v", path, err)
	}
	return m
}

// TestDiskCacheAcrossProcesses: a second process finds the compiled
// program in the disk cache (compiles: 0); after the entries are
// corrupted, the next process warns, recompiles and still verifies.
func TestDiskCacheAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	verify := func(tag string) (map[string]any, string) {
		metrics := filepath.Join(dir, tag+".json")
		code, out, errs := child(t, "verify", example, "--io", "../../examples/mlp.io.safetensors",
			"--cache-dir", cacheDir, "--metrics", metrics, "--trace", filepath.Join(dir, tag+".trace.json"), "-v")
		if code != 0 || !strings.Contains(out, "PASS") {
			t.Fatalf("%s: verify exit %d\n%s%s", tag, code, out, errs)
		}
		return readMetrics(t, metrics), errs
	}
	m1, _ := verify("first")
	for _, k := range []string{"compiles", "compile_ms", "cache_hits", "cache_misses", "fallbacks", "recompiles", "segments", "runs"} {
		if _, ok := m1[k]; !ok {
			t.Errorf("metrics lack %q: %v", k, m1)
		}
	}
	if m1["compiles"].(float64) < 1 {
		t.Fatalf("first process: compiles %v, want at least 1", m1["compiles"])
	}
	m2, errs2 := verify("second")
	if m2["compiles"].(float64) != 0 || m2["cache_hits"].(float64) < 1 {
		t.Fatalf("second process: compiles %v, cache hits %v, want 0 and >= 1\n%s", m2["compiles"], m2["cache_hits"], errs2)
	}
	t.Logf("first: compiles %v; second: compiles %v, cache hits %v", m1["compiles"], m2["compiles"], m2["cache_hits"])

	// Flip a payload byte, then (after the rewrite) truncate: each time
	// the next process warns, recompiles and still verifies.
	for _, mode := range []string{"flipped", "truncated"} {
		entries, _ := filepath.Glob(filepath.Join(cacheDir, "*", "*.bin"))
		if len(entries) == 0 {
			t.Fatal("no cache entries written")
		}
		for _, e := range entries {
			b, err := os.ReadFile(e)
			if err != nil {
				t.Fatal(err)
			}
			if mode == "flipped" {
				b[len(b)-1] ^= 0xff
			} else {
				b = b[:len(b)/2]
			}
			if err := os.WriteFile(e, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m3, errs3 := verify(mode)
		if !strings.Contains(errs3, "warning: cache entry") || !strings.Contains(errs3, "corrupt") {
			t.Errorf("%s: no warning naming the corrupt entry:\n%s", mode, errs3)
		}
		if m3["compiles"].(float64) < 1 || m3["corrupt_entries"].(float64) < 1 {
			t.Errorf("%s: compiles %v, corrupt entries %v", mode, m3["compiles"], m3["corrupt_entries"])
		}
		t.Logf("%s entries: compiles %v; stderr: %s", mode, m3["compiles"], strings.TrimSpace(errs3))
	}

	// The trace holds lower, compile and execute events.
	b, err := os.ReadFile(filepath.Join(dir, "first.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct{ Cat string } `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	cats := map[string]bool{}
	for _, e := range tr.TraceEvents {
		cats[e.Cat] = true
	}
	for _, c := range []string{"lower", "compile", "execute", "run"} {
		if !cats[c] {
			t.Errorf("trace has no %q event (%v)", c, cats)
		}
	}
}

// TestFallbackError: --fallback=error fails a program with a host op,
// naming it; the default runs it on the host and counts it.
func TestFallbackPolicy(t *testing.T) {
	model := "../../runtime/testdata/oracle/nonzero_then_compute"
	if _, err := os.Stat(model + ".pt2"); err != nil {
		t.Fatalf("%s.pt2 missing", model)
	}
	metrics := filepath.Join(t.TempDir(), "m.json")
	code, out, errs := runCLI(t, "verify", model+".pt2", "--io", model+".io.safetensors", "--metrics", metrics, "--no-cache")
	if code != 0 {
		t.Fatalf("verify: %d\n%s%s", code, out, errs)
	}
	m := readMetrics(t, metrics)
	if fb, _ := m["fallbacks"].(map[string]any); len(fb) == 0 {
		t.Errorf("no fallbacks counted: %v", m["fallbacks"])
	}
	code, out, errs = runCLI(t, "verify", model+".pt2", "--io", model+".io.safetensors", "--fallback=error")
	if code == 0 || !strings.Contains(errs+out, "nonzero") {
		t.Errorf("--fallback=error: exit %d\n%s%s", code, out, errs)
	}
}
