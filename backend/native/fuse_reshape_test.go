package native

import (
	"slices"
	"testing"
)

// TestRestride checks the strides a broadcast keeps across a reshape
// against reading the elements one by one: the source offset of every
// element of the reshaped view is the one of the same element (in
// row-major order) of the original view, or restride reports false.
func TestRestride(t *testing.T) {
	cases := []struct {
		from, st, to []int64
		ok           bool
	}{
		{[]int64{24, 256}, []int64{0, 1}, []int64{2, 12, 256}, true}, // a bias over tokens
		{[]int64{6, 4}, []int64{4, 1}, []int64{24}, true},
		{[]int64{6, 4}, []int64{4, 1}, []int64{2, 3, 4}, true},
		{[]int64{4, 6}, []int64{1, 0}, []int64{24}, false}, // a per-row value repeated inside the merged run
		{[]int64{4, 6}, []int64{1, 0}, []int64{4, 2, 3}, true},
		{[]int64{1, 8, 1, 3}, []int64{5, 3, 9, 1}, []int64{24}, true},
		{[]int64{2, 3, 4}, []int64{0, 4, 1}, []int64{6, 4}, false},
		{[]int64{2, 3, 4}, []int64{12, 0, 1}, []int64{2, 1, 3, 2, 2}, true},
		{[]int64{12}, []int64{1}, []int64{1, 3, 1, 4, 1}, true},
	}
	offsets := func(shape, st []int64) []int64 {
		n := elemCount(shape)
		out := make([]int64, n)
		for i := range out {
			rem, off := int64(i), int64(0)
			for d := len(shape) - 1; d >= 0; d-- {
				off += rem % shape[d] * st[d]
				rem /= shape[d]
			}
			out[i] = off
		}
		return out
	}
	for _, c := range cases {
		got, ok := restride(c.from, c.st, c.to)
		if ok != c.ok {
			t.Fatalf("restride(%v, %v, %v): ok %v, want %v", c.from, c.st, c.to, ok, c.ok)
		}
		if !ok {
			continue
		}
		if want, have := offsets(c.from, c.st), offsets(c.to, got); !slices.Equal(want, have) {
			t.Fatalf("restride(%v, %v, %v) = %v: offsets %v, want %v", c.from, c.st, c.to, got, have, want)
		}
	}
}
