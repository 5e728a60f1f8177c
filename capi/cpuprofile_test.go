package capi

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "engine.pprof")
	if _, err := CPUProfileStop(); err == nil || !strings.Contains(err.Error(), "no CPU profile is running") {
		t.Fatalf("stop before start: %v", err)
	}
	if err := CPUProfileStart(path); err != nil {
		t.Fatal(err)
	}
	err := CPUProfileStart(filepath.Join(dir, "second.pprof"))
	if err == nil || !strings.Contains(err.Error(), "already running into "+path) {
		t.Fatalf("second start: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "second.pprof")); err == nil {
		t.Fatal("a refused start created its file")
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	got, err := CPUProfileStop()
	if err != nil || got != path {
		t.Fatalf("stop: %q, %v", got, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Fatalf("the profile is not gzip: % x", b[:min(len(b), 8)])
	}
	if _, err := CPUProfileStop(); err == nil {
		t.Fatal("second stop succeeded")
	}
	// a profile can be taken again once stopped
	if err := CPUProfileStart(path); err != nil {
		t.Fatal(err)
	}
	if _, err := CPUProfileStop(); err != nil {
		t.Fatal(err)
	}
}

func TestCPUProfileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "p.pprof")
	err := CPUProfileStart(missing)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("start into a missing folder: %v", err)
	}
	if err := CPUProfileStart(""); err == nil {
		t.Fatal("start with an empty path succeeded")
	}
	// a profile started by other Go code of the process
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.pprof")
	err = CPUProfileStart(path)
	pprof.StopCPUProfile()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("start while another profile runs: %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a refused start left its file")
	}
	if _, err := CPUProfileStop(); err == nil {
		t.Fatal("stop after a refused start succeeded")
	}
}
