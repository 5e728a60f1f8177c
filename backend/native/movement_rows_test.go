package native

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
)

// Copies of 1-, 2-, 4- and 8-byte elements with short innermost rows
// (rowsOf, but for 2 bytes: reverses,
// transposes that keep short runs, broadcasts) against the element-by-
// element definition, on random shapes and views of the source:
// permuted, reversed and repeated dims, sizes on both sides of the
// parallel split.
func TestCopyShortRows(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for c := 0; c < 600; c++ {
		esz := []int64{4, 8, 1, 2}[c%4]
		rank := 1 + rng.Intn(4)
		shape := make([]int64, rank)
		for i := range shape {
			shape[i] = 1 + int64(rng.Intn(12))
		}
		if c%50 < 4 {
			shape[0] = 3000 // over copyParMin: split across the pool
		}
		// src: a dense buffer of a permutation of shape, read through
		// the permutation with some dims reversed or broadcast
		perm := rng.Perm(rank)
		srcShape := make([]int64, rank)
		for i, p := range perm {
			srcShape[p] = shape[i]
		}
		ss := literal.Strides(srcShape)
		srcStr := make([]int64, rank)
		off := int64(0)
		for i, p := range perm {
			srcStr[i] = ss[p]
			switch rng.Intn(4) {
			case 0: // reversed
				off += (shape[i] - 1) * srcStr[i]
				srcStr[i] = -srcStr[i]
			case 1: // broadcast
				srcStr[i] = 0
			}
		}
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		src := make([]byte, esz*n)
		rng.Read(src)
		got := make([]byte, esz*n)
		newCopyPlan(int(esz), shape, literal.Strides(shape), srcStr).run(got, 0, src, off)
		want := make([]byte, esz*n)
		ds := literal.Strides(shape)
		mvEach(shape, func(idx []int64) {
			d, s := int64(0), off
			for i, v := range idx {
				d += v * ds[i]
				s += v * srcStr[i]
			}
			copy(want[esz*d:esz*d+esz], src[esz*s:esz*s+esz])
		})
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: %d-byte elements, shape %v, src strides %v (offset %d): copy differs", c, esz, shape, srcStr, off)
		}
	}
}
