package native

import (
	"math/rand/v2"
	"testing"
)

// TestLeafRunSeek walks broadcast leaves' runs by steps and jumps and
// checks each position against the division formula.
func TestLeafRunSeek(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for rep := 0; rep < 300; rep++ {
		rank := 1 + r.IntN(4)
		shape := make([]int64, rank)
		st := make([]int64, rank)
		for j := range shape {
			shape[j] = int64(1 + r.IntN(5))
			st[j] = int64(r.IntN(7))
		}
		shape[rank-1] = int64(1 + r.IntN(40))
		n := 1
		for _, d := range shape {
			n *= int(d)
		}
		st[rank-1] = 0
		nd := &fuseNode{cshape: shape, cstrides: st}
		var lr leafRun
		for c := r.IntN(n); c < n; c += 1 + r.IntN([]int{3, 40, 200}[r.IntN(3)]) {
			lr.seek(nd, c)
			inner := int(shape[rank-1])
			q := c / inner
			off := int64(0)
			for j := rank - 2; j >= 0; j-- {
				off += int64(q) % shape[j] * st[j]
				q /= int(shape[j])
			}
			if want := (c/inner + 1) * inner; lr.bound != want || lr.off != off {
				t.Fatalf("shape %v strides %v at %d: run ends %d offset %d, want %d and %d", shape, st, c, lr.bound, lr.off, want, off)
			}
		}
	}
}
