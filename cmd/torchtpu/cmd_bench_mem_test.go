package main

import (
	"runtime/debug"
	"testing"
)

func TestSettleHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	// The test binary's live heap is a few MB: the 16 MB floor keeps the
	// default growth of 100%.
	if got := settleHeap(); got != 100 {
		t.Errorf("small heap: GOGC %d, want 100", got)
	}
	// 200 MB live: a quarter of it is above the floor.
	ballast := make([][]byte, 200)
	for i := range ballast {
		ballast[i] = make([]byte, 1<<20)
	}
	if got := settleHeap(); got != 25 {
		t.Errorf("200 MB heap: GOGC %d, want 25", got)
	}
	if got := debug.SetGCPercent(100); got != 25 {
		t.Errorf("collector runs at GOGC %d, want 25", got)
	}
	ballast[0][0] = 1 // live until here
	t.Setenv("GOGC", "50")
	if got := settleHeap(); got != 0 {
		t.Errorf("with GOGC set: settleHeap set %d, want it left alone", got)
	}
}
