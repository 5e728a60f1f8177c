package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	ms := time.Millisecond
	for _, c := range []struct {
		live, perRun float64
		runCPU       time.Duration
		want         int
	}{
		{50 * mb, 0, 0, 10},              // a tenth of the live heap
		{20 * mb, 0, 0, 20},              // at least 4 MB
		{2 * mb, 0, 0, 100},              // never over 100%
		{50 * mb, 0.5 * mb, 50 * ms, 10}, // 16 runs' garbage is more than a tenth
		{50 * mb, 0.1 * mb, 50 * ms, 3},  // 16 runs' garbage: 1.6 MB
		{50 * mb, 0.1 * mb, 0, 3},        // CPU unknown: 16 runs
		{50 * mb, 0.1 * mb, 5 * ms, 10},  // 50 runs (250 ms of CPU) are more than a tenth
		{50 * mb, 0.01 * mb, 5 * ms, 2},  // 50 runs: 0.5 MB; at least 1 MB
		{3 * mb, 0.15 * mb, 1 * ms, 100}, // a small program: 4 MB, capped at 100%
		{2000 * mb, 1000, 50 * ms, 1},    // never under 1%
		{20 * mb, 19 * mb, 25 * ms, 190}, // two runs' garbage, over 100%
		{200 * mb, 15 * mb, 25 * ms, 15}, // two runs' garbage is more than a tenth
	} {
		if got := gcPercent(c.live, c.perRun, c.runCPU); got != c.want {
			t.Errorf("gcPercent(%.1f MB live, %.2f MB and %v per run) = %d, want %d", c.live/mb, c.perRun/mb, c.runCPU, got, c.want)
		}
	}
}

func TestSettleHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	// 200 MB live: a tenth of it, or 16 runs of 1 MB.
	ballast := make([][]byte, 200)
	for i := range ballast {
		ballast[i] = make([]byte, 1<<20)
	}
	if got := settleHeap(0, 0); got != 10 {
		t.Errorf("200 MB heap: GOGC %d, want 10", got)
	}
	if got := debug.SetGCPercent(100); got != 10 {
		t.Errorf("collector runs at GOGC %d, want 10", got)
	}
	if got := settleHeap(1<<20, 100*time.Millisecond); got != 8 {
		t.Errorf("200 MB heap, 1 MB per run: GOGC %d, want 8", got)
	}
	ballast[0][0] = 1 // live until here
	t.Setenv("GOGC", "50")
	if got := settleHeap(0, 0); got != 0 {
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
