package native

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestDWWideMatchesRows runs depthwise convolutions on wide rows (16
// output columns and more: one vector, several, a partial last one) over
// strides 1 and 2 horizontally and 1 to 3 vertically, kernels 1×1 to 7×7
// and 3×5, paddings up to beyond the kernel (all-padding rows and columns),
// images lower than the kernel, batches and partial runs of 16 channels,
// with NaN and ±Inf in inputs and weights, on one and three threads, with
// the sweep kernels (3×3 and 5×5 at strides 1 and 2) and without: the
// wide-row path must give the row kernel's results bit for bit (both sum
// the taps in order from zero, padding included, by fused multiply-adds).
func TestDWWideMatchesRows(t *testing.T) {
	if !dwWideOK || !dwSIMDOK {
		t.Skip("no wide-row kernel")
	}
	defer func(old bool) { dwWideEnabled = old }(dwWideEnabled)
	defer func(old bool) { dwc16Enabled = old }(dwc16Enabled)
	defer func(old int) { dwWideMinCols = old }(dwWideMinCols)
	dwc16Enabled, dwWideMinCols = false, 16
	r := rand.New(rand.NewPCG(51, 52))
	cases := []convCase{
		{1, 16, 64, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16}, // MobileNetV3's first
		{1, 64, 64, 64, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 64}, // stride 2
		{1, 20, 32, 32, 20, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 20}, // 5×5, a partial run
		{2, 3, 33, 47, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3},    // stride 2, odd width
		{1, 5, 9, 16, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},     // one vector
		{1, 5, 7, 17, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},     // one lane past a vector
		{1, 4, 6, 40, 4, 7, 7, 3, 1, 1, 1, 3, 3, 3, 3, 4},     // 7×7, vertical stride 3
		{1, 4, 3, 50, 4, 5, 3, 1, 1, 1, 1, 4, 4, 1, 1, 4},     // image lower than the kernel, rows of padding only
		{1, 3, 12, 34, 3, 3, 5, 2, 2, 1, 1, 0, 2, 5, 4, 3},    // asymmetric, padding past the kernel
		{1, 2, 8, 31, 2, 1, 1, 1, 2, 1, 1, 0, 0, 0, 0, 2},     // 1×1, stride 2
		{3, 33, 18, 21, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 33}, // batch 3, 33 channels
		{1, 8, 112, 112, 8, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 8},  // TF-style padding
	}
	for i := 0; i < 30; i++ {
		k := []int{1, 3, 5, 7}[r.IntN(4)]
		sw := 1 + r.IntN(2)
		cc := convCase{b: 1 + r.IntN(2), c: 1 + r.IntN(20), h: 1 + r.IntN(24), w: 16*sw + r.IntN(60),
			kh: k, kw: k, sh: 1 + r.IntN(3), sw: sw, dh: 1, dw: 1,
			pt: r.IntN(k + 1), pb: r.IntN(k + 1), pl: r.IntN(k + 1), pr: r.IntN(k + 1)}
		cc.o, cc.g = cc.c, cc.c
		if oh, ow := cc.outHW(); cc.h+cc.pt+cc.pb < cc.kh || ow < 16 || oh < 1 {
			continue
		}
		cases = append(cases, cc)
	}
	cases = append(cases,
		convCase{2, 7, 20, 37, 7, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 7}, // sweep 5×5 stride 2
		convCase{1, 5, 13, 16, 5, 3, 3, 1, 1, 1, 1, 0, 2, 1, 1, 5}, // sweep 3×3, asymmetric padding
		convCase{1, 6, 15, 41, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6}, // sweep 3×3 stride 2, odd sizes
		convCase{1, 4, 30, 19, 4, 5, 5, 1, 1, 1, 1, 4, 0, 3, 1, 4}, // sweep 5×5, padding past the middle
		convCase{1, 3, 2, 40, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 3})  // sweep, an image lower than the window
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	took, swept := 0, 0
	defer func(old bool) { dwSweepEnabled = old }(dwSweepEnabled)
	for _, run := range []struct {
		procs int
		sweep bool // the sweep kernels where they apply, or the row-by-row ones
	}{{1, true}, {3, true}, {1, false}, {3, false}} {
		procs := run.procs
		dwSweepEnabled = run.sweep && dwWideOK

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
			dwWideEnabled = true
			c, ok := fastConvShape(op, []Value{x, w})
			if !ok || !c.direct || !c.useWide() {
				t.Fatalf("%+v: the wide-row path not taken", cc)
			}
			took++
			if c.dwSweepKernel() != nil {
				swept++
			}
			got := runConv(t, op, x, w, true)
			dwWideEnabled = false
			want := runConv(t, op, x, w, true)
			for e := 0; e < want.Len(); e++ {
				g, v := got.Float64(e), want.Float64(e)
				if math.IsNaN(g) != math.IsNaN(v) || !math.IsNaN(v) && math.Float64bits(g) != math.Float64bits(v) {
					t.Fatalf("procs=%d %+v: element %d = %v, row kernel %v", procs, cc, e, g, v)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	if dwWideOK && swept < 20 {
		t.Fatalf("%d cases on the sweep kernels, want at least 20", swept)
	}
	t.Logf("%d cases on the wide-row path, %d of them swept", took, swept)
}

// TestDWWideAllocs: a wide-row depthwise convolution's work items reuse
// their kernel arguments and row tables (dwWideScratch), and a call's
// conv2d goes back for the next (release): made per item, the scratch
// was ~1 KB for each of the 32 items here.
func TestDWWideAllocs(t *testing.T) {
	if !dwWideOK || !dwSIMDOK {
		t.Skip("no wide-row kernel")
	}
	r := rand.New(rand.NewPCG(53, 54))
	cc := convCase{8, 64, 32, 32, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64}
	x := randF32Literal(t, r, 8, 64, 32, 32)
	w := randF32Literal(t, r, 64, 1, 3, 3)
	in := []Value{x, w}
	op := cc.op(t)
	oh, ow := cc.outHW()
	dst := make([]float32, 8*64*oh*ow)
	call := func() {
		c, ok := fastConvShape(op, in)
		if !ok || !c.useWide() {
			t.Fatal("the wide-row path is not taken")
		}
		c.runWide(dst)
		c.release()
	}
	call()
	if n := testing.AllocsPerRun(20, call); n > 12 {
		t.Fatalf("%.0f allocations per call, want at most 12 (32 work items)", n)
	}
}
