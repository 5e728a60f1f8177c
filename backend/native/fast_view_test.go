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

// Slices taken as views, and slices copied by their cached plan, hold the
// bytes the copying kernel gives, and the views are taken exactly when the
// elements are contiguous.
func TestSliceViewMatchesCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	views := 0
	for iter := 0; iter < 400; iter++ {
		rank := 1 + r.IntN(4)
		shape := make([]int64, rank)
		start, limit, strides, out := make([]int64, rank), make([]int64, rank), make([]int64, rank), make([]int64, rank)
		for d := range shape {
			shape[d] = 1 + int64(r.IntN(4))
			start[d] = int64(r.IntN(int(shape[d])))
			limit[d] = start[d] + 1 + int64(r.IntN(int(shape[d]-start[d])))
			if r.IntN(3) == 0 { // whole dims make contiguous slices likely
				start[d], limit[d] = 0, shape[d]
			}
			strides[d] = 1
			if r.IntN(6) == 0 {
				strides[d] = 2
			}
			out[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d]
		}
		list := func(v []int64) string { return strings.Trim(strings.ReplaceAll(fmt.Sprint(v), " ", ", "), "[]") }
		src := fmt.Sprintf(`func.func @f(%%a: %s) -> %s {
  %%0 = "stablehlo.slice"(%%a) {start_indices = array<i64: %s>, limit_indices = array<i64: %s>, strides = array<i64: %s>} : (%s) -> %s
  func.return %%0 : %s
}`, tensorType(shape), tensorType(out), list(start), list(limit), list(strides), tensorType(shape), tensorType(out), tensorType(out))
		m, err := stablehlo.ParseModule("slice.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		op := m.Funcs[0].Body.Blocks[0].Ops[0]
		x := randF32Literal(t, r, shape...)
		want, err := mvSlice(nil, op, x, start, limit, strides)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := sliceView(op, []Value{x})
		// contiguous: after the first dim with more than one element, every dim is whole and unit-strided
		contiguous, seen := true, false
		for d := range shape {
			if seen && out[d] != shape[d] {
				contiguous = false
			}
			if out[d] > 1 {
				if strides[d] != 1 {
					contiguous = false
				}
				seen = true
			}
		}
		if ok != contiguous {
			t.Fatalf("%v[%v:%v:%v]: view taken = %v, contiguous = %v", shape, start, limit, strides, ok, contiguous)
		}
		// the cached copy plan (every slice, view or not): the same bytes,
		// twice (the second from the cache)
		for k := 0; k < 2; k++ {
			e := slicePlan(op, x)
			if e == nil {
				t.Fatalf("%v[%v:%v:%v]: no copy plan", shape, start, limit, strides)
			}
			c := make([]byte, len(want.Data))
			e.plan.run(c, 0, x.Data, e.off)
			if !slices.Equal(e.out, want.Shape) || string(c) != string(want.Data) {
				t.Fatalf("%v[%v:%v:%v]: planned copy differs from the kernel's", shape, start, limit, strides)
			}
		}
		if !ok {
			continue
		}
		views++
		if !slices.Equal(got.Shape, want.Shape) || string(got.Data) != string(want.Data) || cap(got.Data) != len(got.Data) {
			t.Fatalf("%v[%v:%v:%v]: view %v, copy %v", shape, start, limit, strides, got, want)
		}
	}
	if views == 0 {
		t.Fatal("no case took a view")
	}
}

// The transpose wrapper (cached copy plan, uncleared result) gives the
// copying kernel's bytes, also when one op sees several operand shapes.
func TestTransposePlanMatchesCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	k := kernels["stablehlo.transpose"]
	for iter := 0; iter < 100; iter++ {
		rank := 1 + r.IntN(4)
		perm := r.Perm(rank)
		p64 := make([]int64, rank)
		for i, p := range perm {
			p64[i] = int64(p)
		}
		list := strings.Trim(strings.ReplaceAll(fmt.Sprint(p64), " ", ", "), "[]")
		dyn := make([]string, rank)
		for i := range dyn {
			dyn[i] = "?"
		}
		ty := "tensor<" + strings.Join(dyn, "x") + "xf32>"
		src := fmt.Sprintf(`func.func @f(%%a: %s) -> %s {
  %%0 = "stablehlo.transpose"(%%a) {permutation = array<i64: %s>} : (%s) -> %s
  func.return %%0 : %s
}`, ty, ty, list, ty, ty, ty)
		m, err := stablehlo.ParseModule("transpose.mlir", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		op := m.Funcs[0].Body.Blocks[0].Ops[0]
		for call := 0; call < 3; call++ {
			shape := make([]int64, rank)
			for d := range shape {
				shape[d] = 1 + int64(r.IntN(5))
			}
			x := randF32Literal(t, r, shape...)
			got, err := k(nil, op, []Value{x})
			if err != nil {
				t.Fatal(err)
			}
			want, err := kTranspose(nil, op, []Value{x})
			if err != nil {
				t.Fatal(err)
			}
			g, w := got[0].(*literal.Literal), want[0].(*literal.Literal)
			if !slices.Equal(g.Shape, w.Shape) || string(g.Data) != string(w.Data) {
				t.Fatalf("%v by %v: %v, want %v", shape, perm, g, w)
			}
		}
	}
}
