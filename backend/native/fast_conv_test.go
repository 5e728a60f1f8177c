package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

type convCase struct {
	b, c, h, w, o, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, g int
}

func (cc convCase) outHW() (int, int) {
	oh := (cc.h+cc.pt+cc.pb-((cc.kh-1)*cc.dh+1))/cc.sh + 1
	ow := (cc.w+cc.pl+cc.pr-((cc.kw-1)*cc.dw+1))/cc.sw + 1
	return oh, ow
}

func (cc convCase) op(t *testing.T) *stablehlo.Op {
	t.Helper()
	return cc.module(t).Funcs[0].Body.Blocks[0].Ops[0]
}

// module returns a module whose one function is the convolution of cc.
func (cc convCase) module(t *testing.T) *stablehlo.Module {
	t.Helper()
	oh, ow := cc.outHW()
	src := fmt.Sprintf(`func.func @f(%%x: tensor<%dx%dx%dx%dxf32>, %%w: tensor<%dx%dx%dx%dxf32>) -> tensor<%dx%dx%dx%dxf32> {
  %%0 = stablehlo.convolution(%%x, %%w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [%d, %d], pad = [[%d, %d], [%d, %d]], rhs_dilate = [%d, %d]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (tensor<%dx%dx%dx%dxf32>, tensor<%dx%dx%dx%dxf32>) -> tensor<%dx%dx%dx%dxf32>
  func.return %%0 : tensor<%dx%dx%dx%dxf32>
}`, cc.b, cc.c, cc.h, cc.w, cc.o, cc.c/cc.g, cc.kh, cc.kw, cc.b, cc.o, oh, ow,
		cc.sh, cc.sw, cc.pt, cc.pb, cc.pl, cc.pr, cc.dh, cc.dw, cc.g,
		cc.b, cc.c, cc.h, cc.w, cc.o, cc.c/cc.g, cc.kh, cc.kw, cc.b, cc.o, oh, ow, cc.b, cc.o, oh, ow)
	m, err := stablehlo.ParseModule("conv.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%+v: %v", cc, err)
	}
	return m
}

func randF32Literal(t *testing.T, r *rand.Rand, shape ...int64) *literal.Literal {
	t.Helper()
	l, err := literal.New(dtype.F32, shape)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < l.Len(); i++ {
		l.SetFloat64(i, float64(float32(r.NormFloat64())))
	}
	return l
}

// runConv evaluates the registered convolution kernel with the fast path
// on or off.
func runConv(t *testing.T, op *stablehlo.Op, x, w *literal.Literal, fast bool) *literal.Literal {
	t.Helper()
	defer func(old bool) { fastConvEnabled = old }(fastConvEnabled)
	fastConvEnabled = fast
	out, err := kernels["stablehlo.convolution"](nil, op, []Value{x, w})
	if err != nil {
		t.Fatal(err)
	}
	return out[0].(*literal.Literal)
}

func TestFastConvMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cases := []convCase{
		{1, 3, 32, 32, 16, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},  // ResNet stem, smaller image
		{2, 16, 14, 14, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // 3×3 same padding, batch 2
		{1, 32, 14, 14, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // 1×1: the input is the im2col matrix
		{1, 32, 15, 15, 64, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1}, // 1×1 stride 2 downsample
		{1, 24, 17, 13, 48, 3, 5, 2, 3, 2, 1, 2, 0, 1, 4, 1}, // asymmetric everything, rhs dilation
		{2, 32, 12, 12, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}, // grouped
		{1, 8, 40, 40, 64, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1},  // stride larger than overlap
		{1, 16, 9, 9, 96, 4, 4, 1, 1, 3, 3, 4, 4, 0, 5, 1},   // kernel reaching into padding only
	}
	checkFastConv(t, r, cases)
}

// TestFastConvWorkSplits runs shapes large enough for several cores, with
// one and with four of them, so that every way of cutting the work (row
// bands over a shared packed image, column chunks, images as items) meets
// padding, strides, dilation, groups and batches.
func TestFastConvWorkSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cases := []convCase{
		{1, 128, 7, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // late ResNet layer: row bands
		{3, 32, 20, 20, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // few small images: shared B, bands
		{2, 16, 40, 40, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // column chunks
		{8, 64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // images as items
		{2, 16, 30, 30, 32, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1},   // strided and dilated
		{2, 8, 128, 128, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},   // depthwise
		{2, 48, 17, 19, 96, 3, 3, 2, 1, 1, 2, 1, 0, 2, 1, 3},   // grouped, asymmetric
		{2, 64, 28, 28, 128, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},  // 1×1 stride-2 downsample
		{1, 3, 64, 64, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},    // stem
		{2, 100, 9, 9, 70, 2, 2, 1, 1, 1, 1, 0, 1, 1, 0, 1},    // odd sizes, partial panels
		{1, 256, 14, 14, 600, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // pointwise, many rows
		{4, 24, 33, 31, 40, 5, 3, 1, 3, 1, 1, 2, 2, 1, 1, 1},   // stride wider than the kernel row
		{1, 16, 100, 100, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // one large image: many chunks
		{5, 32, 10, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // images not a multiple of the cores
		{1, 64, 5, 5, 1000, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // tiny image, very many output channels
		{2, 32, 56, 56, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // early ResNet layer
		{1, 32, 300, 5, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // tall narrow image
		{1, 32, 5, 300, 16, 1, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1},   // wide short image
		{1, 120, 16, 16, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // few rows, many columns: column shares
		{1, 96, 7, 7, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // grouped, few columns: one B shared by bands
		{2, 300, 5, 5, 90, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},    // the same over several k blocks
	}
	defer func(old bool) { convGather = old }(convGather)
	for _, gather := range []bool{true, false} {
		convGather = gather
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			checkFastConv(t, r, cases)
			runtime.GOMAXPROCS(old)
		}
	}
}

func checkFastConv(t *testing.T, r *rand.Rand, cases []convCase) {
	t.Helper()
	for _, cc := range cases {
		op := cc.op(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		if _, ok := fastConvShape(op, []Value{x, w}); !ok {
			t.Fatalf("%+v: fast path not taken", cc)
		}
		got, want := runConv(t, op, x, w, true), runConv(t, op, x, w, false)
		if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) || got.DType != want.DType {
			t.Fatalf("%+v: %v, want %v", cc, got, want)
		}
		// the result buffer comes from the arena uncleared: run must write
		// every element, so a NaN-filled destination ends up equal
		c, _ := fastConvShape(op, []Value{x, w})
		dst := make([]float32, got.Len())
		for i := range dst {
			dst[i] = float32(math.NaN())
		}
		c.run(dst)
		for i, v := range dst {
			if float64(v) != got.Float64(i) {
				t.Fatalf("%+v: element %d = %v over a NaN-filled buffer, %v over a fresh one", cc, i, v, got.Float64(i))
			}
		}
		k := float64(cc.c / cc.g * cc.kh * cc.kw)
		for i := 0; i < want.Len(); i++ {
			g, e := got.Float64(i), want.Float64(i)
			if math.Abs(g-e) > 2e-6*math.Sqrt(k)*(1+math.Abs(e))*4 {
				t.Fatalf("%+v: element %d = %v, exact kernel %v", cc, i, g, e)
			}
		}
	}
}

// TestFastConvSmall runs products below fastGemmMinFlops (runSmall):
// padding, strides, dilation, groups, batches and squeeze-and-excitation's
// 1×1 convolutions of pooled [b, c, 1, 1] tensors.
func TestFastConvSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	cases := []convCase{
		{1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 3×3 same padding
		{2, 48, 1, 1, 200, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // SE expand, batch 2
		{1, 240, 1, 1, 10, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // SE squeeze
		{1, 4, 9, 7, 6, 3, 2, 2, 1, 1, 2, 1, 0, 2, 1, 1},     // asymmetric, dilated
		{3, 6, 4, 4, 6, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // kernel covering the image
		{1, 16, 3, 3, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},    // grouped, 8 channels per group
		{2, 240, 1, 1, 960, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, // SE expand above the GEMM threshold
		{1, 37, 3, 3, 300, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // a kernel covering a 3x3 image
	}
	for _, cc := range cases {
		if c, ok := fastConvShape(cc.op(t), []Value{
			randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w)),
			randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))}); !ok || !c.small {
			t.Fatalf("%+v: not run by runSmall", cc)
		}
	}
	checkFastConv(t, r, cases)
}

func TestFastConvDeclines(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	// an empty batch, and an image that is all padding
	for _, cc := range []convCase{
		{0, 64, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 64, 0, 7, 512, 3, 3, 1, 1, 1, 1, 3, 3, 1, 1, 1},
	} {
		op := cc.op(t)
		x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c), int64(cc.kh), int64(cc.kw))
		got, want := runConv(t, op, x, w, true), runConv(t, op, x, w, false)
		if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
			t.Fatalf("%+v: shape %v, want %v", cc, got.Shape, want.Shape)
		}
		for i := 0; i < want.Len(); i++ {
			if got.Float64(i) != want.Float64(i) {
				t.Fatalf("%+v: element %d = %v, exact kernel %v", cc, i, got.Float64(i), want.Float64(i))
			}
		}
	}
	// malformed operands go to the exact kernel, which reports them
	small := convCase{1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	op := small.op(t)
	x := randF32Literal(t, r, 1, 2, 5, 5)
	if _, ok := fastConvShape(op, []Value{x}); ok {
		t.Fatal("fast path taken with one operand")
	}
	if _, err := kernels["stablehlo.convolution"](nil, op, []Value{x}); err == nil {
		t.Fatal("missing operand: no error")
	}
}

func TestValidRange(t *testing.T) {
	c := &conv2d{}
	for off := -5; off <= 5; off++ {
		for stride := 1; stride <= 3; stride++ {
			for size := 1; size <= 6; size++ {
				for count := 1; count <= 6; count++ {
					lo, hi := c.validRange(off, stride, size, count)
					for o := 0; o < count; o++ {
						in := off+o*stride >= 0 && off+o*stride < size
						if in != (o >= lo && o < hi) {
							t.Fatalf("validRange(%d, %d, %d, %d) = [%d, %d): o=%d inside=%v", off, stride, size, count, lo, hi, o, in)
						}
					}
				}
			}
		}
	}
}

// BenchmarkFastConvResNet18 runs the convolutions of ResNet-18 (224×224,
// one of each distinct shape) at batch 1 and 8 on the fast path and
// reports GFLOP/s over wall time and, steadier on a loaded machine, per
// second of CPU time of each thread ("cpuGFLOP/s", times GOMAXPROCS: the
// rate while the threads run).
func BenchmarkFastConvResNet18(b *testing.B) {
	shapes := []convCase{
		{1, 3, 224, 224, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},
		{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 64, 56, 56, 128, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
		{1, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 128, 28, 28, 256, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
		{1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 256, 14, 14, 512, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
		{1, 512, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		// compile_bench's training step (112×112): layers 1-4 at batch 8
		{1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 128, 14, 14, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 256, 7, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{1, 512, 4, 4, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, batch := range []int{1, 8} {
		for _, cc := range shapes {
			cc.b = batch
			oh, ow := cc.outHW()
			name := fmt.Sprintf("b%d/%dx%dx%d-%d/k%d/s%d", batch, cc.c, cc.h, cc.w, cc.o, cc.kh, cc.sh)
			b.Run(name, func(b *testing.B) {
				t := &testing.T{}
				x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
				w := randF32Literal(t, r, int64(cc.o), int64(cc.c), int64(cc.kh), int64(cc.kw))
				in := []Value{x, w}
				c, ok := fastConvShape(cc.op(t), in)
				if !ok {
					b.Fatal("fast path not taken")
				}
				dst := make([]float32, cc.b*cc.o*oh*ow)
				b.ResetTimer()
				t0 := benchCPU()
				for i := 0; i < b.N; i++ {
					c.run(dst)
				}
				flops := 2 * float64(cc.b*cc.o*oh*ow) * float64(cc.c*cc.kh*cc.kw) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				if cpu := benchCPU() - t0; t0 > 0 && cpu > 0 {
					b.ReportMetric(flops/(cpu.Seconds()/float64(runtime.GOMAXPROCS(0)))/1e9, "cpuGFLOP/s")
				}
			})
		}
	}
}

// BenchmarkFastConvMobile runs the convolutions of the mobile networks
// (EfficientNet-B0 and MobileNetV3 at 128×128, batch 1): pointwise
// products on small images and depthwise windows, with GFLOP/s per
// second of CPU time as BenchmarkFastConvResNet18.
func BenchmarkFastConvMobile(b *testing.B) {
	shapes := []convCase{
		{1, 16, 64, 64, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 120, 16, 16, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 32, 64, 64, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 64, 64, 64, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 72, 16, 16, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 240, 16, 16, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 88, 16, 16, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 40, 16, 16, 120, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 24, 32, 32, 72, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 184, 8, 8, 80, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 16, 64, 64, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 32, 32, 32, 80, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 64, 64, 64, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 64},
		{1, 16, 64, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
		{1, 3, 128, 128, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
		{1, 960, 4, 4, 160, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 16, 64, 64, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 32, 112, 112, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 16, 112, 112, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 144, 56, 56, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 320, 7, 7, 1280, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 3, 224, 224, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
		{1, 320, 4, 4, 1280, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 192, 4, 4, 1152, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 1152, 4, 4, 320, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 24, 32, 32, 144, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 112, 8, 8, 672, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
		{1, 96, 64, 64, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 96},
		{1, 240, 16, 16, 240, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 240},
		{1, 1152, 4, 4, 1152, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1152},
		{1, 144, 32, 32, 144, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 144},
		{1, 144, 32, 32, 144, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 144},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, cc := range shapes {
		oh, ow := cc.outHW()
		name := fmt.Sprintf("%dx%dx%d-%d/k%d/s%d/g%d", cc.c, cc.h, cc.w, cc.o, cc.kh, cc.sh, cc.g)
		b.Run(name, func(b *testing.B) {
			t := &testing.T{}
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
			op := cc.op(t)
			dst := make([]float32, cc.b*cc.o*oh*ow)
			b.ResetTimer()
			t0 := benchCPU()
			for i := 0; i < b.N; i++ {
				c, ok := fastConvShape(op, []Value{x, w})
				if !ok {
					b.Fatal("fast path not taken")
				}
				c.run(dst)
			}
			flops := 2 * float64(cc.b*cc.o*oh*ow) * float64(cc.c/cc.g*cc.kh*cc.kw) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := benchCPU() - t0; t0 > 0 && cpu > 0 {
				b.ReportMetric(flops/(cpu.Seconds()/float64(runtime.GOMAXPROCS(0)))/1e9, "cpuGFLOP/s")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e3, "cpu-us/op")
			}
		})
	}
}

// TestPrepackedConvWeights runs convolutions whose weights are arguments
// of the entry function (packed once per weight literal: gemm.PackA, and
// the channel-vector depthwise layout) against the same without
// prepacking, over odd shapes, groups, strides, a few columns (the half
// panels), batches, a new weight literal midway and NaN and Inf.
func TestPrepackedConvWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, cc := range []convCase{
		{1, 64, 4, 4, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 16 columns: the packed half kernels
		{1, 70, 7, 7, 33, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},    // 49 columns, 33 rows
		{2, 24, 9, 11, 40, 3, 3, 2, 1, 1, 1, 1, 0, 2, 1, 1},   // batch 2, strides, asymmetric padding
		{1, 48, 10, 10, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},  // three groups
		{1, 40, 12, 12, 40, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 40}, // depthwise
		{1, 3, 40, 40, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   // a stem
		{1, 300, 8, 8, 600, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},  // a strided 1x1 (k blocks of 300)
		{1, 24, 20, 20, 72, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // pointwise: the strips
		{1, 240, 1, 1, 964, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // squeeze-and-excitation: the matrix-vector blocks
	} {
		e := compileModule(t, cc.module(t))
		w := randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
		w.Frozen = true // weights as an archive's are
		packs0 := prepackStats.packs.Load()
		for it := 0; it < 3; it++ {
			x := randF32Literal(t, r, int64(cc.b), int64(cc.c), int64(cc.h), int64(cc.w))
			if it == 1 {
				w = randF32Literal(t, r, int64(cc.o), int64(cc.c/cc.g), int64(cc.kh), int64(cc.kw))
				w.SetFloat64(5, math.NaN())
				w.SetFloat64(w.Len()-2, math.Inf(1))
				w.Frozen = true
				x.SetFloat64(7, math.Inf(-1))
			}
			got := runExe(t, e, x, w)[0]
			prepackEnabled = false
			want := runExe(t, e, x, w)[0]
			prepackEnabled = true
			closeTo(t, fmt.Sprintf("%+v run %d", cc, it), got, want)
		}
		want := int64(2)
		oh, ow := (cc.h+cc.pt+cc.pb-cc.dh*(cc.kh-1)-1)/cc.sh+1, (cc.w+cc.pl+cc.pr-cc.dw*(cc.kw-1)-1)/cc.sw+1
		inPlace := (&conv2d{batch: cc.b, oh: oh, ow: ow}).inPlaceWeights(cc.c / cc.g * cc.kh * cc.kw)
		if cc.g > 1 && cc.g == cc.c && !dwc16OK || cc.h == 1 && !gemvPackedOK || cc.g < cc.c && cc.h > 1 && inPlace {
			// the row kernel, (no vector gemv) the dot products, or (AVX2)
			// the direct kernels read the weights as they are
			want = 0
		}
		if packs := prepackStats.packs.Load() - packs0; packs != want {
			t.Errorf("%+v: %d packs of the weights, want %d", cc, packs, want)
		}
	}
}
