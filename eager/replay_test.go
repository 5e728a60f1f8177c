package eager

import (
	"context"
	"testing"
)

// TestEagerFusedReplay runs the same step again and again in fused mode
// with departures from it, and compares with debug mode: a scalar whose
// value changes (replayed: a value, not structure), an op inserted in the
// middle (a new block), the same words on other buffers (y + y for
// y + x: equal words but for a handle, other slots), and a read halfway
// (an early flush), the step's last op left out (the block ends before
// the recorded one with the same results), and another view in one op
// (a structural word). Replay must give debug mode's values and the blocks
// recording alone gives.
func TestEagerFusedReplay(t *testing.T) {
	const (
		plain = iota
		extraOp
		sameWordsOtherSlots
		readHalfway
		dropLast
		otherView
	)
	rounds := []int{plain, plain, plain, plain, extraOp, plain, plain, plain, sameWordsOtherSlots, plain, plain, plain, readHalfway, plain, plain, plain, dropLast, plain, plain, plain, otherView, plain, plain, plain}
	vec := func(h Handle) []int64 { return tensorWords(h, 0, []int64{6}, []int64{1}) }
	run := func(mode string) ([]float32, Stats) {
		d := testDevice(t, mode)
		x := upload(t, d, []float32{0, 1, 2, 3, 4, 5})
		add := opID(t, d, "aten::add.Tensor")
		addIn := opID(t, d, "aten::add_.Tensor")
		neg := opID(t, d, "aten::neg.default")
		for r, kind := range rounds {
			// y = x + x; y[1:3] += s (s a Python number, other each round)
			y := Handle(call(t, d, add, append(append(vec(x), vec(x)...), tagInt, 1))[1])
			// (y[2:4] in one step: the same op on another view)
			off := int64(1)
			if kind == otherView {
				off = 2
			}
			call(t, d, addIn, append(tensorWords(y, off, []int64{2}, []int64{1}), tagScalar, 4, 1, int64(10*(r+1)), 0, tagInt, 1))
			if kind == readHalfway {
				download(t, d, y, 6)
			}
			if kind == extraOp {
				Free(Handle(call(t, d, neg, vec(y))[1]))
			}
			// w = y + x (y + y: the same words but for a handle)
			other := x
			if kind == sameWordsOtherSlots {
				other = y
			}
			w := Handle(call(t, d, add, append(append(vec(y), vec(other)...), tagInt, 1))[1])
			// x[::2] += w[::2]; x[1::2] += w[1::2] (not in the last step
			// of a kind: then the block ends early with the same results)
			call(t, d, addIn, append(append(tensorWords(x, 0, []int64{3}, []int64{2}), tensorWords(w, 0, []int64{3}, []int64{2})...), tagInt, 1))
			if kind != dropLast {
				call(t, d, addIn, append(append(tensorWords(x, 1, []int64{3}, []int64{2}), tensorWords(w, 1, []int64{3}, []int64{2})...), tagInt, 1))
			}
			Free(y)
			Free(w)
			if err := d.Synchronize(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return download(t, d, x, 6), d.stats
	}
	want, _ := run("debug")
	got, st := run("fused")
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fused %v, debug %v", got, want)
		}
	}
	// Blocks: the step, the step with the extra op, the step with y + y,
	// the two halves of the step read halfway, the step without its last
	// op, the step with another view.
	if st.BlockCompiles != 7 {
		t.Errorf("%d blocks compiled, want 7", st.BlockCompiles)
	}
	// A block replays the one that followed its predecessor last time:
	// the plain steps from the third of a run of them (rounds 3, 4, 8,
	// 12, 16, 20 and 24); after a departure the prediction takes two
	// steps to come back to the plain step.
	if st.ReplayedBlocks != 7 {
		t.Errorf("replayed %d blocks, want 7", st.ReplayedBlocks)
	}
	t.Logf("blocks %d, compiled %d, replayed %d (%d ops of %d)", st.Blocks, st.BlockCompiles, st.ReplayedBlocks, st.ReplayedOps, st.BlockOps)
}
