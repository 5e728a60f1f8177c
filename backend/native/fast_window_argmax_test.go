package native

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// argmaxRegion is the body aten's max_pool2d_with_indices lowering emits
// (maxPoolIndexBody, float), as printed.
const argmaxRegion = `    ^bb0(%a: tensor<f32>, %ai: tensor<i64>, %b: tensor<f32>, %bi: tensor<i64>):
      %77 = "stablehlo.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
      %78 = "stablehlo.compare"(%b, %a) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %79 = "stablehlo.compare"(%b, %a) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %80 = "stablehlo.compare"(%ai, %77) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %81 = "stablehlo.compare"(%bi, %ai) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %82 = "stablehlo.compare"(%bi, %77) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %83 = "stablehlo.and"(%81, %82) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %84 = "stablehlo.or"(%80, %83) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %85 = "stablehlo.and"(%79, %84) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %86 = "stablehlo.or"(%78, %85) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %87 = "stablehlo.compare"(%b, %b) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %88 = "stablehlo.compare"(%a, %a) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %89 = "stablehlo.and"(%87, %88) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %90 = "stablehlo.not"(%88) : (tensor<i1>) -> tensor<i1>
      %91 = "stablehlo.and"(%87, %90) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %92 = "stablehlo.compare"(%bi, %ai) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %93 = "stablehlo.and"(%89, %92) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %94 = "stablehlo.or"(%91, %93) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %95 = "stablehlo.or"(%87, %88) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %96 = "stablehlo.select"(%95, %94, %86) : (tensor<i1>, tensor<i1>, tensor<i1>) -> tensor<i1>
      %97 = "stablehlo.select"(%96, %b, %a) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %98 = "stablehlo.select"(%96, %bi, %ai) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%97, %98) : (tensor<f32>, tensor<i64>) -> ()`

// argmaxModule is a variadic reduce_window over (x, flat index) with
// argmaxRegion (or a body edited by edit) over a [2, 3, h, w] input.
func argmaxModule(t *testing.T, h, w, k, s, d, pad, oh, ow int, edit func(string) string) *stablehlo.Op {
	t.Helper()
	region := argmaxRegion
	if edit != nil {
		region = edit(region)
	}
	src := fmt.Sprintf(`func.func @main(%%x: tensor<2x3x%dx%dxf32>, %%i: tensor<2x3x%dx%dxi64>) -> (tensor<2x3x%dx%dxf32>, tensor<2x3x%dx%dxi64>) {
    %%c0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %%c1 = "stablehlo.constant"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
    %%r:2 = "stablehlo.reduce_window"(%%x, %%i, %%c0, %%c1) ({
%s
    }) {base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 0], [%d, %d], [%d, %d]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, %d, %d>, window_dimensions = array<i64: 1, 1, %d, %d>, window_strides = array<i64: 1, 1, %d, %d>} : (tensor<2x3x%dx%dxf32>, tensor<2x3x%dx%dxi64>, tensor<f32>, tensor<i64>) -> (tensor<2x3x%dx%dxf32>, tensor<2x3x%dx%dxi64>)
    func.return %%r#0, %%r#1 : tensor<2x3x%dx%dxf32>, tensor<2x3x%dx%dxi64>
}`, h, w, h, w, oh, ow, oh, ow, region, pad, pad+1, pad, pad+1, d, d, k, k, s, s, h, w, h, w, oh, ow, oh, ow, oh, ow, oh, ow)
	m, err := stablehlo.ParseModule("argmax.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, op := range m.Funcs[0].Body.Blocks[0].Ops {
		if op.Name == "stablehlo.reduce_window" {
			return op
		}
	}
	t.Fatal("no reduce_window")
	return nil
}

// The argmax window loop against the generic kernel, bit for bit: NaNs,
// signed zeros, ties, infinities, padding taps, strides and dilation; and
// a body that is not aten's (the smaller index among equal values
// replaced by the larger) keeps the generic kernel.
func TestFastArgmaxWindow(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), 1, 1, float32(math.Inf(-1)), float32(math.Inf(1))}
	// planes with NaNs, and (the second round of shapes) without
	// (3 columns at stride 2 with rows of 8 interior windows or more also
	// run argmax3s2x8, up to the plane's end: {30, 40, ...}, {17, 53, ...})
	for n, c := range []struct{ h, w, k, s, d, pad int }{{9, 10, 3, 2, 1, 1}, {8, 8, 2, 2, 1, 0}, {11, 7, 3, 1, 2, 1}, {6, 6, 5, 3, 1, 2}, {30, 40, 3, 2, 1, 1}, {17, 53, 3, 2, 1, 0},
		{9, 10, 3, 2, 1, 1}, {8, 8, 2, 2, 1, 0}, {11, 7, 3, 1, 2, 1}, {6, 6, 5, 3, 1, 2}, {20, 17, 3, 2, 1, 1}, {30, 40, 3, 2, 1, 1}, {17, 53, 3, 2, 1, 0}} {
		special := special
		if n >= 6 {
			special = special[1:] // no NaN
		}
		oh := (c.h+2*c.pad+1-(c.k-1)*c.d-1)/c.s + 1
		ow := (c.w+2*c.pad+1-(c.k-1)*c.d-1)/c.s + 1
		x, _ := literal.New(dtype.F32, []int64{2, 3, int64(c.h), int64(c.w)})
		idx, _ := literal.New(dtype.I64, x.Shape)
		for j := 0; j < x.Len(); j++ {
			v := float32(rng.Intn(5))
			if rng.Intn(4) == 0 {
				v = special[rng.Intn(len(special))]
			}
			x.SetFloat64(j, float64(v))
			idx.SetInt64(j, int64(j%(c.h*c.w)))
		}
		init0, _ := literal.New(dtype.F32, nil)
		init0.SetFloat64(0, math.Inf(-1))
		init1, _ := literal.New(dtype.I64, nil)
		init1.SetInt64(0, -1)
		// the indices as aten makes them (a constant of the plan, frozen:
		// taps' positions, argmaxPlanePos), as an argument (not frozen),
		// and frozen but not the positions
		moved := idx.Clone()
		moved.SetInt64(5, 0)
		moved.Frozen = true
		for _, ix := range []*literal.Literal{idx, func() *literal.Literal { f := idx.Clone(); f.Frozen = true; return f }(), moved} {
			in := []Value{x, ix, init0, init1}
			for _, edit := range []func(string) string{nil, func(r string) string {
				const lt = `%81 = "stablehlo.compare"(%bi, %ai) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}`
				if !strings.Contains(r, lt) {
					t.Fatal("the index comparison to edit is not in the body")
				}
				return strings.Replace(r, lt, strings.Replace(lt, "LT>", "GT>", 1), 1)
			}} {
				op := argmaxModule(t, c.h, c.w, c.k, c.s, c.d, c.pad, oh, ow, edit)
				fastWindowEnabled = false
				slow := mvRun(t, mvEnv{}, op, in...)
				fastWindowEnabled = true
				for _, vec := range []bool{false, simdPool} {
					argmaxSIMD = vec
					fast, took := fastArgmaxWindow(mvEnv{}, op, in)
					argmaxSIMD = simdPool
					if took != (edit == nil) {
						t.Fatalf("%+v (edited body %v): fast path taken %v", c, edit != nil, took)
					}
					if !took {
						continue
					}
					for r := 0; r < 2; r++ {
						if !bytes.Equal(fast[r].(*literal.Literal).Data, slow[r].(*literal.Literal).Data) {
							t.Fatalf("%+v (frozen indices %v, vectors %v): result %d differs from the generic kernel", c, ix.Frozen, vec, r)
						}
					}
				}
			}
		}
	}
}
