package native

import (
	"fmt"
	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestDWC16MatchesRows runs the depthwise cases (odd widths, strides,
// paddings, dilations, batches, channel counts that leave a partial block
// of sixteen) on the channel-vector path and on the row kernel, with NaN
// and ±Inf in some inputs, on one and several threads, in each vector form
// the CPU has (AVX-512, AVX2).
func TestDWC16MatchesRows(t *testing.T) {
	if !dwc16OK {
		t.Skip("no channel-vector kernel")
	}
	eachForm(t, &dwc512, testDWC16MatchesRows)
}

// eachForm runs f in each vector form the CPU has: the AVX-512 one where
// *wide (a kernel family's AVX-512 switch) is set, then the AVX2 one, with
// *wide switched off until f returns.
func eachForm(t *testing.T, wide *bool, f func(*testing.T)) {
	if *wide {
		t.Run("avx512", f)
		*wide = false
		defer func() { *wide = true }()
	}
	t.Run("avx2", f)
}

func testDWC16MatchesRows(t *testing.T) {
	defer func(old bool) { dwc16Enabled = old }(dwc16Enabled)
	defer func(old bool) { dwWideEnabled = old }(dwWideEnabled)
	dwWideEnabled = false // the wide rows' cases too
	r := rand.New(rand.NewPCG(41, 42))
	cases := append(dwCases(r),
		convCase{1, 1152, 4, 4, 1152, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1152},
		convCase{2, 37, 7, 9, 37, 3, 3, 2, 2, 1, 1, 1, 0, 1, 2, 37},
		convCase{1, 17, 1, 1, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17},
		convCase{1, 20, 13, 31, 20, 7, 7, 1, 2, 2, 1, 3, 3, 6, 1, 20})
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	took := 0
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for i, cc := range cases {
			op := cc.op(t)
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			if i%3 == 0 {
				for j := 0; j < 3; j++ {
					x.SetFloat64(r.IntN(x.Len()), specials[r.IntN(3)])
				}
			}
			dwc16Enabled = true
			c, ok := fastConvShape(op, []Value{x, w})
			if !ok || !c.direct || !c.useC16() {
				continue
			}
			took++
			poisonScratch()
			got := runConv(t, op, x, w, true)
			dwc16Enabled = false
			want := runConv(t, op, x, w, true)
			k := float64(cc.kh * cc.kw)
			for e := 0; e < want.Len(); e++ {
				g, v := got.Float64(e), want.Float64(e)
				bad := math.IsNaN(g) != math.IsNaN(v) || (math.IsInf(v, 0) && g != v) ||
					(!math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(g-v) > 2e-6*math.Sqrt(k)*(1+math.Abs(v)))
				if bad {
					t.Fatalf("procs=%d %+v: element %d = %v, row kernel %v", procs, cc, e, g, v)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	if took < 20 {
		t.Fatalf("the channel-vector path took %d cases, want at least 20", took)
	}
	t.Log(fmt.Sprintf("%d cases on the channel-vector path", took))
}

// poisonScratch fills the scratch buffers the kernels take
// (gemm.GetBuffer) with NaN, so that a kernel reading scratch it did not
// write (padding it took for cleared) fails its test.
func poisonScratch() {
	var held [][]float32
	for n := 256; n <= 1<<20; n *= 4 {
		b := gemm.GetBuffer(n)
		b = b[:cap(b)]
		for i := range b {
			b[i] = float32(math.NaN())
		}
		held = append(held, b)
	}
	for _, b := range held {
		gemm.PutBuffer(b)
	}
}

// TestTranspose16 checks transpose16 element by element against the
// definition, for every rows × cols up to 16 × 16, with the even and odd
// destination rows split (dst2) or not, and a destination walked
// backwards (a negative stride): written lanes hold the source, all else
// keeps its sentinel. In each vector form the CPU has.
func TestTranspose16(t *testing.T) {
	if !dwc16OK {
		t.Skip("no transposes")
	}
	check := func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		const sstride, dstride = 21, 19 // floats
		src := make([]float32, 16*sstride)
		for i := range src {
			src[i] = float32(r.NormFloat64())
		}
		sentinel := float32(-12345)
		for rows := 1; rows <= 16; rows++ {
			for cols := 1; cols <= 16; cols++ {
				for mode := 0; mode < 3; mode++ { // plain, split, backwards
					d1, d2 := make([]float32, 17*dstride), make([]float32, 17*dstride)
					for i := range d1 {
						d1[i], d2[i] = sentinel, sentinel
					}
					at := func(j int) []float32 { return d1[j*dstride:] } // destination row j
					switch mode {
					case 0:
						transpose16(&d1[0], 4*dstride, &src[0], 4*sstride, rows, cols, nil)
					case 1:
						transpose16(&d1[0], 4*dstride, &src[0], 4*sstride, rows, cols, &d2[0])
						at = func(j int) []float32 {
							if j%2 == 1 {
								return d2[j/2*dstride:]
							}
							return d1[j/2*dstride:]
						}
					case 2:
						transpose16(&d1[16*dstride], -4*dstride, &src[0], 4*sstride, rows, cols, nil)
						at = func(j int) []float32 { return d1[(16-j)*dstride:] }
					}
					written := 0
					for j := 0; j < cols; j++ {
						row := at(j)
						for i := 0; i < 16; i++ {
							want := sentinel
							if i < rows {
								want, written = src[i*sstride+j], written+1
							}
							if row[i] != want {
								t.Fatalf("rows=%d cols=%d mode %d: dst[%d][%d] = %v, want %v", rows, cols, mode, j, i, row[i], want)
							}
						}
					}
					left := 0
					for _, d := range [][]float32{d1, d2} {
						for _, v := range d {
							if v != sentinel {
								left++
							}
						}
					}
					if left != written {
						t.Fatalf("rows=%d cols=%d mode %d: %d elements written, want %d", rows, cols, mode, left, written)
					}
				}
			}
		}
	}
	eachForm(t, &dwc512, check)
}
