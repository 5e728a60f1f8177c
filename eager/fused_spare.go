package eager

// The memory a fused block computes its small results into
// (fusedBlock.spare and lent): see fusedBlock.

// spareMaxBytes bounds the results a block computes into its own memory.
// A spare is memory the device's count (memory_allocated) does not see,
// held for as long as the block is cached: worth it where allocating is
// a run's cost (small tensors), not for a large model's parameters.
const spareMaxBytes = 256 << 10

// dests returns the memory the block's run computes its results into:
// each small result's spare, made when it has none (nil for the others:
// the run allocates them).
func (blk *fusedBlock) dests(nb []int64) [][]byte {
	if blk.spare == nil {
		blk.spare, blk.lent = make([][]byte, len(nb)), make([][]byte, len(nb))
	}
	for k, n := range nb {
		if n <= spareMaxBytes && int64(len(blk.spare[k])) != n {
			blk.spare[k] = make([]byte, n)
		}
	}
	return blk.spare
}

// ran takes stock of result k after a run stored data in its buffer in
// place of old: when data is the spare, the spare is lent to the buffer,
// and old becomes the spare if it is the slice lent before (the buffer
// was updated in place). It reports whether old came back so: the next
// run computes result k into it, with no new memory.
func (blk *fusedBlock) ran(k int, old, data []byte) bool {
	back := sameSlice(old, blk.lent[k])
	if !sameSlice(data, blk.spare[k]) {
		if back {
			blk.lent[k] = nil // the buffer no longer holds it; not needed
		}
		return false
	}
	blk.lent[k], blk.spare[k] = blk.spare[k], nil
	if back {
		blk.spare[k] = old
	}
	return back
}

// sameSlice reports whether a and b are the same non-empty memory.
func sameSlice(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}
