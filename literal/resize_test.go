package literal

import (
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
)

func TestResizePadsAndCuts(t *testing.T) {
	l, _ := New(dtype.I32, []int64{2, 3})
	for i := 0; i < 6; i++ {
		l.SetInt64(i, int64(i+1))
	}
	p, err := Resize(l, []int64{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0, 0}
	for i, w := range want {
		if p.Int64(i) != w {
			t.Fatalf("padded element %d = %d, want %d", i, p.Int64(i), w)
		}
	}
	c, err := Resize(p, []int64{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if c.Int64(i) != int64(i+1) {
			t.Fatalf("cut back element %d = %d", i, c.Int64(i))
		}
	}
	if _, err := Resize(l, []int64{6}); err == nil {
		t.Fatal("a resize to another rank gave no error")
	}
	z, err := Resize(l, []int64{0, 3})
	if err != nil || z.Len() != 0 {
		t.Fatalf("resize to an empty shape: %v, %v", z, err)
	}
}
