package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestDirectConvMatchesGEMM runs stem-like convolutions (few input
// channels, windows larger than 1×1, outputs at least 16 wide) on the
// direct path and on the implicit GEMM: odd output channels and widths,
// strides, dilation, asymmetric padding, a batch, NaN and infinities, one
// and three threads.
func TestDirectConvMatchesGEMM(t *testing.T) {
	if !convDirectOK {
		t.Skip("no direct tile")
	}
	defer func(old bool) { convDirectEnabled = old }(convDirectEnabled)
	defer func(old convTileFunc) { convTile = old }(convTile)
	for form, tile := range convTileForms {
		convTile = tile
		t.Run(fmt.Sprintf("form%d", form), testDirectConvMatchesGEMM)
	}
}

func testDirectConvMatchesGEMM(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	cases := []convCase{
		{1, 3, 64, 64, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // MobileNet's stem
		{1, 3, 75, 77, 33, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},  // ResNet's, odd sizes
		{2, 4, 40, 37, 15, 3, 3, 1, 1, 1, 1, 1, 0, 2, 1, 1},  // batch 2, asymmetric
		{1, 2, 50, 70, 20, 5, 3, 3, 2, 2, 1, 2, 2, 0, 3, 1},  // stride 3×2, dilation
		{1, 17, 20, 20, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // k = 153
		{1, 1, 40, 100, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // one channel, few outputs
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	took := 0
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for i, cc := range cases {
			op := cc.op(t)
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			if i%2 == 1 {
				for j := 0; j < 3; j++ {
					x.SetFloat64(r.IntN(x.Len()), specials[j])
				}
			}
			convDirectEnabled = true
			c, ok := fastConvShape(op, []Value{x, w})
			if !ok || c.direct || c.small || !c.useDirectConv() {
				t.Fatalf("%+v: not on the direct path", cc)
			}
			took++
			got := runConv(t, op, x, w, true)
			convDirectEnabled = false
			want := runConv(t, op, x, w, true)
			name := fmt.Sprintf("procs=%d %+v", procs, cc)
			k := float64(cc.c * cc.kh * cc.kw)
			for e := 0; e < want.Len(); e++ {
				g, v := got.Float64(e), want.Float64(e)
				if math.IsNaN(g) != math.IsNaN(v) || (math.IsInf(v, 0) && g != v) ||
					(!math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(g-v) > 2e-6*math.Sqrt(k)*(1+math.Abs(v))) {
					t.Fatalf("%s: element %d = %v, GEMM %v", name, e, g, v)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestTNConvMatchesGEMM runs convolutions with few output positions
// (7×7, 5×5 and 3×3 images, a batch of two; pointwise expansions and
// projections) on the transposed path and on the implicit GEMM, weights
// as entry arguments (packed once), NaN and infinities in the input; on
// one core and on three (the moves around the product split over them).
func TestTNConvMatchesGEMM(t *testing.T) {
	if !dwc512 {
		t.Skip("no transposes")
	}
	defer func(old bool) { convTNEnabled = old }(convTNEnabled)
	r := rand.New(rand.NewPCG(53, 54))
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		checkTNConv(t, r)
		runtime.GOMAXPROCS(old)
	}
}

func checkTNConv(t *testing.T, r *rand.Rand) {
	t.Helper()
	for _, cc := range []convCase{
		{1, 64, 7, 7, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // ResNet's 7×7 layers, smaller
		{1, 40, 14, 14, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stride 2 down to 7×7
		{1, 320, 7, 7, 1280, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // MobileNet's 1×1 on 7×7
		{2, 33, 5, 5, 47, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // batch 2, odd channels
		{1, 50, 9, 9, 40, 3, 3, 3, 3, 1, 1, 0, 2, 1, 0, 1},    // 3×3 output, asymmetric padding
		// pointwise projections: the input read in place, column-major
		{1, 960, 7, 7, 160, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // MobileNetV2's on 7×7
		{2, 143, 5, 5, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // batch 2, odd input channels
	} {
		e := compileModule(t, cc.module(t))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		w.Frozen = true // weights as an archive's are: packed once (unfrozen, the path declines)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		x.SetFloat64(3, math.NaN())
		x.SetFloat64(x.Len()-5, math.Inf(1))
		convTNEnabled = true
		c, ok := fastConvShape(cc.op(t), []Value{x, w})
		c.weight = true
		if !ok || c.direct || c.small || !c.useTN() {
			t.Fatalf("%+v: not on the transposed path", cc)
		}
		for run := 0; run < 2; run++ {
			convTNEnabled = true
			before := convTNRuns.Load()
			got := runExe(t, e, x, w)[0]
			if convTNRuns.Load() == before {
				t.Fatalf("%+v: the transposed path did not run", cc)
			}
			convTNEnabled = false
			want := runExe(t, e, x, w)[0]
			k := float64(cc.c * cc.kh * cc.kw)
			for i := 0; i < want.Len(); i++ {
				g, v := got.Float64(i), want.Float64(i)
				if math.IsNaN(g) != math.IsNaN(v) || (math.IsInf(v, 0) && g != v) ||
					(!math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(g-v) > 2e-6*math.Sqrt(k)*(1+math.Abs(v))) {
					t.Fatalf("%+v run %d: element %d = %v, GEMM %v", cc, run, i, g, v)
				}
			}
		}
	}
}
