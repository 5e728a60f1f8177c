package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestSettleHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	// The test binary's live heap is a few MB at most: the 4 MB floor
	// keeps the default growth of 100%.
	if got := settleHeap(); got != 100 {
		t.Errorf("small heap: GOGC %d, want 100", got)
	}
	// 200 MB live: a tenth of it is above the floor.
	ballast := make([][]byte, 200)
	for i := range ballast {
		ballast[i] = make([]byte, 1<<20)
	}
	if got := settleHeap(); got != 10 {
		t.Errorf("200 MB heap: GOGC %d, want 10", got)
	}
	if got := debug.SetGCPercent(100); got != 10 {
		t.Errorf("collector runs at GOGC %d, want 10", got)
	}
	ballast[0][0] = 1 // live until here
	t.Setenv("GOGC", "50")
	if got := settleHeap(); got != 0 {
		t.Errorf("with GOGC set: settleHeap set %d, want it left alone", got)
	}
}

func TestBenchMemProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.out")
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), []string{"bench", "../../examples/mlp.pt2", "--runs", "1", "--warmup", "0", "--memprofile", path}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof profiles are gzipped protobufs
		t.Errorf("%s is not a pprof profile (%d bytes)", path, len(b))
	}
	if !strings.Contains(out.String(), "Go heap") {
		t.Errorf("bench output lacks the heap line:\n%s", out.String())
	}
}
