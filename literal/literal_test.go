package literal

import (
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

func TestNewRefusesAbsurdShapes(t *testing.T) {
	for _, shape := range [][]int64{{-1}, {1 << 40, 1 << 40}, {1 << 20, 1 << 20, 1 << 10}} {
		if _, err := New(dtype.F32, shape); err == nil {
			t.Errorf("New(%v) accepted", shape)
		}
	}
	if _, err := New(dtype.F32, []int64{MaxBytes/4 + 1}); err == nil {
		t.Error("a tensor over MaxBytes was allocated")
	}
	l, err := New(dtype.BF16, []int64{2, 3})
	if err != nil || len(l.Data) != 12 || l.Len() != 6 {
		t.Fatalf("New(bf16[2,3]) = %v, %v", l, err)
	}
}

func TestFromBytesChecksLength(t *testing.T) {
	if _, err := FromBytes(dtype.I32, []int64{3}, make([]byte, 11)); err == nil {
		t.Error("short data accepted")
	}
}
