package native

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// dilCase is a convolution over an input dilated by (lh, lw): the input
// gradient of a strided layer.
type dilCase struct {
	b, c, h, w, o, kh, kw, lh, lw, pt, pb, pl, pr, g int
}

func (d dilCase) op(t *testing.T) *stablehlo.Op {
	t.Helper()
	return parseConv(t, d.src())
}

// parseConv returns the one op of a module's function.
func parseConv(t *testing.T, src string) *stablehlo.Op {
	t.Helper()
	m, err := stablehlo.ParseModule("dil.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return m.Funcs[0].Body.Blocks[0].Ops[0]
}

func (d dilCase) src() string {
	hd, wd := (d.h-1)*d.lh+1, (d.w-1)*d.lw+1
	oh, ow := hd+d.pt+d.pb-d.kh+1, wd+d.pl+d.pr-d.kw+1
	src := fmt.Sprintf(`func.func @f(%%x: tensor<%dx%dx%dx%dxf32>, %%w: tensor<%dx%dx%dx%dxf32>) -> tensor<%dx%dx%dx%dxf32> {
  %%0 = stablehlo.convolution(%%x, %%w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[%d, %d], [%d, %d]], lhs_dilate = [%d, %d], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (tensor<%dx%dx%dx%dxf32>, tensor<%dx%dx%dx%dxf32>) -> tensor<%dx%dx%dx%dxf32>
  func.return %%0 : tensor<%dx%dx%dx%dxf32>
}`, d.b, d.c, d.h, d.w, d.o, d.c/d.g, d.kh, d.kw, d.b, d.o, oh, ow,
		d.pt, d.pb, d.pl, d.pr, d.lh, d.lw, d.g,
		d.b, d.c, d.h, d.w, d.o, d.c/d.g, d.kh, d.kw, d.b, d.o, oh, ow, d.b, d.o, oh, ow)
	return src
}

// Input-dilated convolutions run by phases against the exact kernel over a
// NaN-filled destination: the input gradients of 3×3, 1×1 and 7×7
// stride-2 layers (phases no tap reaches among them), unequal dilations,
// a kernel wider than the stride, grouped channels; and a case that needs
// cropping, which runs over the dilated input.
func TestFastConvSubpix(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	cases := []struct {
		d      dilCase
		subpix bool
	}{
		{dilCase{2, 32, 7, 7, 16, 3, 3, 2, 2, 1, 2, 1, 2, 1}, true},  // 3×3 s2 p1, output 14×14
		{dilCase{2, 32, 7, 7, 16, 1, 1, 2, 2, 0, 1, 0, 1, 1}, true},  // 1×1 s2: odd rows and columns zero
		{dilCase{1, 16, 10, 10, 3, 7, 7, 2, 2, 3, 4, 3, 4, 1}, true}, // the stem's 7×7 s2 p3
		{dilCase{1, 8, 5, 6, 12, 3, 5, 3, 2, 2, 0, 1, 3, 1}, true},   // dilations 3 and 2
		{dilCase{2, 16, 6, 6, 16, 3, 3, 2, 2, 1, 1, 1, 1, 4}, true},  // grouped
		{dilCase{1, 64, 8, 8, 128, 3, 3, 2, 2, 2, 2, 2, 2, 1}, true}, // GEMM-sized phases
		{dilCase{1, 8, 6, 6, 8, 2, 2, 2, 2, 0, 1, 0, 1, 1}, false},   // 2×2 s2 p0: cropping
	}
	for _, tc := range cases {
		d := tc.d
		op := d.op(t)
		x := randF32Literal(t, r, int64(d.b), int64(d.c), int64(d.h), int64(d.w))
		w := randF32Literal(t, r, int64(d.o), int64(d.c/d.g), int64(d.kh), int64(d.kw))
		c, ok := fastConvShape(op, []Value{x, w})
		if !ok || c.subpix != tc.subpix {
			t.Fatalf("%+v: fast path %v, by phases %v; want by phases %v", d, ok, ok && c.subpix, tc.subpix)
		}
		checkRunExact(t, d, c, op, x, w, d.c/d.g*d.kh*d.kw)
	}
}

// A transposed convolution's kernel read as it is: kernel dims [i, o]
// and window reversal (plainWeights), with and without input dilation,
// against the exact kernel.
func TestFastConvKernelIOReversed(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, d := range []dilCase{
		{2, 32, 7, 7, 16, 3, 3, 2, 2, 1, 2, 1, 2, 1},  // a stride-2 layer's input gradient, by phases
		{2, 64, 9, 9, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // stride 1: the GEMM
		{1, 4, 5, 5, 6, 3, 2, 1, 1, 2, 2, 1, 1, 1},    // small
		{1, 16, 10, 10, 3, 7, 7, 2, 2, 3, 4, 3, 4, 1}, // the stem's, by phases
		{1, 64, 6, 6, 128, 3, 3, 2, 2, 1, 2, 1, 2, 1}, // phases dealt out by tiles of 16 output channels on all cores
		{1, 100, 5, 5, 80, 3, 3, 2, 2, 1, 1, 1, 1, 1}, // the same, output channels not a multiple of the tile
	} {
		src := d.src()
		w := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", d.o, d.c, d.kh, d.kw)
		src = strings.ReplaceAll(src, w, fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", d.c, d.o, d.kh, d.kw))
		src = strings.Replace(src, "x[o, i, 0, 1]", "x[i, o, 0, 1]", 1)
		src = strings.Replace(src, "rhs_dilate = [1, 1]", "rhs_dilate = [1, 1], reverse = [true, true]", 1)
		op := parseConv(t, src)
		x := randF32Literal(t, r, int64(d.b), int64(d.c), int64(d.h), int64(d.w))
		k := randF32Literal(t, r, int64(d.c), int64(d.o), int64(d.kh), int64(d.kw))
		c, ok := fastConvShape(op, []Value{x, k})
		if !ok || !c.kernIO || !c.revH || !c.revW {
			t.Fatalf("%+v: fast path not taken with the kernel as it is", d)
		}
		checkRunExact(t, d, c, op, x, k, d.c*d.kh*d.kw)
	}
}

// TestTransposeKernelMatchesCopy: the tiled transpose of an [i, o, kh,
// kw] kernel gives the general strided copy's weights, reversed or not,
// for channel counts around the tile and sizes that split among threads.
func TestTransposeKernelMatchesCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, sz := range [][4]int{{5, 3, 3, 3}, {17, 33, 3, 3}, {64, 130, 3, 3}, {40, 7, 1, 1}, {130, 70, 1, 1}, {33, 20, 2, 3}} {
		for _, rev := range []bool{false, true} {
			c := &conv2d{outC: sz[0], kerC: sz[1], kh: sz[2], kw: sz[3], kernIO: true, revH: rev, revW: rev}
			c.rhs = make([]float32, sz[0]*sz[1]*sz[2]*sz[3])
			for i := range c.rhs {
				c.rhs[i] = r.Float32()
			}
			got := make([]float32, len(c.rhs))
			c.transposeKernel(got, rev)
			// the general path: a copy plan with the window reversal
			taps := int64(c.kh * c.kw)
			shape := []int64{int64(c.outC), int64(c.kerC), int64(c.kh), int64(c.kw)}
			src := []int64{taps, int64(c.outC) * taps, int64(c.kw), 1}
			off := int64(0)
			if rev {
				off = int64(c.kh-1)*src[2] + int64(c.kw-1)
				src[2], src[3] = -src[2], -1
			}
			want := make([]float32, len(c.rhs))
			newCopyPlan(4, shape, literal.Strides(shape), src).run(floatBytes(want), 0, floatBytes(c.rhs), off)
			if !slices.Equal(got, want) {
				t.Fatalf("%v reversed %v: the tiled transpose differs from the copy", sz, rev)
			}
		}
	}
}

// BenchmarkTransposeKernel transposes (and reverses) the input gradients'
// kernels of ResNet-18's last layers, [i, o, 3, 3] into [o, i, 3, 3].
func BenchmarkTransposeKernel(b *testing.B) {
	for _, ch := range []int{256, 512} {
		b.Run(fmt.Sprintf("%dx%dx3x3", ch, ch), func(b *testing.B) {
			c := &conv2d{outC: ch, kerC: ch, kh: 3, kw: 3, kernIO: true, revH: true, revW: true}
			c.rhs = make([]float32, ch*ch*9)
			w := make([]float32, len(c.rhs))
			b.SetBytes(int64(4 * len(w)))
			for i := 0; i < b.N; i++ {
				c.transposeKernel(w, true)
			}
		})
	}
}
