package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func poolOp(t *testing.T, body string, in, win, stride, dil, pad []int64, out []int64) *stablehlo.Op {
	t.Helper()
	pads := ""
	for i := 0; i < 4; i++ {
		if i > 0 {
			pads += ", "
		}
		pads += fmt.Sprintf("[%d, %d]", pad[2*i], pad[2*i+1])
	}
	list := func(v []int64) string {
		s := fmt.Sprint(v)
		return "array<i64: " + strings.ReplaceAll(s[1:len(s)-1], " ", ", ") + ">"
	}
	ty := func(s []int64) string { return tensorType(s) }
	src := fmt.Sprintf(`func.func @f(%%x: %s, %%i: tensor<f32>) -> %s {
  %%0 = "stablehlo.reduce_window"(%%x, %%i) ({
  ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
    %%m = %s %%a, %%b : tensor<f32>
    stablehlo.return %%m : tensor<f32>
  }) {window_dimensions = %s, window_strides = %s, window_dilations = %s, padding = dense<[%s]> : tensor<4x2xi64>} : (%s, tensor<f32>) -> %s
  func.return %%0 : %s
}`, ty(in), ty(out), body, list(win), list(stride), list(dil), pads, ty(in), ty(out), ty(out))
	m, err := stablehlo.ParseModule("pool.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	return m.Funcs[0].Body.Blocks[0].Ops[0]
}

func TestFastWindowBitsMatchGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	type pc struct {
		in, win, stride, dil, pad []int64
	}
	cases := []pc{
		{[]int64{1, 8, 16, 16}, []int64{1, 1, 3, 3}, []int64{1, 1, 2, 2}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 1, 1, 1, 1}}, // ResNet max pool
		{[]int64{2, 3, 9, 7}, []int64{1, 1, 2, 2}, []int64{1, 1, 2, 2}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{1, 4, 11, 10}, []int64{1, 1, 3, 2}, []int64{1, 1, 1, 3}, []int64{1, 1, 2, 1}, []int64{0, 0, 0, 0, 2, 0, 1, 3}},
		// column windows (columnSums): adaptive pooling's first half, and
		// strided, dilated, padded ones
		{[]int64{1, 5, 13, 9}, []int64{1, 1, 13, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{2, 3, 12, 7}, []int64{1, 1, 3, 1}, []int64{1, 1, 2, 1}, []int64{1, 1, 2, 1}, []int64{0, 0, 0, 0, 2, 3, 0, 0}},
		// whole columns and whole rows of many small planes (wholeSums):
		// squeeze-and-excitation's pooling, narrow and wide
		{[]int64{1, 1152, 4, 4}, []int64{1, 1, 4, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{1, 1152, 1, 4}, []int64{1, 1, 1, 4}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{2, 7, 5, 21}, []int64{1, 1, 5, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{2, 7, 1, 33}, []int64{1, 1, 1, 33}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		// the vector column sums: whole vectors, and two plus a tail
		{[]int64{1, 3, 16, 16}, []int64{1, 1, 16, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{1, 2, 3, 37}, []int64{1, 1, 3, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
		{[]int64{1, 40, 7, 7}, []int64{1, 1, 7, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 0, 0, 0, 0}},
	}
	for ci, c := range cases {
		var out []int64
		for d := range c.in {
			span := (c.win[d]-1)*c.dil[d] + 1
			out = append(out, (c.in[d]+c.pad[2*d]+c.pad[2*d+1]-span)/c.stride[d]+1)
		}
		for _, body := range []string{"stablehlo.maximum", "stablehlo.add"} {
			op := poolOp(t, body, c.in, c.win, c.stride, c.dil, c.pad, out)
			x := randF32Literal(t, r, c.in...)
			for i := 0; i < x.Len(); i += 17 { // NaNs and signed zeros
				x.SetFloat64(i, [...]float64{math.NaN(), math.Copysign(0, -1), 0}[i%3])
			}
			init, _ := literal.New(dtype.F32, nil)
			if body == "stablehlo.maximum" {
				init.SetFloat64(0, math.Inf(-1))
			} else if ci%2 == 1 {
				init.SetFloat64(0, [...]float64{0.25, math.Copysign(0, -1)}[ci/2%2]) // folded first, into every sum
			}
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
			if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) || string(got.Data) != string(want.Data) {
				for i := 0; i < want.Len(); i++ {
					if math.Float64bits(got.Float64(i)) != math.Float64bits(want.Float64(i)) {
						t.Fatalf("%v %s: element %d = %v, generic kernel %v", c, body, i, got.Float64(i), want.Float64(i))
					}
				}
				t.Fatalf("%v %s: shapes %v, %v", c, body, got.Shape, want.Shape)
			}
		}
	}
}

func TestFastPathsWired(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	before := fastHits.Load()
	op := poolOp(t, "stablehlo.maximum", []int64{1, 2, 8, 8}, []int64{1, 1, 2, 2}, []int64{1, 1, 2, 2}, []int64{1, 1, 1, 1}, make([]int64, 8), []int64{1, 2, 4, 4})
	init, _ := literal.New(dtype.F32, nil)
	if _, err := kernels["stablehlo.reduce_window"](nil, op, []Value{randF32Literal(t, r, 1, 2, 8, 8), init}); err != nil {
		t.Fatal(err)
	}
	cc := convCase{1, 16, 14, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	runConv(t, cc.op(t), randF32Literal(t, r, 1, 16, 14, 14), randF32Literal(t, r, 32, 16, 3, 3), true)
	dc := dotCase{[]int64{64, 96}, []int64{96, 80}, nil, nil, []int64{1}, []int64{0}, true}
	runDot(t, dc.op(t), randF32Literal(t, r, 64, 96), randF32Literal(t, r, 96, 80), true)
	if got := fastHits.Load() - before; got != 3 {
		t.Fatalf("%d of 3 ops took a fast path: a wrapper is not installed", got)
	}
}

// TestMax3PoolMatchesGeneric runs 3×3 stride-2 max pools wide enough for
// max3Row (16 interior windows a row and more, a part left over) on
// inputs of ±0, equal values, infinities and a few NaNs, against the
// generic kernel, bit for bit, with max3Row on and off.
func TestMax3PoolMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, in := range [][]int64{{1, 3, 40, 70}, {2, 2, 35, 67}, {1, 1, 9, 33}} {
		out := []int64{in[0], in[1], (in[2]+2-3)/2 + 1, (in[3]+2-3)/2 + 1}
		op := poolOp(t, "stablehlo.maximum", in, []int64{1, 1, 3, 3}, []int64{1, 1, 2, 2}, []int64{1, 1, 1, 1}, []int64{0, 0, 0, 0, 1, 1, 1, 1}, out)
		for _, nans := range []int{0, 3} {
			x := randF32Literal(t, r, in...)
			for i := 0; i < x.Len(); i++ {
				if r.IntN(4) == 0 {
					x.SetFloat64(i, []float64{0, math.Copysign(0, -1), 1, math.Inf(1), math.Inf(-1)}[r.IntN(5)])
				}
			}
			for k := 0; k < nans; k++ {
				x.SetFloat64(r.IntN(x.Len()), math.NaN())
			}
			init, _ := literal.New(dtype.F32, nil)
			init.SetFloat64(0, math.Inf(-1))
			run := func(fast, max3 bool) *literal.Literal {
				defer func(old, m bool) { fastWindowEnabled, max3Enabled = old, m }(fastWindowEnabled, max3Enabled)
				fastWindowEnabled, max3Enabled = fast, max3
				res, err := kernels["stablehlo.reduce_window"](nil, op, []Value{x, init})
				if err != nil {
					t.Fatal(err)
				}
				return res[0].(*literal.Literal)
			}
			want := run(false, false)
			for _, max3 := range []bool{true, false} {
				got := run(true, max3)
				for i := 0; i < want.Len(); i++ {
					if math.Float64bits(got.Float64(i)) != math.Float64bits(want.Float64(i)) {
						t.Fatalf("%v nans=%d max3=%v: element %d = %v, generic %v", in, nans, max3, i, got.Float64(i), want.Float64(i))
					}
				}
			}
		}
	}
}
