package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkPool2d compares, on one thread, ResNet's stem max pool (3×3,
// stride 2, padding 1 over 64×112×112) and a 2×2 average pool computed
// per output by the generic fold (what the fast path did for every
// output before interiors were split off) and by plane.
func BenchmarkPool2d(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		p    pool2d
	}{
		{"max3x3s2", pool2d{planes: 64, h: 112, w: 112, oh: 56, ow: 56, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 1, pl: 1, max: true, init: float32(math.Inf(-1))}},
		{"avg2x2s2", pool2d{planes: 64, h: 112, w: 112, oh: 56, ow: 56, kh: 2, kw: 2, sh: 2, sw: 2, dh: 1, dw: 1}},
	} {
		p := tc.p
		src := make([]float32, p.planes*p.h*p.w)
		fillPool(r, src, "rand")
		dst := make([]float32, p.planes*p.oh*p.ow)
		b.Run(tc.name+"/fold", func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			defer reportCPU(b, benchCPU())
			for i := 0; i < b.N; i++ {
				for pl := 0; pl < p.planes; pl++ {
					s, d := src[pl*p.h*p.w:(pl+1)*p.h*p.w], dst[pl*p.oh*p.ow:(pl+1)*p.oh*p.ow]
					for oy := 0; oy < p.oh; oy++ {
						for ox := 0; ox < p.ow; ox++ {
							d[oy*p.ow+ox] = p.fold(s, oy, ox)
						}
					}
				}
			}
		})
		for _, vec := range []bool{false, true} {
			name := tc.name + "/plane"
			var buf []float32
			if vec {
				if !p.max || !simdPool {
					continue
				}
				name += "-vector"
				buf = make([]float32, 2*p.w)
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(4 * len(src)))
				defer reportCPU(b, benchCPU())
				for i := 0; i < b.N; i++ {
					for pl := 0; pl < p.planes; pl++ {
						p.plane(src[pl*p.h*p.w:(pl+1)*p.h*p.w], dst[pl*p.oh*p.ow:(pl+1)*p.oh*p.ow], buf)
					}
				}
			})
		}
	}
}
