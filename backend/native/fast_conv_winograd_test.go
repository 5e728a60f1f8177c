package native

import (
	"bytes"
	"context"
	"fmt"
	"math"
	mrand "math/rand"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// sameF32 reports whether a and b are the same float32, NaNs of any
// payload counting as equal.
func sameF32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

// randSpecial returns a normal value, or one time in ten an infinity, a
// NaN, a zero of either sign or a huge value.
func randSpecial(r *rand.Rand) float32 {
	if r.IntN(10) != 0 {
		return float32(r.NormFloat64())
	}
	return []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)), 3e38}[r.IntN(6)]
}

// TestWinoKernelsMatchGo compares the vector transforms with their Go
// definitions bit for bit, over values with infinities and NaNs, several
// channels, both output row counts and every output column count, and
// checks that the output transform stores nothing past its columns.
func TestWinoKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for it := 0; it < 200; it++ {
		n := 1 + r.IntN(4)
		row := 18 + r.IntN(20)     // floats per padded row
		plane := 4*row + r.IntN(9) // floats per channel's rows
		src := make([]float32, n*plane)
		for i := range src {
			src[i] = randSpecial(r)
		}
		cs := 16 * (1 + r.IntN(2))   // the panels' width
		xs := n*cs + 8 + 8*r.IntN(3) // floats per ξ
		got, want := make([]float32, 16*xs), make([]float32, 16*xs)
		for _, d := range [][]float32{got, want} {
			for i := range d {
				d[i] = -7
			}
		}
		a := winoInArgs{dst: &got[0], src: &src[0], n: n, plane: 4 * plane, row: 4 * row, xs: 4 * xs, cs: 4 * cs}
		winoIn8(&a)
		a.dst = &want[0]
		winoIn8Go(&a)
		for i := range got {
			if !sameF32(got[i], want[i]) {
				t.Fatalf("winoIn8 #%d (n=%d row=%d cs=%d xs=%d): element %d = %v, want %v", it, n, row, cs, xs, i, got[i], want[i])
			}
		}

		step := 8 + 8*r.IntN(3) // floats from one channel's products to the next
		mxs := n*step + 8*r.IntN(2)
		m := make([]float32, 16*mxs)
		for i := range m {
			m[i] = randSpecial(r)
		}
		rows, cols := 1+r.IntN(2), 1+r.IntN(16)
		ld := 16 + r.IntN(8)
		oplane := 2*ld + r.IntN(5)
		out, ref := make([]float32, n*oplane), make([]float32, n*oplane)
		for i := range out {
			out[i], ref[i] = 5, 5
		}
		o := winoOutArgs{dst: &out[0], src: &m[0], n: n, plane: 4 * oplane, ld: 4 * ld, xs: 4 * mxs, step: 4 * step, rows: rows, cols: cols}
		winoOut8(&o)
		o.dst = &ref[0]
		winoOut8Go(&o)
		for i := range out {
			if !sameF32(out[i], ref[i]) {
				t.Fatalf("winoOut8 #%d (n=%d rows=%d cols=%d): element %d = %v, want %v", it, n, rows, cols, i, out[i], ref[i])
			}
			if c, y := i%oplane%ld, i%oplane/ld; (c >= cols || y >= rows) && out[i] != 5 {
				t.Fatalf("winoOut8 #%d (rows=%d cols=%d): stored %v at row %d column %d", it, rows, cols, out[i], y, c)
			}
		}
	}
}

// TestCopyFinite checks the copy and the finiteness it reports at every
// length up to two vectors and a half, with a special value anywhere.
func TestCopyFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for n := 0; n <= 20; n++ {
		for it := 0; it < 20; it++ {
			src := make([]float32, n+1)
			for i := range src {
				src[i] = float32(r.NormFloat64())
			}
			if it > 0 {
				src[r.IntN(n+1)] = randSpecial(r) // at n: past the copy, never read
			}
			dst := make([]float32, n+1)
			dst[n] = 9
			want := allFinite(src[:n])
			if got := copyFinite(&dst[0], &src[0], n); got != want {
				t.Fatalf("n=%d %v: finite %v, want %v", n, src, got, want)
			}
			for i := 0; i < n; i++ {
				if !sameF32(dst[i], src[i]) {
					t.Fatalf("n=%d: element %d copied as %v, want %v", n, i, dst[i], src[i])
				}
			}
			if dst[n] != 9 {
				t.Fatalf("n=%d: wrote past the copy", n)
			}
		}
	}
}

// winoCases are convolutions the Winograd path takes: odd extents (a
// last tile row and column of one output), batches, channel counts off
// the vector and panel widths, several k blocks, late-layer planes.
var winoCases = []convCase{
	{2, 33, 15, 13, 35, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{1, 400, 12, 12, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{1, 32, 9, 30, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{3, 40, 10, 14, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{2, 48, 17, 8, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{2, 96, 13, 11, 360, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
}

// TestWinogradConv checks the Winograd path against a float64 reference:
// its error, over the sum of the magnitudes of each output's products,
// stays within a small multiple of float32's epsilon (the direct path's
// is printed beside it), on one core and four, in both forms (bands of
// tile rows, whole images with each phase split), into a NaN-filled
// buffer.
func TestWinogradConv(t *testing.T) {
	if !winoSIMD {
		t.Skip("no vector transforms here: the Winograd path declines every layer")
	}
	r := rand.New(rand.NewPCG(45, 46))
	const eps = 0x1p-23
	defer func(old int) { winoWideMin = old }(winoWideMin)
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for i, cc := range winoCases {
			wide := (i+procs)%2 == 0
			winoWideMin = map[bool]int{true: 0, false: 1 << 40}[wide]
			op := cc.op(t)
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c), 3, 3)
			w.Frozen = true // as an archive's weights: U packed once
			c, ok := fastConvShape(op, []Value{x, w})
			if ok {
				c.weight = true
			}
			if !ok || !c.useWinograd() {
				t.Fatalf("%+v: not on the Winograd path", cc)
			}
			dst := make([]float32, cc.b*cc.o*cc.h*cc.w)
			for i := range dst {
				dst[i] = float32(math.NaN())
			}
			before := winoRuns.Load()
			c.run(dst)
			if winoRuns.Load() == before {
				t.Fatalf("%+v: the Winograd path did not run", cc)
			}
			winogradEnabled = false
			direct := runConv(t, op, x, w, true)
			winogradEnabled = true
			xs, ws := viewAs[float32](x.Data, x.DType), viewAs[float32](w.Data, w.DType)
			worst, worstDirect := 0.0, 0.0
			for b := 0; b < cc.b; b++ {
				for o := 0; o < cc.o; o++ {
					for y := 0; y < cc.h; y++ {
						for xx := 0; xx < cc.w; xx++ {
							sum, mag := 0.0, 0.0
							for ci := 0; ci < cc.c; ci++ {
								for ky := 0; ky < 3; ky++ {
									for kx := 0; kx < 3; kx++ {
										iy, ix := y+ky-1, xx+kx-1
										if iy < 0 || iy >= cc.h || ix < 0 || ix >= cc.w {
											continue
										}
										p := float64(xs[((b*cc.c+ci)*cc.h+iy)*cc.w+ix]) * float64(ws[(o*cc.c+ci)*9+ky*3+kx])
										sum += p
										mag += math.Abs(p)
									}
								}
							}
							i := ((b*cc.o+o)*cc.h+y)*cc.w + xx
							worst = max(worst, math.Abs(float64(dst[i])-sum)/(eps*mag))
							worstDirect = max(worstDirect, math.Abs(direct.Float64(i)-sum)/(eps*mag))
						}
					}
				}
			}
			t.Logf("%+v procs=%d wide=%v: error / (eps · Σ|products|): Winograd %.2f, direct %.2f", cc, procs, wide, worst, worstDirect)
			if worst > 8 || math.IsNaN(worst) {
				t.Errorf("%+v procs=%d wide=%v: error %.2f × eps · Σ|products|", cc, procs, wide, worst)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestWinogradNonFinite checks that an infinity or a NaN in the input or
// the weights sends a layer to the direct path (the transforms would turn
// an infinity into NaNs): the result is the direct path's, bit for bit.
func TestWinogradNonFinite(t *testing.T) {
	if !winoSIMD {
		t.Skip("no vector transforms here: the Winograd path declines every layer")
	}
	r := rand.New(rand.NewPCG(47, 48))
	cc := winoCases[0]
	op := cc.op(t)
	for _, where := range []string{"input", "weights"} {
		for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c), 3, 3)
			l := map[string]*literal.Literal{"input": x, "weights": w}[where]
			l.SetFloat64(r.IntN(l.Len()), v)
			w.Frozen = true
			c, ok := fastConvShape(op, []Value{x, w})
			if !ok {
				t.Fatalf("%+v: fast path not taken", cc)
			}
			c.weight = true
			if !c.useWinograd() {
				t.Fatalf("%+v: not on the Winograd path", cc)
			}
			got := randF32Literal(t, r, int64(cc.b), int64(cc.o), int64(cc.h), int64(cc.w))
			before := winoRuns.Load()
			c.run(viewAs[float32](got.Data, got.DType))
			if winoRuns.Load() != before {
				t.Fatalf("%s holding %v: the Winograd path ran", where, v)
			}
			winogradEnabled = false
			want := runConv(t, op, x, w, true)
			winogradEnabled = true
			if !bytes.Equal(got.Data, want.Data) {
				t.Fatalf("%s holding %v: result differs from the direct path's", where, v)
			}
		}
	}
}

// TestWinogradEpilogue runs Winograd layers with a batch norm, residual
// add and ReLU after them: the epilogue applied to each item's rows gives
// bit for bit what the separate fused loop gives after the layer, with
// the weights frozen (U packed once) or not (PyTorch's arguments: U built
// on the second call with the same bytes).
func TestWinogradEpilogue(t *testing.T) {
	if !winoSIMD {
		t.Skip("no vector transforms here: the Winograd path declines every layer")
	}
	r := rand.New(rand.NewPCG(49, 50))
	lr := mrand.New(mrand.NewSource(51))
	defer func(old bool) { convEpiEnabled = old }(convEpiEnabled)
	for _, cc := range winoCases[:4] {
		for _, frozen := range []bool{false, true} {
			name := fmt.Sprintf("%+v/frozen=%v", cc, frozen)
			m, err := stablehlo.ParseModule("bnres", []byte("module {\n"+epiModule(cc, "bnres")+"\n}"))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			e := compileWith(t, m, true)
			var args []*literal.Literal
			for _, it := range m.Func("main").Type.Inputs {
				l := randomLiteral(t, lr, stablehlo.AsTensor(it))
				for i := 0; i < l.Len(); i++ {
					l.SetFloat64(i, r.NormFloat64())
				}
				args = append(args, l)
			}
			args[1].Frozen = frozen
			run := func(epi bool) []*literal.Literal {
				convEpiEnabled = epi
				out, err := e.(*Executable).Run(context.Background(), args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return out
			}
			if !frozen {
				run(true) // an argument's U is built the second time its bytes arrive
			}
			before := winoRuns.Load()
			fused, apart := run(true), run(false)
			if winoRuns.Load()-before != 2 {
				t.Fatalf("%s: the Winograd path ran %d times of 2", name, winoRuns.Load()-before)
			}
			if !bytes.Equal(fused[0].Data, apart[0].Data) {
				t.Fatalf("%s: the epilogue in the loop differs from the one after it", name)
			}
		}
	}
}

// TestWinogradArgumentWeights follows the U of weights that are an
// argument the caller writes between calls: built the second time the
// same bytes arrive, never used once they change (the direct path's
// result, bit for bit, until the new bytes come twice), and given up
// after changes call after call.
func TestWinogradArgumentWeights(t *testing.T) {
	if !winoSIMD {
		t.Skip("no vector transforms here: the Winograd path declines every layer")
	}
	r := rand.New(rand.NewPCG(51, 52))
	cc := winoCases[0]
	e := compileModule(t, cc.module(t))
	x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
	w := randF32Literal(t, r, int64(cc.o), int64(cc.c), 3, 3)
	direct := func() *literal.Literal {
		defer func(old bool) { winogradEnabled = old }(winogradEnabled)
		winogradEnabled = false
		return runExe(t, e, x, w)[0]
	}
	call := func(step string, wino bool) {
		t.Helper()
		before := winoRuns.Load()
		got := runExe(t, e, x, w)[0]
		if ran := winoRuns.Load() > before; ran != wino {
			t.Fatalf("%s: the Winograd path ran %v, want %v", step, ran, wino)
		}
		want := direct()
		if !wino && !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("%s: result differs from the direct path's", step)
		}
		if wino {
			closeToK(t, step, got, want, 4*cc.c*9)
		}
	}
	call("first call", false)
	call("same weights", true)
	call("same weights again", true)
	w.SetFloat64(7, w.Float64(7)+1) // written in place between calls
	call("one weight changed", false)
	call("the changed weights again", true)
	for i := 0; i < prepackMaxMisses; i++ {
		w.SetFloat64(i, w.Float64(i)+1)
		call(fmt.Sprintf("change %d in a row", i+1), false)
	}
	call("the same weights after changes call after call", false)
}
