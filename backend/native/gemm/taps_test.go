package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestStripTaps checks StripA.MulTaps against a float64 convolution over
// windows of 1×1 to 5×5 with padding on any side, dilation, fewer output
// rows than the image's, stride 2 from phase planes, channels not a
// multiple of 8 (a stem's 3), a last strip of 8 rows, vector ranges, NaN and
// Inf in the image, and that nothing outside the rows and positions asked
// for is written.
func TestStripTaps(t *testing.T) {
	if !hasStrips {
		t.Skip("no strip kernels on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 8))
	type geom struct{ h, w, kh, kw, dh, dw, pt, pb, pl, s int }
	for _, gc := range []geom{
		{9, 7, 3, 3, 1, 1, 1, 1, 1, 1}, {14, 14, 3, 3, 1, 1, 1, 1, 1, 1}, {5, 21, 1, 3, 1, 1, 0, 0, 1, 1},
		{11, 6, 5, 5, 1, 1, 2, 2, 2, 1}, {10, 10, 3, 3, 2, 2, 2, 2, 2, 1}, {8, 5, 3, 3, 1, 1, 0, 0, 1, 1}, // last: OH = 6 < H
		{4, 4, 3, 3, 1, 1, 1, 1, 1, 1}, {1, 33, 1, 1, 1, 1, 0, 0, 0, 1},
		{8, 8, 3, 3, 1, 1, 1, 1, 1, 2}, {14, 10, 3, 3, 1, 1, 1, 1, 1, 2}, {12, 12, 1, 1, 1, 1, 0, 0, 0, 2}, // stride 2: phase planes
		{12, 8, 5, 5, 1, 1, 2, 2, 2, 2}, {6, 6, 4, 4, 1, 1, 1, 1, 1, 2},
	} {
		var g ConvGeom
		if gc.s == 1 {
			pr := (gc.kw-1)*gc.dw - gc.pl // output rows as wide as the image's
			oh := gc.h + gc.pt + gc.pb - (gc.kh-1)*gc.dh
			g = ConvGeom{H: gc.h, W: gc.w, KH: gc.kh, KW: gc.kw, SH: 1, SW: 1, DH: gc.dh, DW: gc.dw, PadT: gc.pt, PadL: gc.pl, OH: oh, OW: gc.w + gc.pl + pr - (gc.kw-1)*gc.dw}
		} else {
			g = ConvGeom{H: gc.h, W: gc.w, KH: gc.kh, KW: gc.kw, SH: 2, SW: 2, DH: 1, DW: 1, PadT: gc.pt, PadL: gc.pl, OH: gc.h / 2, OW: gc.w / 2}
		}
		oh := g.OH
		tt := g.Taps()
		if tt == nil {
			t.Fatalf("%+v: no tap table", gc)
		}
		for _, cm := range [][2]int{{8, 16}, {16, 24}, {24, 40}, {3, 16}, {5, 24}} { // 3 and 5: a channel per step
			ch, m := cm[0], cm[1]
			taps, n := gc.kh*gc.kw, oh*g.OW
			x := randMat(r, ch*gc.h*gc.w)
			if (ch+m)%3 == 0 {
				x[gc.w+1] = float32(math.NaN())
				x[len(x)-2] = float32(math.Inf(-1))
			}
			img := x
			if tt.Phased() { // per channel, the planes of (row, column) parity
				img = make([]float32, len(x))
				hw, ph, pw := gc.h*gc.w, gc.h/2, gc.w/2
				for c := 0; c < ch; c++ {
					for iy := 0; iy < gc.h; iy++ {
						for ix := 0; ix < gc.w; ix++ {
							img[c*hw+(2*(iy%2)+ix%2)*ph*pw+iy/2*pw+ix/2] = x[c*hw+iy*gc.w+ix]
						}
					}
				}
			}
			w := randMat(r, m*ch*taps) // [m][ch][kh][kw]
			a := make([]float32, m*taps*ch)
			for o := 0; o < m; o++ {
				for c := 0; c < ch; c++ {
					for tp := 0; tp < taps; tp++ {
						a[o*taps*ch+tp*ch+c] = w[(o*ch+c)*taps+tp]
					}
				}
			}
			sa := NewStripA(m, taps*ch, RowMajor(a, taps*ch))
			for _, vr := range [][2]int{{0, tt.Vectors()}, {tt.Vectors() / 2, tt.Vectors() - tt.Vectors()/2}} {
				for _, sr := range [][2]int{{0, sa.Strips()}, {sa.Strips() - 1, sa.Strips()}} {
					if vr[1] == 0 {
						continue
					}
					name := fmt.Sprintf("%+v/c%d/m%d/v%v/s%v", gc, ch, m, vr, sr)
					ldc := n + 5
					out := make([]float32, m*ldc)
					for i := range out {
						out[i] = -7
					}
					sa.MulTaps(sr[0], sr[1], img, tt, out, ldc, vr[0], vr[1])
					q0, q1 := 16*vr[0], min(16*(vr[0]+vr[1]), n)
					for o := 0; o < m; o++ {
						for q := 0; q < ldc; q++ {
							got := out[o*ldc+q]
							if o < 16*sr[0] || o >= min(16*sr[1], m) || q < q0 || q >= q1 {
								if got != -7 {
									t.Fatalf("%s: C[%d][%d] = %v written", name, o, q, got)
								}
								continue
							}
							oy, ox := q/g.OW, q%g.OW
							var ref float64
							for c := 0; c < ch; c++ {
								for ky := 0; ky < gc.kh; ky++ {
									for kx := 0; kx < gc.kw; kx++ {
										iy, ix := gc.s*oy+ky*gc.dh-gc.pt, gc.s*ox+kx*gc.dw-gc.pl
										if iy >= 0 && iy < gc.h && ix >= 0 && ix < gc.w {
											ref += float64(w[((o*ch+c)*gc.kh+ky)*gc.kw+kx]) * float64(x[(c*gc.h+iy)*gc.w+ix])
										}
									}
								}
							}
							if math.IsNaN(ref) != math.IsNaN(float64(got)) || !math.IsNaN(ref) && math.Abs(float64(got)-ref) > 1e-4*(1+math.Abs(ref)) && !(math.IsInf(ref, 0) && float64(got) == ref) {
								t.Fatalf("%s: C[%d][%d] = %v, float64 %v", name, o, q, got, ref)
							}
						}
					}
				}
			}
			sa.Release()
		}
	}
	for _, g := range []ConvGeom{
		{H: 7, W: 8, KH: 3, KW: 3, SH: 2, SW: 2, DH: 1, DW: 1, PadT: 1, PadL: 1, OH: 4, OW: 4}, // odd height
		{H: 8, W: 8, KH: 3, KW: 3, SH: 2, SW: 2, DH: 2, DW: 2, PadT: 2, PadL: 2, OH: 4, OW: 4}, // dilated
		{H: 9, W: 9, KH: 3, KW: 3, SH: 3, SW: 3, DH: 1, DW: 1, PadT: 1, PadL: 1, OH: 3, OW: 3}, // stride 3
		{H: 8, W: 8, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1, PadT: 0, PadL: 0, OH: 6, OW: 6}, // rows narrower
	} {
		if g.Taps() != nil {
			t.Errorf("%+v: a tap table", g)
		}
	}
}
