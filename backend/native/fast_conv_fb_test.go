package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// opFB is cc's convolution with the output's batch and feature dims
// swapped (->[f, b, 0, 1]: result [o, b, oh, ow]), as weight gradients
// are lowered.
func (cc convCase) opFB(t *testing.T) *stablehlo.Op {
	t.Helper()
	oh, ow := cc.outHW()
	src := cc.module(t).String()
	nchw := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", cc.b, cc.o, oh, ow)
	fb := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", cc.o, cc.b, oh, ow)
	src = strings.ReplaceAll(src, nchw, fb)
	src = strings.Replace(src, "->[b, f, 0, 1]", "->[f, b, 0, 1]", 1)
	m, err := stablehlo.ParseModule("convfb.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%+v: %v\n%s", cc, err, src)
	}
	return m.Funcs[0].Body.Blocks[0].Ops[0]
}

// The fast path on [o, b, oh, ow] outputs: through the GEMM's output
// strides (the weight gradients' shapes), and through the paths that
// write NCHW and transpose (small products, grouped, pointwise), against
// the exact kernel, over a NaN-filled destination.
func TestFastConvFeatureBatchOutput(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := []convCase{
		{64, 8, 6, 6, 64, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // a weight gradient: 64 channels as images, batch 8 as features
		{3, 8, 30, 30, 16, 14, 14, 1, 1, 2, 2, 3, 3, 3, 3, 1}, // a stem's: stride as kernel dilation
		{2, 24, 9, 9, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    // GEMM, strided
		{1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // small
		{2, 16, 7, 7, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},    // pointwise
		{2, 16, 6, 6, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},    // grouped
	}
	for _, cc := range cases {
		op := cc.opFB(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		c, ok := fastConvShape(op, []Value{x, w})
		if !ok || !c.outFB {
			t.Fatalf("%+v: fast path not taken", cc)
		}
		checkRunExact(t, cc, c, op, x, w, cc.c/cc.g*cc.kh*cc.kw)
	}
}

// checkRunExact runs c over a NaN-filled destination (run must write
// every element) and compares it with the exact kernel on op, within the
// fast path's summation error for k products per element.
func checkRunExact(t *testing.T, what any, c *conv2d, op *stablehlo.Op, x, w *literal.Literal, k int) {
	t.Helper()
	want := runConv(t, op, x, w, false)
	dst := make([]float32, want.Len())
	for i := range dst {
		dst[i] = float32(math.NaN())
	}
	c.run(dst)
	for i, g := range dst {
		if e := want.Float64(i); math.Abs(float64(g)-e) > 8e-6*math.Sqrt(float64(k))*(1+math.Abs(e)) {
			t.Fatalf("%+v: element %d = %v, exact kernel %v", what, i, g, e)
		}
	}
}
