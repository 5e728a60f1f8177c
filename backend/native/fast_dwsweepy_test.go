package native

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestDWSweepYMatchesRows runs 3×3 depthwise convolutions at strides 1
// and 2 through the AVX2 sweep kernels: rows of one vector or less, whole
// vectors, a partial last vector; paddings 0 to 3 on each side (vectors
// whose loads are all outside the row, rows of padding only), images
// lower than the window, heights that leave 1 to 3 rows after the blocks
// of four, batches, NaN and ±Inf in inputs and weights, one and three
// threads. The results must be the row kernel's bit for bit (both sum the
// taps in order from zero, padding included, by fused multiply-adds).
func TestDWSweepYMatchesRows(t *testing.T) {
	if !dwSweepYOK || !dwSIMDOK {
		t.Skip("no AVX2 sweep kernel")
	}
	defer func(a, b, c, d, e bool, m int) {
		dwSweepYEnabled, dwFlatYEnabled, dwWideEnabled, dwc16Enabled, dwc512, dwSweepYMinCols = a, b, c, d, e, m
	}(dwSweepYEnabled, dwFlatYEnabled, dwWideEnabled, dwc16Enabled, dwc512, dwSweepYMinCols)
	dwFlatYEnabled, dwWideEnabled, dwc16Enabled, dwc512, dwSweepYMinCols = false, false, false, false, 1
	r := rand.New(rand.NewPCG(61, 62))
	cases := []convCase{
		{1, 32, 112, 112, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32}, // MobileNetV2's first
		{1, 24, 112, 112, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 24}, // its stride 2
		{1, 20, 56, 56, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 20},   // 28 columns: a partial last vector
		{1, 8, 112, 112, 8, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 8},    // TF-style padding
		{2, 5, 9, 16, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},       // two vectors, batch 2
		{1, 5, 7, 17, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},       // one lane past them
		{1, 3, 2, 40, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},       // an image lower than the window
		{1, 3, 12, 34, 3, 3, 3, 2, 2, 1, 1, 0, 2, 3, 3, 3},      // padding past the window
		{3, 33, 18, 21, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 33},   // batch 3, 33 channels
		{1, 6, 15, 41, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6},      // odd sizes
		{1, 4, 5, 3, 4, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 4},        // a row narrower than the padding
	}
	for i := 0; i < 40; i++ {
		s := 1 + r.IntN(2)
		cc := convCase{b: 1 + r.IntN(2), c: 2 + r.IntN(20), h: 1 + r.IntN(30), w: 1 + r.IntN(80),
			kh: 3, kw: 3, sh: s, sw: s, dh: 1, dw: 1,
			pt: r.IntN(4), pb: r.IntN(4), pl: r.IntN(4), pr: r.IntN(4)}
		cc.o, cc.g = cc.c, cc.c
		if oh, ow := cc.outHW(); cc.h+cc.pt+cc.pb < 3 || cc.w+cc.pl+cc.pr < 3 || ow < 1 || oh < 1 {
			continue
		}
		cases = append(cases, cc)
	}
	took := matchRowKernel(t, r, cases, func(on bool) { dwSweepYEnabled = on }, (*conv2d).useSweepY)
	t.Logf("%d cases on the AVX2 sweep", took)
}

// matchRowKernel runs each depthwise case on one and three threads with
// a path switched on (enable(true); taken must then report it takes the
// case) and off, with NaN and ±Inf in a third of the cases' inputs and
// weights, and fails unless the two give the same bits (NaNs of either
// sign alike). It returns how many runs the path took.
func matchRowKernel(t *testing.T, r *rand.Rand, cases []convCase, enable func(bool), taken func(*conv2d) bool) int {
	t.Helper()
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	took := 0
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for i, cc := range cases {
			op := cc.op(t)
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), 1, int64(cc.kh), int64(cc.kw))
			if i%3 == 0 {
				for j := 0; j < 4; j++ {
					x.SetFloat64(r.IntN(x.Len()), specials[r.IntN(3)])
				}
				w.SetFloat64(r.IntN(w.Len()), specials[r.IntN(3)])
			}
			enable(true)
			c, ok := fastConvShape(op, []Value{x, w})
			if !ok || !c.direct || !taken(c) {
				runtime.GOMAXPROCS(old)
				t.Fatalf("%+v: the path is not taken", cc)
			}
			took++
			got := runConv(t, op, x, w, true)
			enable(false)
			want := runConv(t, op, x, w, true)
			for e := 0; e < want.Len(); e++ {
				g, v := got.Float64(e), want.Float64(e)
				if math.IsNaN(g) != math.IsNaN(v) || !math.IsNaN(v) && math.Float64bits(g) != math.Float64bits(v) {
					runtime.GOMAXPROCS(old)
					t.Fatalf("procs=%d %+v: element %d = %v, row kernel %v", procs, cc, e, g, v)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	return took
}
