package native

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// dwpwCase is a depthwise 3×3 convolution of c channels on h×w at stride
// s (padding 1) and the pointwise one to o channels that reads it, each
// with its batch norm; act is the depthwise layer's activation (relu6,
// hardswish or none) and res adds a tensor of the output's shape after
// the second batch norm (a residual block's skip).
type dwpwCase struct {
	c, h, w, s, o int
	act           string
	res           bool
	// expand, where not 0, is the channels of the image of a pointwise
	// convolution to c channels before (with its batch norm and act),
	// an inverted residual block's expansion: main(xe, we, s0, b0, ...)
	expand int
	// se scales the depthwise result per channel by its sum over the
	// plane before the pointwise layer (a squeeze-and-excitation's shape):
	// the depthwise result has two readers, and nothing runs fused (an
	// expansion with its depthwise layer alone measured slower:
	// efficientnet_b0 0.98×)
	se bool
}

func (dc dwpwCase) outHW() (int, int) { return (dc.h-1)/dc.s + 1, (dc.w-1)/dc.s + 1 }

// module returns the function of dc: main(x, wd, s1, b1, wp, s2, b2, r),
// or with an expansion main(xe, we, s0, b0, wd, ...).
func (dc dwpwCase) module() string {
	oh, ow := dc.outHW()
	X := fmt.Sprintf("tensor<1x%dx%dx%dxf32>", dc.c, dc.h, dc.w)
	T := fmt.Sprintf("tensor<1x%dx%dx%dxf32>", dc.c, oh, ow)
	Y := fmt.Sprintf("tensor<1x%dx%dx%dxf32>", dc.o, oh, ow)
	var b strings.Builder
	bin := func(res, name, a, c, t string) {
		fmt.Fprintf(&b, "  %s = \"stablehlo.%s\"(%s, %s) : (%s, %s) -> %s\n", res, name, a, c, t, t, t)
	}
	bcast := func(res, v string, n int, t string) {
		fmt.Fprintf(&b, "  %s = \"stablehlo.broadcast_in_dim\"(%s) {broadcast_dimensions = array<i64: 1>} : (tensor<%dxf32>) -> %s\n", res, v, n, t)
	}
	konst := func(res string, v float64, t string) {
		fmt.Fprintf(&b, "  %s = \"stablehlo.constant\"() {value = dense<%g> : %s} : () -> %s\n", res, v, t, t)
	}
	// clamp is one side of aten's clamp with a constant bound as nanSelect
	// lowers it: select(isnan(a), a, mm(a, c))
	clamp := func(res, mm, a, c, t string) {
		bt := strings.Replace(t, "f32>", "i1>", 1)
		bin(res+"m", mm, a, c, t)
		fmt.Fprintf(&b, "  %sn = \"stablehlo.compare\"(%s, %s) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> %s\n", res, a, a, t, t, bt)
		fmt.Fprintf(&b, "  %s = \"stablehlo.select\"(%sn, %s, %sm) : (%s, %s, %s) -> %s\n", res, res, a, res, bt, t, t, t)
	}
	// bnAct writes batch norm (per-channel s, b of n channels) and dc.act
	// over x of type t; p prefixes the names. It returns the result.
	bnAct := func(p, x, s, bb string, n int, t string) string {
		bcast(p+"S", s, n, t)
		bcast(p+"B", bb, n, t)
		bin(p+"m", "multiply", x, p+"S", t)
		bin(p+"a", "add", p+"m", p+"B", t)
		konst(p+"z", 0, t)
		konst(p+"six", 6, t)
		switch dc.act {
		case "relu6":
			clamp(p+"l", "maximum", p+"a", p+"z", t)
			clamp(p+"y", "minimum", p+"l", p+"six", t)
			return p + "y"
		case "hardswish":
			konst(p+"three", 3, t)
			bin(p+"t", "add", p+"a", p+"three", t)
			clamp(p+"l", "maximum", p+"t", p+"z", t)
			clamp(p+"u", "minimum", p+"l", p+"six", t)
			bin(p+"p", "multiply", p+"a", p+"u", t)
			bin(p+"y", "divide", p+"p", p+"six", t)
			return p + "y"
		}
		return p + "a"
	}
	in := "%x: " + X
	if dc.expand > 0 {
		in = fmt.Sprintf("%%xe: tensor<1x%dx%dx%dxf32>, %%we: tensor<%dx%dx1x1xf32>, %%s0: tensor<%dxf32>, %%b0: tensor<%dxf32>",
			dc.expand, dc.h, dc.w, dc.c, dc.expand, dc.c, dc.c)
	}
	fmt.Fprintf(&b, "func.func @main(%s, %%wd: tensor<%dx1x3x3xf32>, %%s1: tensor<%dxf32>, %%b1: tensor<%dxf32>, %%wp: tensor<%dx%dx1x1xf32>, %%s2: tensor<%dxf32>, %%b2: tensor<%dxf32>, %%r: %s) -> %s {\n",
		in, dc.c, dc.c, dc.c, dc.o, dc.c, dc.o, dc.o, Y, Y)
	x := "%x"
	if dc.expand > 0 {
		fmt.Fprintf(&b, "  %%e = stablehlo.convolution(%%xe, %%we) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x%dx%dx%dxf32>, tensor<%dx%dx1x1xf32>) -> %s\n",
			dc.expand, dc.h, dc.w, dc.c, dc.expand, X)
		x = bnAct("%e", "%e", "%s0", "%b0", dc.c, X)
	}
	fmt.Fprintf(&b, "  %%c = stablehlo.convolution(%s, %%wd) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [%d, %d], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (%s, tensor<%dx1x3x3xf32>) -> %s\n",
		x, dc.s, dc.s, dc.c, X, dc.c, T)
	y := bnAct("%d", "%c", "%s1", "%b1", dc.c, T)
	if dc.se {
		fmt.Fprintf(&b, "  %%zs = \"stablehlo.constant\"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>\n")
		fmt.Fprintf(&b, "  %%sum = stablehlo.reduce(%s init: %%zs) applies stablehlo.add across dimensions = [2, 3] : (%s, tensor<f32>) -> tensor<1x%dxf32>\n", y, T, dc.c)
		fmt.Fprintf(&b, "  %%SUM = \"stablehlo.broadcast_in_dim\"(%%sum) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x%dxf32>) -> %s\n", dc.c, T)
		bin("%ys", "multiply", y, "%SUM", T)
		y = "%ys"
	}
	fmt.Fprintf(&b, "  %%q = stablehlo.convolution(%s, %%wp) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, tensor<%dx%dx1x1xf32>) -> %s\n",
		y, T, dc.o, dc.c, Y)
	bcast("%S2", "%s2", dc.o, Y)
	bcast("%B2", "%b2", dc.o, Y)
	bin("%n", "multiply", "%q", "%S2", Y)
	ret := "%o"
	bin(ret, "add", "%n", "%B2", Y)
	if dc.res {
		bin("%o2", "add", "%o", "%r", Y)
		ret = "%o2"
	}
	fmt.Fprintf(&b, "  func.return %s : %s\n}", ret, Y)
	return b.String()
}

// TestDWPointwiseMatchesUnfused checks that a depthwise convolution and
// the pointwise one reading it, run as one step (fast_conv_dwpw.go), give
// bit for bit what the two steps give apart (the pair switched off) and
// what the plan without fusion gives, also with the expansion before
// (runExpandDW), on odd widths and heights (bands
// whose outputs are not whole vectors), two chunks of channels (the
// product's k blocks), stride 2, NaN and infinities in the image, one
// and three cores; and that the pair ran fused where the planes are large
// enough.
func TestDWPointwiseMatchesUnfused(t *testing.T) {
	if !dwSweepYOK || dwc512 {
		t.Skip("the pair runs on the AVX2 sweep kernels only")
	}
	r := rand.New(rand.NewSource(5))
	cases := []dwpwCase{
		{32, 112, 112, 1, 16, "relu6", false, 0, false},    // MobileNetV2's first block
		{96, 112, 112, 2, 24, "relu6", false, 0, false},    // stride 2
		{100, 57, 59, 1, 24, "relu6", true, 0, false},      // odd sizes, a residual
		{24, 113, 115, 2, 8, "hardswish", false, 0, false}, // stride 2 on odd sizes, an activation after the clamp
		{40, 61, 64, 1, 40, "", true, 0, false},            // batch norm alone
		{392, 56, 57, 1, 16, "hardswish", true, 0, false},  // two k blocks of the product: two chunks
		{64, 28, 28, 1, 32, "relu6", false, 0, false},      // planes too small: two steps
		// with the expansion before
		{96, 112, 112, 2, 24, "relu6", false, 16, false},   // MobileNetV2's second block
		{144, 56, 56, 1, 24, "relu6", true, 24, false},     // its third
		{72, 57, 56, 1, 24, "hardswish", false, 24, false}, // an odd height
		{24, 113, 112, 2, 8, "", true, 40, false},          // stride 2, an odd height
		{392, 56, 56, 1, 16, "relu6", false, 24, false},    // two chunks
		{48, 56, 60, 1, 16, "relu6", false, 8, false},      // rows of 60: not whole vectors
		{64, 64, 64, 2, 16, "relu6", false, 16, false},     // 32×32 out of 64×64: with the expansion only
		{64, 28, 28, 1, 32, "relu6", true, 16, false},      // rows of 28: not whole vectors
		{64, 20, 24, 1, 32, "relu6", true, 16, false},      // planes too small: three steps
		// the depthwise result read twice: three steps
		{96, 112, 112, 2, 24, "relu6", false, 16, true},
	}
	defer func(old bool) { dwpwEnabled = old }(dwpwEnabled)
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, dc := range cases {
			name := fmt.Sprintf("%+v/procs=%d", dc, procs)
			m, err := stablehlo.ParseModule("dwpw", []byte("module {\n"+dc.module()+"\n}"))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			planned, plain := compileWith(t, m, true), compileWith(t, m, false)
			var args []*literal.Literal
			for _, it := range m.Func("main").Type.Inputs {
				l := randomLiteral(t, r, stablehlo.AsTensor(it))
				for i := 0; i < l.Len(); i++ {
					l.SetFloat64(i, r.NormFloat64())
				}
				args = append(args, l)
			}
			if !dc.se {
				// (a sum over the plane would make every output NaN)
				x := args[0]
				x.SetFloat64(3, math.NaN())
				x.SetFloat64(x.Len()/2+7, math.Inf(1))
				x.SetFloat64(x.Len()-5, math.Inf(-1))
			}
			for _, a := range args[1 : len(args)-1] {
				a.Frozen = procs == 3 // the weights, as an archive's
			}
			run := func(e *Executable, on bool) []*literal.Literal {
				dwpwEnabled = on
				out, err := e.Run(context.Background(), args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return out
			}
			before, expanded := dwpwRuns.Load(), dwpwExpandRuns.Load()
			got := run(planned.(*Executable), true)
			oh, ow := dc.outHW()
			// with its expansion where the image's planes are large, else
			// alone where the result's are
			withEx := dc.expand > 0 && !dc.se && dc.h*dc.w >= dwpwMinPlaneEx
			if fused, want := dwpwRuns.Load() > before, !dc.se && (withEx || oh*ow >= dwpwMinPlane); fused != want {
				t.Fatalf("%s: ran fused %v, want %v", name, fused, want)
			}
			if ex := dwpwExpandRuns.Load() > expanded; ex != withEx {
				t.Fatalf("%s: ran with the expansion %v, want %v", name, ex, withEx)
			}
			for _, want := range [][]*literal.Literal{run(planned.(*Executable), false), run(plain.(*Executable), true)} {
				if !bytes.Equal(got[0].Data, want[0].Data) {
					t.Fatalf("%s: the result differs from the unfused one", name)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
