package native

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestSplitK runs projections on small planes (runSplitK): against the
// exact kernel on one and four cores, with odd channel counts (a second
// half that is not a whole number of vectors, partial micro-panels) and
// planes of one to a few hundred positions; the bits must not depend on
// the cores.
func TestSplitK(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := []convCase{
		{1, 384, 14, 14, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // MobileNetV2's projection
		{1, 960, 7, 7, 320, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 150, 9, 11, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // odd halves (80 + 70), partial panels
		{1, 64, 16, 16, 31, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // the narrowest k it takes, 256 columns
		{1, 200, 1, 3, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // three positions
	}
	for _, cc := range cases {
		op := cc.op(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c), 1, 1)
		c, ok := fastConvShape(op, []Value{x, w})
		if !ok || !c.useSplitK(true, cc.c, cc.o, cc.h*cc.w) {
			t.Fatalf("%+v: split-k path not taken", cc)
		}
		var first []byte
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			checkFastConv(t, r, []convCase{cc})
			got := runConv(t, op, x, w, true)
			runtime.GOMAXPROCS(old)
			if first == nil {
				first = got.Data
			} else if !bytes.Equal(first, got.Data) {
				t.Fatalf("%+v: bits differ between one and four cores", cc)
			}
		}
	}
	// not taken: expansions, large planes, strides
	for _, cc := range []convCase{
		{1, 64, 14, 14, 384, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 384, 28, 28, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
	} {
		op := cc.op(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c), 1, 1)
		if c, ok := fastConvShape(op, []Value{x, w}); !ok || c.useSplitK(true, cc.c, cc.o, cc.h*cc.w) {
			t.Fatalf("%+v: split-k path taken", cc)
		}
	}
}
