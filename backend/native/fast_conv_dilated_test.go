package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestFastConvLhsDilation runs convolutions with an input dilation (the
// input gradient of a strided convolution: zeros between the input's
// elements) on the fast path against the exact kernel: the shapes of
// ResNet's stride-2 layers' gradients, asymmetric dilations, a pointwise
// kernel (whose planes the GEMM sees as one row), groups, a depthwise one
// (the direct kernels), a small one and NaN/Inf in the input.
func TestFastConvLhsDilation(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	type dcase struct {
		b, c, h, w, o, kh, kw, g int
		ldh, ldw                 int
		pt, pb, pl, pr           int
	}
	for _, dc := range []dcase{
		{2, 16, 7, 7, 8, 3, 3, 1, 2, 2, 1, 2, 1, 2},    // a stride-2 3x3 layer's input gradient
		{1, 24, 5, 6, 12, 3, 3, 1, 2, 3, 2, 2, 0, 3},   // asymmetric dilation and padding
		{2, 32, 6, 6, 16, 1, 1, 1, 2, 2, 0, 1, 0, 1},   // a stride-2 1x1 downsample's gradient
		{1, 32, 4, 4, 32, 3, 3, 4, 2, 2, 1, 1, 1, 1},   // grouped
		{1, 16, 5, 5, 16, 3, 3, 16, 2, 2, 2, 2, 2, 2},  // depthwise
		{1, 2, 3, 3, 3, 2, 2, 1, 3, 2, 1, 1, 0, 1},     // small
		{1, 1, 1, 1, 4, 3, 3, 1, 2, 2, 2, 2, 2, 2},     // one pixel: nothing to dilate
		{1, 64, 14, 14, 32, 3, 3, 1, 2, 2, 1, 2, 1, 2}, // large enough for every core
	} {
		dilH, dilW := (dc.h-1)*dc.ldh+1, (dc.w-1)*dc.ldw+1
		oh, ow := dilH+dc.pt+dc.pb-dc.kh+1, dilW+dc.pl+dc.pr-dc.kw+1
		src := fmt.Sprintf(`func.func @f(%%x: tensor<%dx%dx%dx%dxf32>, %%w: tensor<%dx%dx%dx%dxf32>) -> tensor<%dx%dx%dx%dxf32> {
  %%0 = stablehlo.convolution(%%x, %%w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[%d, %d], [%d, %d]], lhs_dilate = [%d, %d]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (tensor<%dx%dx%dx%dxf32>, tensor<%dx%dx%dx%dxf32>) -> tensor<%dx%dx%dx%dxf32>
  func.return %%0 : tensor<%dx%dx%dx%dxf32>
}`, dc.b, dc.c, dc.h, dc.w, dc.o, dc.c/dc.g, dc.kh, dc.kw, dc.b, dc.o, oh, ow,
			dc.pt, dc.pb, dc.pl, dc.pr, dc.ldh, dc.ldw, dc.g,
			dc.b, dc.c, dc.h, dc.w, dc.o, dc.c/dc.g, dc.kh, dc.kw, dc.b, dc.o, oh, ow, dc.b, dc.o, oh, ow)
		m, err := stablehlo.ParseModule("conv.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%+v: %v", dc, err)
		}
		op := m.Funcs[0].Body.Entry().Ops[0]
		x := randF32Literal(t, r, int64(dc.b), int64(dc.c), int64(dc.h), int64(dc.w))
		w := randF32Literal(t, r, int64(dc.o), int64(dc.c/dc.g), int64(dc.kh), int64(dc.kw))
		if x.Len() > 4 {
			x.SetFloat64(3, math.NaN())
			x.SetFloat64(x.Len()-1, math.Inf(1))
		}
		if _, ok := fastConvShape(op, []Value{x, w}); !ok {
			t.Fatalf("%+v: fast path not taken", dc)
		}
		for _, in := range []*literal.Literal{x, randF32Literal(t, r, x.Shape...)} {
			got, want := runConv(t, op, in, w, true), runConv(t, op, in, w, false)
			if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
				t.Fatalf("%+v: shape %v, want %v", dc, got.Shape, want.Shape)
			}
			k := float64(dc.c / dc.g * dc.kh * dc.kw)
			for i := 0; i < want.Len(); i++ {
				g, e := got.Float64(i), want.Float64(i)
				if math.IsNaN(e) || math.IsInf(e, 0) {
					if !(math.IsNaN(g) && math.IsNaN(e) || g == e) {
						t.Fatalf("%+v: element %d = %v, exact kernel %v", dc, i, g, e)
					}
					continue
				}
				if math.Abs(g-e) > 8e-6*math.Sqrt(k)*(1+math.Abs(e)) {
					t.Fatalf("%+v: element %d = %v, exact kernel %v", dc, i, g, e)
				}
			}
		}
	}
}
