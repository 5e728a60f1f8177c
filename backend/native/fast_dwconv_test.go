package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// dwCases are depthwise and small-group convolutions over kernel sizes,
// strides, paddings (asymmetric too), dilations, channel multipliers,
// batches, odd widths and images smaller than the kernel.
func dwCases(r *rand.Rand) []convCase {
	cases := []convCase{
		{1, 32, 112, 112, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32},  // MobileNet, stride 1
		{1, 144, 56, 56, 144, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 144}, // stride 2
		{2, 8, 17, 33, 16, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 8},      // multiplier 2, 5×5
		{1, 6, 19, 21, 6, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 6},       // ConvNeXt 7×7
		{3, 4, 9, 7, 12, 3, 3, 2, 2, 1, 1, 1, 0, 0, 1, 4},        // asymmetric padding, multiplier 3
		{1, 5, 13, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},        // width 1
		{1, 5, 2, 2, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},         // image smaller than the kernel
		{1, 5, 1, 2, 10, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 5},        // tinier
		{1, 8, 20, 20, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 8},       // dilation
		{2, 12, 15, 40, 12, 3, 5, 2, 3, 2, 1, 0, 3, 4, 1, 3},     // groups of 4, everything asymmetric
		{1, 16, 11, 11, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},     // groups of 2
		{2, 6, 10, 10, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3},       // grouped pointwise
		{1, 3, 40, 70, 3, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 3},       // stride 3
		{2, 8, 128, 128, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},     // few channels, large image: bands
	}
	for i := 0; i < 40; i++ {
		k := []int{1, 3, 5, 7}[r.IntN(4)]
		kerC, g, m := 1+r.IntN(4)*r.IntN(2), 1+r.IntN(12), 1+r.IntN(3)
		if g == 1 {
			g = 2
		}
		cc := convCase{b: 1 + r.IntN(3), c: g * kerC, h: 1 + r.IntN(40), w: []int{1, 2, 7, 17, 33, 40, 65}[r.IntN(7)],
			o: g * m, kh: k, kw: k, sh: 1 + r.IntN(2), sw: 1 + r.IntN(2), dh: 1 + r.IntN(2)*r.IntN(2), dw: 1 + r.IntN(2)*r.IntN(2),
			pt: r.IntN(4), pb: r.IntN(4), pl: r.IntN(4), pr: r.IntN(4), g: g}
		if oh, ow := cc.outHW(); cc.h+cc.pt+cc.pb < (cc.kh-1)*cc.dh+1 || cc.w+cc.pl+cc.pr < (cc.kw-1)*cc.dw+1 || oh < 1 || ow < 1 {
			continue
		}
		cases = append(cases, cc)
	}
	return cases
}

func TestFastDWConvMatchesExact(t *testing.T) {
	defer func(old bool) { dwSIMD = old }(dwSIMD)
	defer func(old bool) { dwc16Enabled = old }(dwc16Enabled)
	defer func(old bool) { dwWideEnabled = old }(dwWideEnabled)
	for _, simd := range []bool{true, false} {
		if simd && !dwSIMDOK {
			continue
		}
		dwSIMD = simd
		dwc16Enabled = simd && dwc16OK // the channel vectors, or the rows in Go
		dwWideEnabled = simd && dwWideOK
		for _, procs := range []int{1, 4} {
			t.Run(fmt.Sprintf("simd=%v/procs=%d", simd, procs), func(t *testing.T) {
				old := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(old)
				r := rand.New(rand.NewPCG(21, uint64(procs)))
				cases := dwCases(r)
				for _, cc := range cases {
					if c, ok := fastConvShape(cc.op(t), []Value{
						randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w)),
						randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw)),
					}); !ok || !c.direct {
						t.Fatalf("%+v: direct path not taken", cc)
					}
				}
				checkFastConv(t, r, cases)
			})
		}
	}
}

// TestFastDWConvNonFinite feeds NaN and ±Inf through the direct path: they
// must land where the exact kernel puts them.
func TestFastDWConvNonFinite(t *testing.T) {
	defer func(old bool) { dwSIMD = old }(dwSIMD)
	r := rand.New(rand.NewPCG(23, 24))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, simd := range []bool{true, false} {
		if simd && !dwSIMDOK {
			continue
		}
		dwSIMD = simd
		for _, cc := range []convCase{
			{1, 4, 9, 37, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
			{2, 6, 12, 11, 12, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 6},
			{1, 4, 12, 15, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4}, // flat bands
		} {
			op := cc.op(t)
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			for i := 0; i < 6; i++ {
				x.SetFloat64(r.IntN(x.Len()), specials[r.IntN(3)])
			}
			got, want := runConv(t, op, x, w, true), runConv(t, op, x, w, false)
			for i := 0; i < want.Len(); i++ {
				g, e := got.Float64(i), want.Float64(i)
				switch {
				case math.IsNaN(e) || math.IsNaN(g):
					if math.IsNaN(e) != math.IsNaN(g) {
						t.Fatalf("simd=%v %+v: element %d = %v, exact kernel %v", simd, cc, i, g, e)
					}
				case math.IsInf(e, 0) || math.IsInf(g, 0):
					if g != e {
						t.Fatalf("simd=%v %+v: element %d = %v, exact kernel %v", simd, cc, i, g, e)
					}
				case math.Abs(g-e) > 1e-5*(1+math.Abs(e)):
					t.Fatalf("simd=%v %+v: element %d = %v, exact kernel %v", simd, cc, i, g, e)
				}
			}
		}
	}
}

// TestFastDWConvSIMDMatchesGo: the vector kernel sums in the Go loop's
// order, with fused multiply-adds where Go rounds twice.
func TestFastDWConvSIMDMatchesGo(t *testing.T) {
	if !dwSIMDOK {
		t.Skip("no vector kernel")
	}
	defer func(old bool) { dwSIMD = old }(dwSIMD)
	defer func(old bool) { dwc16Enabled = old }(dwc16Enabled)
	defer func(old bool) { dwWideEnabled = old }(dwWideEnabled)
	dwc16Enabled, dwWideEnabled = false, false // the row kernel, vector and Go
	r := rand.New(rand.NewPCG(25, 26))
	for _, cc := range dwCases(r) {
		op := cc.op(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		dwSIMD = true
		a := runConv(t, op, x, w, true)
		dwSIMD = false
		b := runConv(t, op, x, w, true)
		k := float64(cc.c / cc.g * cc.kh * cc.kw)
		for i := 0; i < a.Len(); i++ {
			if g, e := a.Float64(i), b.Float64(i); math.Abs(g-e) > 2e-6*math.Sqrt(k)*(1+math.Abs(e)) {
				t.Fatalf("%+v: element %d = %v, Go loop %v", cc, i, g, e)
			}
		}
	}
}

// TestFastDWConvDeclines: shapes outside the direct path go to the GEMM
// or the exact kernel, and bad ones do not panic.
func TestFastDWConvDeclines(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, cc := range []convCase{
		{1, 40, 10, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8}, // 5 channels per group
		{1, 8, 10, 10, 160, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8}, // multiplier 20
		{1, 16, 20, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // no groups
	} {
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		if c, ok := fastConvShape(cc.op(t), []Value{x, w}); ok && c.direct {
			t.Fatalf("%+v: direct path taken", cc)
		}
	}
	// kernel operand of the wrong shape: declined, and the exact kernel errs
	cc := convCase{1, 8, 10, 10, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8}
	op := cc.op(t)
	x := randF32Literal(t, r, 1, 8, 10, 10)
	for _, w := range [][]int64{{8, 2, 3, 3}, {8, 1, 2, 3}, {7, 1, 3, 3}} {
		wl := randF32Literal(t, r, w...)
		if _, ok := fastConvShape(op, []Value{x, wl}); ok {
			t.Fatalf("kernel %v: fast path taken", w)
		}
	}
}

// BenchmarkFastDWConv runs MobileNet-style depthwise convolutions and
// reports GFLOP/s (2 per multiply-add).
func BenchmarkFastDWConv(b *testing.B) {
	shapes := []convCase{
		{1, 32, 112, 112, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32},
		{1, 96, 112, 112, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 96},
		{1, 144, 56, 56, 144, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 144},
		{1, 144, 56, 56, 144, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 144},
		{1, 384, 14, 14, 384, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 384},
		{1, 960, 7, 7, 960, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 960},
		{1, 96, 56, 56, 96, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 96},
		{8, 32, 112, 112, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32},
		// MobileNetV3-Large at 128×128
		{1, 64, 64, 64, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 64},
		{1, 16, 64, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
		{1, 80, 32, 32, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 80},
		{1, 960, 4, 4, 960, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 960},
		{1, 672, 8, 8, 672, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 672},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, cc := range shapes {
		oh, ow := cc.outHW()
		name := fmt.Sprintf("b%d/%dx%dx%d/k%d/s%d", cc.b, cc.c, cc.h, cc.w, cc.kh, cc.sh)
		b.Run(name, func(b *testing.B) {
			t := &testing.T{}
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			c, ok := fastConvShape(cc.op(t), []Value{x, w})
			if !ok {
				b.Fatal("fast path not taken")
			}
			dst := make([]float32, cc.b*cc.o*oh*ow)
			b.ResetTimer()
			t0 := benchCPU()
			for i := 0; i < b.N; i++ {
				c.run(dst)
			}
			flops := 2 * float64(cc.b*cc.o*oh*ow) * float64(cc.c/cc.g*cc.kh*cc.kw) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
			if cpu := benchCPU() - t0; t0 > 0 && cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e3, "cpu-us/op")
			}
		})
	}
}
