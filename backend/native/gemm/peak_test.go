package gemm

import (
	"testing"
	"time"
)

func TestPeakFMA(t *testing.T) {
	g, ok := PeakFMA(20 * time.Millisecond)
	if ok != hasPeakFMA() {
		t.Fatalf("PeakFMA reports %v, the loop's presence is %v", ok, hasPeakFMA())
	}
	if ok && !(g > 0) {
		t.Fatalf("PeakFMA = %v GFLOP/s, want a positive rate", g)
	}
}
