package literal

import (
	"bytes"
	"math/rand"
	"testing"
)

// refOffsets lists the byte offset of every element of a strided layout
// in row-major order: what gather reads and scatter writes, one by one.
func refOffsets(offset int64, shape, strides []int64, size int64) []int64 {
	var offs []int64
	idx := make([]int64, len(shape))
	n := int64(1)
	for _, e := range shape {
		n *= e
	}
	for k := int64(0); k < n; k++ {
		off := offset
		for i := range shape {
			off += idx[i] * strides[i]
		}
		offs = append(offs, off*size)
		for i := len(shape) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return offs
}

// TestStridedCopyMatchesElementwise checks Gather and Scatter against an
// element-by-element copy on random layouts: permuted dims, slices, steps,
// offsets, broadcast (stride 0) dims, unit dims, high ranks, every element
// size, and memory not aligned to the element.
func TestStridedCopyMatchesElementwise(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for iter := 0; iter < 2000; iter++ {
		rank := rng.Intn(5)
		if iter%100 == 0 {
			rank = 17 + rng.Intn(3) // past the index array kept on the stack
		}
		shape := make([]int64, rank)
		for i := range shape {
			shape[i] = int64(1 + rng.Intn(5))
			if rank > 4 {
				shape[i] = int64(1 + rng.Intn(2))
			}
			if rng.Intn(12) == 0 {
				shape[i] = 0
			}
		}
		// strides of a permuted, padded row-major box, some steps and
		// some broadcast dims
		perm := rng.Perm(rank)
		strides := make([]int64, rank)
		st := int64(1 + rng.Intn(2))
		for _, d := range perm {
			strides[d] = st
			st *= shape[d] + int64(rng.Intn(2))
			if st == 0 {
				st = 1
			}
		}
		broadcast := false
		for i := range strides {
			if rng.Intn(8) == 0 {
				strides[i], broadcast = 0, true
			}
		}
		size := []int64{1, 2, 4, 8}[rng.Intn(4)]
		offset := int64(rng.Intn(4))
		offs := refOffsets(offset, shape, strides, size)
		var extent int64
		for _, o := range offs {
			extent = max(extent, o+size)
		}
		shift := int64(rng.Intn(3)) // misaligns the memory for some sizes
		mem := make([]byte, extent+shift)
		rng.Read(mem)
		store := mem[shift:]
		n := int64(len(offs))

		got := make([]byte, n*size)
		Gather(got, store, offset, shape, strides, size)
		want := make([]byte, n*size)
		for k, o := range offs {
			copy(want[int64(k)*size:], store[o:o+size])
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("gather %v strides %v size %d: got %v, want %v", shape, strides, size, got, want)
		}
		if broadcast {
			continue // a scatter through a broadcast dim writes one place many times
		}
		src := make([]byte, n*size)
		rng.Read(src)
		gotS := append([]byte(nil), store...)
		Scatter(gotS, src, offset, shape, strides, size)
		wantS := append([]byte(nil), store...)
		for k, o := range offs {
			copy(wantS[o:o+size], src[int64(k)*size:(int64(k)+1)*size])
		}
		if !bytes.Equal(gotS, wantS) {
			t.Fatalf("scatter %v strides %v size %d: memory differs", shape, strides, size)
		}
	}
}
