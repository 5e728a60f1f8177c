package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
)

// TestFastConvKernelIOPacked runs input-gradient-like convolutions whose
// kernel is read as stored ([i, o, kh, kw], windows reversed or not) on
// the shared-columns GEMM path, which packs its bands of rows straight
// from that layout (packIO, fillIO): odd channel counts (a partial panel
// of rows), 1×1, 3×3 and 5×5 windows, k blocks that cut a window, two and
// four threads, NaN and ±Inf in the kernel; against the exact kernel, and
// bit for bit against the same convolution with the kernel transposed
// first (plainWeights), which sums in the same order.
func TestFastConvKernelIOPacked(t *testing.T) {
	defer func(old bool) { convPackIO = old }(convPackIO)
	// both ways on the implicit GEMM (the plain copy would otherwise take
	// the tap path, which sums in another order, or the AVX2 row path)
	defer func(t, r bool) { convTaps, convTapRows = t, r }(convTaps, convTapRows)
	convTaps, convTapRows = false, false
	// and the micro-kernels over the last panel's few columns too (the
	// tail kernels sum each form of A in an order of their own)
	defer gemm.SetDotTail(gemm.SetDotTail(false))
	r := rand.New(rand.NewPCG(45, 46))
	took := 0
	for _, procs := range []int{2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for i, d := range []dilCase{
			{8, 64, 4, 4, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // ResNet-18's last layers' input gradient
			{2, 40, 7, 7, 50, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // 50 rows: a partial panel
			{8, 96, 5, 5, 64, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // 1×1
			{2, 300, 6, 6, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1}, // k 2700: several k blocks, a window cut
			{3, 32, 6, 5, 44, 5, 5, 1, 1, 2, 1, 0, 2, 1},  // 5×5, asymmetric padding
		} {
			for _, rev := range []bool{true, false} {
				src := d.src()
				w := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", d.o, d.c, d.kh, d.kw)
				src = strings.ReplaceAll(src, w, fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", d.c, d.o, d.kh, d.kw))
				src = strings.Replace(src, "x[o, i, 0, 1]", "x[i, o, 0, 1]", 1)
				if rev {
					src = strings.Replace(src, "rhs_dilate = [1, 1]", "rhs_dilate = [1, 1], reverse = [true, true]", 1)
				}
				op := parseConv(t, src)
				x := randF32Literal(t, r, int64(d.b), int64(d.c), int64(d.h), int64(d.w))
				k := randF32Literal(t, r, int64(d.c), int64(d.o), int64(d.kh), int64(d.kw))
				if i%2 == 0 {
					k.SetFloat64(r.IntN(k.Len()), math.NaN())
					k.SetFloat64(r.IntN(k.Len()), math.Inf(1))
				}
				convPackIO = true
				c, ok := fastConvShape(op, []Value{x, k})
				if !ok || !c.kernIO || c.revH != rev || !c.packIO() {
					t.Fatalf("procs=%d %+v reversed %v: not packed from the stored kernel", procs, d, rev)
				}
				took++
				if i%2 == 1 {
					checkRunExact(t, d, c, op, x, k, d.c*d.kh*d.kw)
				}
				got := runConv(t, op, x, k, true)
				convPackIO = false
				want := runConv(t, op, x, k, true)
				for e := 0; e < want.Len(); e++ {
					g, v := got.Float64(e), want.Float64(e)
					if math.IsNaN(g) != math.IsNaN(v) || !math.IsNaN(v) && g != v {
						t.Fatalf("procs=%d %+v reversed %v: element %d = %v, transposed first %v", procs, d, rev, e, g, v)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	t.Logf("%d convolutions packed from the stored kernel", took)
}
