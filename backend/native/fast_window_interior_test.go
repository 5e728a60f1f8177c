package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// poolCase is one reduce_window over the last two dims of an NCHW tensor.
type poolCase struct {
	in                     [4]int64
	kh, kw, sh, sw, dh, dw int64
	pt, pb, pl, pr         int64
	initV                  float32
	fill                   string // "rand", "nan", "zeros", "ties"
}

func (c poolCase) String() string {
	return fmt.Sprintf("in%v k%dx%d s%dx%d d%dx%d pad[%d,%d,%d,%d] init %v %s", c.in, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw, c.pt, c.pb, c.pl, c.pr, c.initV, c.fill)
}

// fillPool writes test values into x: NaNs with distinct payloads (so the
// NaN picked shows), signed zeros and repeated values exercise the
// maximum's tie rules.
func fillPool(r *rand.Rand, x []float32, fill string) {
	for i := range x {
		switch fill {
		case "nan":
			switch r.IntN(7) {
			case 0:
				x[i] = math.Float32frombits(0x7fc00000 | uint32(r.IntN(1<<20)) | uint32(r.IntN(2))<<31)
			case 1:
				x[i] = float32(math.Copysign(0, -1))
			case 2:
				x[i] = 0
			default:
				x[i] = float32(r.NormFloat64())
			}
		case "zeros":
			x[i] = float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
		case "ties":
			x[i] = float32(r.IntN(3) - 1)
		default:
			x[i] = float32(r.NormFloat64())
		}
	}
}

// checkPool compares the fast path with the generic kernel bit for bit.
func checkPool(t *testing.T, r *rand.Rand, c poolCase) {
	t.Helper()
	in := c.in[:]
	win := []int64{1, 1, c.kh, c.kw}
	stride := []int64{1, 1, c.sh, c.sw}
	dil := []int64{1, 1, c.dh, c.dw}
	pad := []int64{0, 0, 0, 0, c.pt, c.pb, c.pl, c.pr}
	var out []int64
	for d := range in {
		span := (win[d]-1)*dil[d] + 1
		n := in[d] + pad[2*d] + pad[2*d+1] - span
		if n < 0 {
			return
		}
		out = append(out, n/stride[d]+1)
	}
	for _, body := range []string{"stablehlo.maximum", "stablehlo.add"} {
		op := poolOp(t, body, in, win, stride, dil, pad, out)
		x, err := literal.New(dtype.F32, in)
		if err != nil {
			t.Fatal(err)
		}
		fillPool(r, f32View(x.Data), c.fill)
		init, _ := literal.New(dtype.F32, nil)
		f32View(init.Data)[0] = c.initV
		if _, ok := fastWindow(nil, op, []Value{x, init}); !ok {
			t.Fatalf("%v %s: fast path not taken", c, body)
		}
		run := func(fast bool) *literal.Literal {
			defer func(old bool) { fastWindowEnabled = old }(fastWindowEnabled)
			fastWindowEnabled = fast
			res, err := kernels["stablehlo.reduce_window"](nil, op, []Value{x, init})
			if err != nil {
				t.Fatal(err)
			}
			return res[0].(*literal.Literal)
		}
		got, want := run(true), run(false)
		if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
			t.Fatalf("%v %s: shape %v, generic kernel %v", c, body, got.Shape, want.Shape)
		}
		g, w := f32View(got.Data), f32View(want.Data)
		for i := range w {
			// Which of two NaNs a float addition returns is the hardware's
			// choice of operand order (on x86 the first source, which the
			// compiler picks), not the fold's; the generic kernel and the
			// fast path make different choices. Maxima pick a NaN by rule.
			if body == "stablehlo.add" && g[i] != g[i] && w[i] != w[i] {
				continue
			}
			if math.Float32bits(g[i]) != math.Float32bits(w[i]) {
				t.Fatalf("%v %s: element %d = %v (%#x), generic kernel %v (%#x)", c, body, i, g[i], math.Float32bits(g[i]), w[i], math.Float32bits(w[i]))
			}
		}
	}
}

func TestFastWindowInteriorMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	negInf := float32(math.Inf(-1))
	nan := math.Float32frombits(0x7fc0beef)
	cases := []poolCase{
		{in: [4]int64{1, 3, 112, 112}, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 1, pb: 1, pl: 1, pr: 1, initV: negInf}, // ResNet stem
		{in: [4]int64{1, 2, 15, 17}, kh: 3, kw: 3, sh: 2, sw: 2, dh: 1, dw: 1, pt: 1, pb: 1, pl: 1, pr: 1, initV: negInf},
		{in: [4]int64{2, 2, 9, 8}, kh: 3, kw: 3, sh: 1, sw: 1, dh: 1, dw: 1, pt: 1, pb: 1, pl: 1, pr: 1},
		{in: [4]int64{1, 2, 10, 11}, kh: 2, kw: 2, sh: 2, sw: 2, dh: 1, dw: 1},
		{in: [4]int64{1, 2, 10, 11}, kh: 2, kw: 2, sh: 1, sw: 1, dh: 1, dw: 1, pb: 1, pr: 1},
		{in: [4]int64{1, 2, 13, 12}, kh: 3, kw: 3, sh: 2, sw: 3, dh: 2, dw: 2, pt: 2, pl: 1, pr: 3},
		{in: [4]int64{1, 2, 13, 12}, kh: 2, kw: 2, sh: 3, sw: 1, dh: 3, dw: 2, pt: 1, pb: 2},
		{in: [4]int64{1, 2, 14, 13}, kh: 4, kw: 5, sh: 1, sw: 2, dh: 1, dw: 1, pt: 2, pb: 2, pl: 2, pr: 2},
		{in: [4]int64{1, 1, 7, 7}, kh: 7, kw: 1, sh: 7, sw: 1, dh: 1, dw: 1}, // ResNet's average pool
		{in: [4]int64{1, 1, 1, 7}, kh: 1, kw: 7, sh: 1, sw: 7, dh: 1, dw: 1},
		{in: [4]int64{1, 2, 3, 3}, kh: 3, kw: 3, sh: 1, sw: 1, dh: 2, dw: 2, pt: 2, pb: 2, pl: 2, pr: 2}, // no interior
		{in: [4]int64{1, 2, 4, 5}, kh: 5, kw: 6, sh: 1, sw: 1, dh: 1, dw: 1, pt: 1, pb: 1, pl: 1, pr: 1}, // window beyond the plane
		{in: [4]int64{1, 1, 1, 1}, kh: 1, kw: 1, sh: 1, sw: 1, dh: 1, dw: 1},
		{in: [4]int64{2, 1, 0, 5}, kh: 1, kw: 2, sh: 1, sw: 1, dh: 1, dw: 1},
	}
	for _, c := range cases {
		for _, fill := range []string{"rand", "nan", "zeros", "ties"} {
			for _, init := range []float32{c.initV, 1.5, float32(math.Copysign(0, -1)), nan} {
				c.fill, c.initV = fill, init
				checkPool(t, r, c)
			}
		}
	}
	// Random windows.
	for k := 0; k < 300; k++ {
		c := poolCase{
			in: [4]int64{1, int64(1 + r.IntN(3)), int64(1 + r.IntN(12)), int64(1 + r.IntN(12))},
			kh: int64(1 + r.IntN(4)), kw: int64(1 + r.IntN(4)), sh: int64(1 + r.IntN(3)), sw: int64(1 + r.IntN(3)),
			dh: int64(1 + r.IntN(2)), dw: int64(1 + r.IntN(2)),
			pt: int64(r.IntN(3)), pb: int64(r.IntN(3)), pl: int64(r.IntN(3)), pr: int64(r.IntN(3)),
			initV: []float32{negInf, 0, 2}[r.IntN(3)],
			fill:  []string{"rand", "nan", "zeros", "ties"}[r.IntN(4)],
		}
		checkPool(t, r, c)
	}
}

func TestInteriorRange(t *testing.T) {
	for n := 0; n < 8; n++ {
		for size := 0; size < 9; size++ {
			for k := 1; k < 4; k++ {
				for s := 1; s < 4; s++ {
					for d := 1; d < 3; d++ {
						for pad := 0; pad < 3; pad++ {
							lo, hi := interiorRange(n, size, k, s, d, pad)
							for o := 0; o < n; o++ {
								first, last := o*s-pad, o*s-pad+(k-1)*d
								inside := first >= 0 && last < size
								if inside != (o >= lo && o < hi) {
									t.Fatalf("n %d size %d k %d s %d d %d pad %d: [%d, %d) but output %d inside=%v", n, size, k, s, d, pad, lo, hi, o, inside)
								}
							}
						}
					}
				}
			}
		}
	}
}
