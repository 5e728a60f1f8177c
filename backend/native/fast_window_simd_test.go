package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxRowsMatchesGeneric checks the vector maximum against the generic
// one (maxF32) element by element where no operand is NaN, and that it
// reports every NaN.
func TestMaxRowsMatchesGeneric(t *testing.T) {
	if !simdPool {
		t.Skip("no vector loops on this machine")
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{1, 7, 8, 9, 16, 23, 113} {
		for rep := 0; rep < 200; rep++ {
			a, b := simdTestRow(r, n), simdTestRow(r, n)
			if rep%3 == 0 { // only zeros, equal values and infinities
				for i := range a {
					a[i] = []float32{0, float32(math.Copysign(0, -1)), 1, float32(math.Inf(-1))}[r.IntN(4)]
					b[i] = []float32{0, float32(math.Copysign(0, -1)), 1, float32(math.Inf(-1))}[r.IntN(4)]
				}
			}
			hasNaN := false
			for i := range a {
				hasNaN = hasNaN || a[i] != a[i] || b[i] != b[i]
			}
			d := make([]float32, n)
			if nan := maxRows(d, a, b); nan != hasNaN {
				t.Fatalf("n=%d: reported NaN %v, operands hold one: %v", n, nan, hasNaN)
			}
			for i := range d {
				if a[i] != a[i] || b[i] != b[i] {
					continue
				}
				if want := maxF32(a[i], b[i]); math.Float32bits(d[i]) != math.Float32bits(want) {
					t.Fatalf("n=%d: max(%v, %v) = %v (%#x), generic %v (%#x)", n, a[i], b[i], d[i], math.Float32bits(d[i]), want, math.Float32bits(want))
				}
			}
		}
	}
}

// TestColSums checks the vector column sums against the scalar fold, bit
// for bit (NaN, ±0, ±Inf among the values; init folded first), on widths
// around the vector's sixteen lanes, with the source and destination
// inside larger buffers: a lane read past a row's end would change a
// sum, one written past a plane's outputs would overwrite the guard. In
// each vector form the CPU has (AVX-512, AVX2).
func TestColSums(t *testing.T) {
	if !simdColSums {
		t.Skip("no vector column sums on this machine")
	}
	eachForm(t, &simdWindow512, testColSums)
}

func testColSums(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	specials := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, w := range []int{1, 3, 4, 8, 15, 16, 17, 31, 32, 33, 49} {
		for _, h := range []int{1, 2, 7} {
			planes := 1 + r.IntN(5)
			n := planes * h * w
			src := make([]float32, n+64)
			for i := range src {
				src[i] = float32(r.NormFloat64())
				if r.IntN(9) == 0 {
					src[i] = specials[r.IntN(len(specials))]
				}
			}
			for i := n; i < len(src); i++ {
				src[i] = 1e30 // past the planes: a sum that reads it is wrong
			}
			init := []float32{0, float32(math.Copysign(0, -1)), 0.5}[r.IntN(3)]
			buf := make([]float32, planes*w+32)
			guard := float32(math.Float32frombits(0x7fc0dead))
			for i := range buf {
				buf[i] = guard
			}
			colSums(&src[0], &buf[0], planes, h, w, init)
			for p := 0; p < planes; p++ {
				for x := 0; x < w; x++ {
					want := init
					for y := 0; y < h; y++ {
						want += src[(p*h+y)*w+x]
					}
					got := buf[p*w+x]
					if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
						t.Fatalf("w=%d h=%d plane %d column %d: %v, want %v", w, h, p, x, got, want)
					}
				}
			}
			for i := planes * w; i < len(buf); i++ {
				if math.Float32bits(buf[i]) != math.Float32bits(guard) {
					t.Fatalf("w=%d h=%d: element %d past the outputs written", w, h, i)
				}
			}
		}
	}
}

// TestMax3s2 checks the vector 3×3 stride-2 maxima (max3s2x16 in
// AVX-512, max3s2x8 in AVX2) against the generic fold (maxF32) bit for
// bit on windows without NaN (zeros of both signs, equal values,
// infinities), that they report a NaN tap in any of the 9 positions of any
// lane, and that they write one output per window of each group and no
// more.
func TestMax3s2(t *testing.T) {
	if simdWindow512 {
		t.Run("avx512", func(t *testing.T) { testMax3s2(t, max3s2x16, 16) })
	}
	if !simdPool {
		t.Skip("no AVX2 on this machine")
	}
	t.Run("avx2", func(t *testing.T) { testMax3s2(t, max3s2x8, 8) })
}

func testMax3s2(t *testing.T, kernel func(src *float32, rowStep int, dst *float32, groups int) bool, width int) {
	r := rand.New(rand.NewPCG(45, 46))
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2, float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, groups := range []int{1, 2, 3} {
		w := 2*width*groups + 1 + r.IntN(7)
		for rep := 0; rep < 50; rep++ {
			src := make([]float32, 3*w)
			for i := range src {
				if rep%2 == 0 {
					src[i] = vals[r.IntN(len(vals))]
				} else {
					src[i] = float32(r.NormFloat64())
				}
			}
			dst := make([]float32, width*groups+8)
			guard := float32(math.Float32frombits(0x7fc0beef))
			for i := range dst {
				dst[i] = guard
			}
			if kernel(&src[0], w, &dst[0], groups) {
				t.Fatalf("groups=%d: NaN reported without one", groups)
			}
			for o := 0; o < width*groups; o++ {
				want := float32(math.Inf(-1))
				for y := 0; y < 3; y++ {
					for x := 0; x < 3; x++ {
						want = maxF32(want, src[y*w+2*o+x])
					}
				}
				if math.Float32bits(dst[o]) != math.Float32bits(want) {
					t.Fatalf("groups=%d window %d: %v, want %v", groups, o, dst[o], want)
				}
			}
			for i := width * groups; i < len(dst); i++ {
				if math.Float32bits(dst[i]) != math.Float32bits(guard) {
					t.Fatalf("groups=%d: element %d past the outputs written", groups, i)
				}
			}
			// a NaN in any tap of any window is reported
			o, y, x := r.IntN(width*groups), r.IntN(3), r.IntN(3)
			src[y*w+2*o+x] = float32(math.NaN())
			if !kernel(&src[0], w, &dst[0], groups) {
				t.Fatalf("groups=%d: NaN at window %d tap (%d, %d) not reported", groups, o, y, x)
			}
		}
	}
}
