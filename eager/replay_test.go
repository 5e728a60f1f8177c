package eager

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
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

// TestEagerFusedReplayRandom runs random steps in fused and debug mode and
// compares every buffer after each: a step is a program of ops (add,
// multiply, in-place add of a tensor or a scalar, negation) over views of
// a few buffers and the step's new tensors, repeated with random changes
// (another view, another buffer, another op, a scalar's value, an op left
// out or added, a read in the middle), so that replays run, depart at
// every kind of call and start again.
func TestEagerFusedReplayRandom(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		replayRandom(t, seed)
	}
}

func replayRandom(t *testing.T, seed uint64) {
	const bufs, n = 3, 12
	type view struct{ off, len, step int64 }
	type instr struct {
		op       int // 0 add, 1 mul, 2 add_ tensor, 3 add_ scalar, 4 neg
		a, b     int // operands: < bufs a buffer, else a temporary of this step
		va, vb   view
		scalar   int64
		readHere bool
	}
	// six elements each, so that any two have one shape (the step's
	// temporaries are six contiguous elements too)
	views := []view{{0, 6, 1}, {2, 6, 1}, {0, 6, 2}, {1, 6, 2}, {6, 6, 1}}
	r := rand.New(rand.NewPCG(seed, 8))
	fit := func(v view) view { // within the buffer
		if v.off+(v.len-1)*v.step >= n {
			v.off = 0
		}
		return v
	}
	program := func(size int) []instr {
		p := make([]instr, size)
		for i := range p {
			p[i] = instr{op: r.IntN(5), a: r.IntN(bufs + i), b: r.IntN(bufs + i), va: views[r.IntN(len(views))], vb: views[r.IntN(len(views))], scalar: int64(r.IntN(9) - 4)}
			if p[i].op >= 2 && p[i].op <= 3 {
				p[i].a = r.IntN(bufs) // in place into a buffer
			}
			p[i].vb = p[i].va // same shapes
			if r.IntN(3) == 0 {
				p[i].vb.off = views[r.IntN(len(views))].off
				p[i].vb = fit(p[i].vb)
			}
		}
		return p
	}
	base := program(10)
	steps := make([][]instr, 40)
	for s := range steps {
		p := append([]instr(nil), base...)
		switch r.IntN(12) { // half the steps as the base
		case 0: // another view
			i := r.IntN(len(p))
			p[i].va, p[i].vb = views[r.IntN(len(views))], views[r.IntN(len(views))]
			p[i].vb.len, p[i].vb.step = p[i].va.len, p[i].va.step
			p[i].vb = fit(p[i].vb)
		case 1: // another buffer
			i := r.IntN(len(p))
			p[i].b = r.IntN(bufs)
		case 2: // another op
			i := r.IntN(len(p))
			if p[i].op <= 1 || p[i].op == 4 {
				p[i].op = []int{0, 1, 4}[r.IntN(3)]
			}
		case 3: // a scalar's value
			i := r.IntN(len(p))
			p[i].scalar = int64(r.IntN(9) - 4)
		case 4: // an op left out (its temporary read as a buffer)
			p[len(p)-1].op = 4
			p = p[:len(p)-1]
		case 5: // a read in the middle
			p[r.IntN(len(p))].readHere = true
		}
		steps[s] = p
	}
	var recycled int64 // results computed into memory taken back (bytePool)
	run := func(mode string) ([][]float32, Stats) {
		d := testDevice(t, mode)
		defer func() { recycled = d.pool.recycled() }()
		add := opID(t, d, "aten::add.Tensor")
		mul := opID(t, d, "aten::mul.Tensor")
		addIn := opID(t, d, "aten::add_.Tensor")
		neg := opID(t, d, "aten::neg.default")
		var hs []Handle
		for b := 0; b < bufs; b++ {
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = float32((b*n+i)%7) / 4
			}
			hs = append(hs, upload(t, d, xs))
		}
		var after [][]float32
		for _, p := range steps {
			ts := append([]Handle(nil), hs...)
			words := func(k int, v view) []int64 {
				if k >= len(ts) {
					k = k % len(ts)
				}
				if k >= bufs { // a temporary: contiguous, 6 elements
					return tensorWords(ts[k], 0, []int64{v.len}, []int64{1})
				}
				return tensorWords(ts[k], v.off, []int64{v.len}, []int64{v.step})
			}
			for _, in := range p {
				va, vb := in.va, in.vb
				switch in.op {
				case 0:
					ts = append(ts, Handle(call(t, d, add, append(append(words(in.a, va), words(in.b, vb)...), tagInt, 1))[1]))
				case 1:
					ts = append(ts, Handle(call(t, d, mul, append(words(in.a, va), words(in.b, vb)...))[1]))
				case 2:
					call(t, d, addIn, append(append(words(in.a, va), words(in.b, vb)...), tagInt, 1))
					ts = append(ts, ts[in.a])
				case 3:
					call(t, d, addIn, append(words(in.a, va), tagScalar, 4, 1, in.scalar, 0, tagInt, 1))
					ts = append(ts, ts[in.a])
				case 4:
					ts = append(ts, Handle(call(t, d, neg, words(in.a, va))[1]))
				}
				if in.readHere {
					download(t, d, hs[0], n)
				}
			}
			for _, h := range ts[bufs:] {
				if !slices.Contains(hs, h) && h != 0 {
					Free(h)
					for i := range ts {
						if ts[i] == h {
							ts[i] = 0
						}
					}
				}
			}
			var vals []float32
			for _, h := range hs {
				vals = append(vals, download(t, d, h, n)...)
			}
			after = append(after, vals)
		}
		return after, d.stats
	}
	want, _ := run("debug")
	got, st := run("fused")
	for s := range want {
		for i := range want[s] {
			if math.Float32bits(got[s][i]) != math.Float32bits(want[s][i]) && !(got[s][i] != got[s][i] && want[s][i] != want[s][i]) {
				t.Fatalf("seed %d step %d, element %d: fused %v, debug %v", seed, s, i, got[s], want[s])
			}
		}
	}
	if st.ReplayedOps == 0 {
		t.Errorf("seed %d: no call was replayed (%d blocks)", seed, st.Blocks)
	}
	if recycled == 0 {
		t.Errorf("seed %d: no block computed a result into a buffer's earlier bytes taken back", seed)
	}
	t.Logf("seed %d: %d blocks, %d compiled, %d replayed (%d ops of %d), %d results into recycled memory", seed, st.Blocks, st.BlockCompiles, st.ReplayedBlocks, st.ReplayedOps, st.BlockOps, recycled)
}
