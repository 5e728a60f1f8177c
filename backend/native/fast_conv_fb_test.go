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

// BenchmarkFastConvWeightGrad runs the weight gradients of compile_bench's
// ResNet-18 training step (batch 8 at 112×112) as the backward graph
// lowers them: the input's channels as images, the batch as features, the
// output gradient as a 28×28 (… 4×4) kernel, result [o, i, 3, 3].
func BenchmarkFastConvWeightGrad(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, cc := range []convCase{
		{64, 8, 28, 28, 64, 28, 28, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{128, 8, 14, 14, 128, 14, 14, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{256, 8, 7, 7, 256, 7, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{512, 8, 4, 4, 512, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{3, 8, 112, 112, 64, 56, 56, 1, 1, 2, 2, 3, 2, 3, 2, 1}, // the stem's: 7×7 stride 2
	} {
		b.Run(fmt.Sprintf("%dx%dx%dx%d", cc.b, cc.h, cc.w, cc.kh), func(b *testing.B) {
			t := &testing.T{}
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c), int64(cc.kh), int64(cc.kw))
			c, ok := fastConvShape(cc.opFB(t), []Value{x, w})
			if !ok || !c.outFB {
				b.Fatal("fast path not taken")
			}
			oh, ow := cc.outHW()
			dst := make([]float32, cc.b*cc.o*oh*ow)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.run(dst)
			}
			flops := 2 * float64(cc.b*cc.o*oh*ow) * float64(cc.c*cc.kh*cc.kw) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
