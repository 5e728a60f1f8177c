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
}

func (dc dwpwCase) outHW() (int, int) { return (dc.h-1)/dc.s + 1, (dc.w-1)/dc.s + 1 }

// module returns the function of dc: main(x, wd, s1, b1, wp, s2, b2, r).
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
	clamp := func(res, mm, a, c string) {
		bin(res+"m", mm, a, c, T)
		fmt.Fprintf(&b, "  %sn = \"stablehlo.compare\"(%s, %s) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> tensor<1x%dx%dx%dxi1>\n", res, a, a, T, T, dc.c, oh, ow)
		fmt.Fprintf(&b, "  %s = \"stablehlo.select\"(%sn, %s, %sm) : (tensor<1x%dx%dx%dxi1>, %s, %s) -> %s\n", res, res, a, res, dc.c, oh, ow, T, T, T)
	}
	fmt.Fprintf(&b, "func.func @main(%%x: %s, %%wd: tensor<%dx1x3x3xf32>, %%s1: tensor<%dxf32>, %%b1: tensor<%dxf32>, %%wp: tensor<%dx%dx1x1xf32>, %%s2: tensor<%dxf32>, %%b2: tensor<%dxf32>, %%r: %s) -> %s {\n",
		X, dc.c, dc.c, dc.c, dc.o, dc.c, dc.o, dc.o, Y, Y)
	fmt.Fprintf(&b, "  %%c = stablehlo.convolution(%%x, %%wd) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [%d, %d], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (%s, tensor<%dx1x3x3xf32>) -> %s\n",
		dc.s, dc.s, dc.c, X, dc.c, T)
	bcast("%S1", "%s1", dc.c, T)
	bcast("%B1", "%b1", dc.c, T)
	bin("%m", "multiply", "%c", "%S1", T)
	bin("%a", "add", "%m", "%B1", T)
	konst("%z", 0, T)
	konst("%six", 6, T)
	y := "%a"
	switch dc.act {
	case "relu6":
		clamp("%l", "maximum", "%a", "%z")
		clamp("%y", "minimum", "%l", "%six")
		y = "%y"
	case "hardswish":
		konst("%three", 3, T)
		bin("%t", "add", "%a", "%three", T)
		clamp("%l", "maximum", "%t", "%z")
		clamp("%u", "minimum", "%l", "%six")
		bin("%p", "multiply", "%a", "%u", T)
		bin("%y", "divide", "%p", "%six", T)
		y = "%y"
	}
	fmt.Fprintf(&b, "  %%d = stablehlo.convolution(%s, %%wp) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, tensor<%dx%dx1x1xf32>) -> %s\n",
		y, T, dc.o, dc.c, Y)
	bcast("%S2", "%s2", dc.o, Y)
	bcast("%B2", "%b2", dc.o, Y)
	bin("%n", "multiply", "%d", "%S2", Y)
	bin("%q", "add", "%n", "%B2", Y)
	ret := "%q"
	if dc.res {
		bin("%o", "add", "%q", "%r", Y)
		ret = "%o"
	}
	fmt.Fprintf(&b, "  func.return %s : %s\n}", ret, Y)
	return b.String()
}

// TestDWPointwiseMatchesUnfused checks that a depthwise convolution and
// the pointwise one reading it, run as one step (fast_conv_dwpw.go), give
// bit for bit what the two steps give apart (the pair switched off) and
// what the plan without fusion gives, on odd widths and heights (bands
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
		{32, 112, 112, 1, 16, "relu6", false},    // MobileNetV2's first block
		{96, 112, 112, 2, 24, "relu6", false},    // stride 2
		{100, 57, 59, 1, 24, "relu6", true},      // odd sizes, a short chunk, a residual
		{24, 113, 115, 2, 8, "hardswish", false}, // stride 2 on odd sizes, an activation after the clamp
		{40, 61, 64, 1, 40, "", true},            // batch norm alone
		{392, 56, 57, 1, 16, "hardswish", true},  // two k blocks of the product: two chunks
		{64, 28, 28, 1, 32, "relu6", false},      // planes too small: two steps
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
			x := args[0]
			x.SetFloat64(3, math.NaN())
			x.SetFloat64(x.Len()/2+7, math.Inf(1))
			x.SetFloat64(x.Len()-5, math.Inf(-1))
			args[1].Frozen, args[4].Frozen = procs == 3, procs == 3
			run := func(e *Executable, on bool) []*literal.Literal {
				dwpwEnabled = on
				out, err := e.Run(context.Background(), args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return out
			}
			before := dwpwRuns.Load()
			got := run(planned.(*Executable), true)
			oh, ow := dc.outHW()
			if fused, want := dwpwRuns.Load() > before, oh*ow >= dwpwMinPlane; fused != want {
				t.Fatalf("%s: ran fused %v, want %v", name, fused, want)
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
