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
