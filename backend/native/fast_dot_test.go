package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

type dotCase struct {
	lhs, rhs       []int64
	lb, rb, lc, rc []int64
	fast           bool // whether the fast path should take it
}

func tensorType(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = fmt.Sprint(d)
	}
	return "tensor<" + strings.Join(parts, "x") + "xf32>"
}

func (dc dotCase) op(t *testing.T) *stablehlo.Op {
	t.Helper()
	return dc.module(t).Funcs[0].Body.Blocks[0].Ops[0]
}

// module returns a module whose one function multiplies its arguments as
// dc does.
func (dc dotCase) module(t *testing.T) *stablehlo.Module {
	t.Helper()
	var res []int64
	for _, d := range dc.lb {
		res = append(res, dc.lhs[d])
	}
	for i, d := range dc.lhs {
		if !slices.Contains(dc.lb, int64(i)) && !slices.Contains(dc.lc, int64(i)) {
			res = append(res, d)
		}
	}
	for i, d := range dc.rhs {
		if !slices.Contains(dc.rb, int64(i)) && !slices.Contains(dc.rc, int64(i)) {
			res = append(res, d)
		}
	}
	list := func(v []int64) string { return strings.Trim(fmt.Sprint(v), "[]") }
	src := fmt.Sprintf(`func.func @f(%%a: %s, %%b: %s) -> %s {
  %%0 = stablehlo.dot_general %%a, %%b, batching_dims = [%s] x [%s], contracting_dims = [%s] x [%s] : (%s, %s) -> %s
  func.return %%0 : %s
}`, tensorType(dc.lhs), tensorType(dc.rhs), tensorType(res),
		strings.ReplaceAll(list(dc.lb), " ", ", "), strings.ReplaceAll(list(dc.rb), " ", ", "),
		strings.ReplaceAll(list(dc.lc), " ", ", "), strings.ReplaceAll(list(dc.rc), " ", ", "),
		tensorType(dc.lhs), tensorType(dc.rhs), tensorType(res), tensorType(res))
	m, err := stablehlo.ParseModule("dot.mlir", []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return m
}

func runDot(t *testing.T, op *stablehlo.Op, a, b *literal.Literal, fast bool) *literal.Literal {
	t.Helper()
	defer func(old bool) { fastDotEnabled = old }(fastDotEnabled)
	fastDotEnabled = fast
	out, err := kernels["stablehlo.dot_general"](nil, op, []Value{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return out[0].(*literal.Literal)
}

func TestFastDotMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	none := []int64{}
	cases := []dotCase{
		{[]int64{64, 96}, []int64{96, 80}, none, none, []int64{1}, []int64{0}, true},                               // A·B
		{[]int64{96, 64}, []int64{96, 80}, none, none, []int64{0}, []int64{0}, true},                               // Aᵀ·B
		{[]int64{64, 96}, []int64{80, 96}, none, none, []int64{1}, []int64{1}, true},                               // A·Bᵀ (linear)
		{[]int64{4, 50, 64}, []int64{4, 64, 70}, []int64{0}, []int64{0}, []int64{2}, []int64{1}, true},             // batched
		{[]int64{50, 4, 64}, []int64{4, 64, 70}, []int64{1}, []int64{0}, []int64{2}, []int64{1}, true},             // batch dim in the middle
		{[]int64{2, 3, 20, 64}, []int64{64, 5, 16}, none, none, []int64{3}, []int64{0}, true},                      // merged free dims
		{[]int64{8, 60, 2, 32}, []int64{8, 2, 32, 50}, []int64{0}, []int64{0}, []int64{2, 3}, []int64{1, 2}, true}, // two contracting dims
		{[]int64{48, 64, 3}, []int64{64, 70}, none, none, []int64{1}, []int64{0}, false},                           // free dims 0 and 2 do not merge
		{[]int64{8, 8}, []int64{8, 8}, none, none, []int64{1}, []int64{0}, false},                                  // below the threshold
		{[]int64{1, 1280}, []int64{1000, 1280}, none, none, []int64{1}, []int64{1}, true},                          // linear on one token (matrix-vector)
		{[]int64{1, 2001}, []int64{300, 2001}, none, none, []int64{1}, []int64{1}, true},                           // matrix-vector, odd k
	}
	for _, dc := range cases {
		op := dc.op(t)
		a := randF32Literal(t, r, dc.lhs...)
		b := randF32Literal(t, r, dc.rhs...)
		if _, ok := fastDotShape(op, a, b); ok != dc.fast {
			t.Fatalf("%v x %v: fast path taken = %v, want %v", dc.lhs, dc.rhs, ok, dc.fast)
		}
		got, want := runDot(t, op, a, b, true), runDot(t, op, a, b, false)
		if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) || got.DType != want.DType {
			t.Fatalf("%v x %v: %v, want %v", dc.lhs, dc.rhs, got, want)
		}
		for i := 0; i < want.Len(); i++ {
			g, e := got.Float64(i), want.Float64(i)
			if math.Abs(g-e) > 1e-5*math.Sqrt(float64(a.Len()))*(1+math.Abs(e)) {
				t.Fatalf("%v x %v: element %d = %v, exact kernel %v", dc.lhs, dc.rhs, i, g, e)
			}
		}
	}
}

func TestGroupStride(t *testing.T) {
	shape := []int64{2, 3, 1, 4}
	for _, c := range []struct {
		dims   []int
		stride int
		ok     bool
	}{{nil, 1, true}, {[]int{0, 1}, 4, true}, {[]int{1, 2, 3}, 1, true}, {[]int{0, 3}, 0, false}, {[]int{1, 0}, 0, false}, {[]int{2}, 1, true}} {
		s, ok := groupStride(shape, c.dims)
		if ok != c.ok || (ok && s != c.stride) {
			t.Errorf("groupStride(%v, %v) = %d, %v; want %d, %v", shape, c.dims, s, ok, c.stride, c.ok)
		}
	}
}

// The per-op plan cache replans when the operand shapes change (a
// dynamic sequence length) and gives the exact kernel's results each time.
func TestFastDotPlanCacheFollowsShapes(t *testing.T) {
	src := `func.func @f(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  func.return %0 : tensor<?x8xf32>
}`
	m, err := stablehlo.ParseModule("dot.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	op := m.Funcs[0].Body.Blocks[0].Ops[0]
	r := rand.New(rand.NewPCG(13, 14))
	b := randF32Literal(t, r, 16, 8)
	for _, rows := range []int64{3, 40, 3, 1, 40} {
		a := randF32Literal(t, r, rows, 16)
		got, want := runDot(t, op, a, b, true), runDot(t, op, a, b, false)
		if !slices.Equal(got.Shape, want.Shape) || string(got.Data) != string(want.Data) {
			t.Fatalf("rows %d: %v, want %v", rows, got, want)
		}
	}
}
