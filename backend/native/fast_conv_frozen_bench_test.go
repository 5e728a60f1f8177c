package native

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// BenchmarkConvFrozen runs convolutions with frozen weights (packed once,
// as an archive's are): ResNet's 3×3 stride-1 layers (the Winograd path;
// TORCHTPU_NATIVE_WINOGRAD=0 for the direct one) and MobileNetV2's
// pointwise layers on small planes. FLUSH=1 writes 32 MB between runs
// (untimed), so that each starts with its operands out of the caches, as
// a layer inside a model meets them more nearly. SPLITW=chans (or rows)
// has two cores write the input before each run (untimed), each its half
// of the channels (or of every channel's positions), as the layer before
// leaves it inside a model.
func BenchmarkConvFrozen(b *testing.B) {
	shapes := []convCase{
		{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 512, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 960, 7, 7, 320, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 320, 7, 7, 1280, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 960, 7, 7, 160, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 576, 14, 14, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 384, 14, 14, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 192, 28, 28, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 32, 112, 112, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 16, 112, 112, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 16, 64, 64, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 144, 56, 56, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 96, 14, 14, 576, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		// MobileNetV2's depthwise layers
		{1, 32, 112, 112, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32},
		{1, 96, 112, 112, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 96},
		{1, 144, 56, 56, 144, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 144},
		{1, 144, 56, 56, 144, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 144},
		{1, 192, 28, 28, 192, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 192},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, cc := range shapes {
		oh, ow := cc.outHW()
		name := fmt.Sprintf("%dx%dx%d-%d", cc.c, cc.h, cc.w, cc.o)
		if cc.g > 1 {
			name = fmt.Sprintf("dw%dx%dx%d-s%d", cc.c, cc.h, cc.w, cc.sh)
		}
		b.Run(name, func(b *testing.B) {
			t := &testing.T{}
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			w.Frozen = true
			c, ok := fastConvShape(cc.op(t), []Value{x, w})
			if !ok {
				b.Fatal("fast path not taken")
			}
			c.weight = true
			dst := make([]float32, cc.b*cc.o*oh*ow)
			flush := make([]float32, 8<<20)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if os.Getenv("SPLITW") != "" {
					b.StopTimer()
					xs := f32View(x.Data)
					per := len(xs) / cc.c
					half := cc.c / 2
					if os.Getenv("SPLITW") == "rows" {
						parallel(2, 2, func(t int) {
							for ch := 0; ch < cc.c; ch++ {
								row := xs[ch*per : (ch+1)*per]
								row = row[t*per/2 : (t+1)*per/2]
								for j := range row {
									row[j] += 0
								}
							}
						})
					} else {
						parallel(2, 2, func(t int) {
							seg := xs[t*half*per : (t+1)*half*per]
							if t == 1 {
								seg = xs[half*per:]
							}
							for j := range seg {
								seg[j] += 0
							}
						})
					}
					b.StartTimer()
				}
				if os.Getenv("FLUSH") == "1" {
					b.StopTimer()
					for j := range flush {
						flush[j]++
					}
					b.StartTimer()
				}
				c.run(dst)
			}
			flops := 2 * float64(cc.b*cc.o*oh*ow) * float64(cc.c/cc.g*cc.kh*cc.kw) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N), "us/op")
		})
	}
}
