// Package pjrttest builds the fake PJRT plugin (backend/pjrt/testdata/
// fake_plugin.c) for tests in any package: a plugin that creates clients,
// compiles any module into an executable echoing its arguments, and is
// steered by FAKE_PJRT_* environment variables (see the C file).
package pjrttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BuildFake compiles the fake plugin into a fresh shared library named
// name in a temporary folder and returns its path (one file per call: a
// loaded library stays loaded for the process). It skips the test when
// there is no gcc, except on CI.
func BuildFake(t testing.TB, name string) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gcc is needed to build the fake PJRT plugin")
		}
		t.Skip("no gcc")
	}
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("pjrttest: cannot locate the fake plugin source")
	}
	dir := filepath.Dir(filepath.Dir(self)) // backend/pjrt
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(cc, "-shared", "-fPIC", "-pthread", "-O1",
		"-I"+filepath.Join(dir, "include"), "-o", out, filepath.Join(dir, "testdata", "fake_plugin.c"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build fake plugin: %v\n%s", err, b)
	}
	return out
}

// CallLog points the fake plugin's call log (FAKE_PJRT_LOG) at a fresh
// file and returns a function counting its lines equal to what
// ("client_create", "compile", "execute", "deserialize", ...).
func CallLog(t testing.TB) func(what string) int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.log")
	t.Setenv("FAKE_PJRT_LOG", path)
	return func(what string) int {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			if l == what {
				n++
			}
		}
		return n
	}
}
