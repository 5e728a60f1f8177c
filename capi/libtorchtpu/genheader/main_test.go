package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeaderUpToDate fails when torchtpu.h differs from what the
// generator writes from the library's source.
func TestHeaderUpToDate(t *testing.T) {
	want, err := Generate("..", "../../doc.go")
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../torchtpu.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("capi/libtorchtpu/torchtpu.h is not up to date: run go generate ./capi/...")
	}
}

// TestCClient builds libtorchtpu, compiles testdata/abi.c against the
// checked-in header and runs it on a fixture: a C caller loads, runs and
// misuses the ABI (null, freed and wrong-kind handles, lying descriptors),
// and every misuse is an error message, never a crash.
func TestCClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the shared library")
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gcc is missing")
		}
		t.Skip("no gcc")
	}
	fixture, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "fixtures", "ops", "add_float32_float32.pt2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fixture); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixture missing: %v", err)
		}
		t.Skipf("fixture missing: %v", err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libtorchtpu.so")
	build := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe := filepath.Join(dir, "abi")
	if out, err := exec.Command(cc, "-Wall", "-Werror", "-o", exe, "testdata/abi.c", "-L"+dir, "-ltorchtpu",
		"-Wl,-rpath,"+dir).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(exe, fixture).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("C client: %v\n%s", err, out)
	}
}
