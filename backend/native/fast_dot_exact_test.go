package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The in-place exact path gives the exact kernel's bits for every layout
// the strided plan accepts, special values included (any NaN for a NaN:
// which operand's NaN an add keeps depends on how the compiler orders it).
func TestExactStridedDotMatchesExactBits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	none := []int64{}
	cases := []dotCase{
		{[]int64{20, 64}, []int64{64, 64}, none, none, []int64{1}, []int64{0}, true},                           // A·B
		{[]int64{20, 64}, []int64{64, 64}, none, none, []int64{1}, []int64{1}, true},                           // A·Bᵀ (linear)
		{[]int64{20, 63}, []int64{7, 63}, none, none, []int64{1}, []int64{1}, true},                            // A·Bᵀ, n not a multiple of 4
		{[]int64{64, 20}, []int64{64, 30}, none, none, []int64{0}, []int64{0}, true},                           // Aᵀ·B
		{[]int64{64, 20}, []int64{30, 64}, none, none, []int64{0}, []int64{1}, true},                           // Aᵀ·Bᵀ
		{[]int64{4, 20, 16}, []int64{4, 20, 16}, []int64{0}, []int64{0}, []int64{2}, []int64{2}, true},         // q·kᵀ per head
		{[]int64{4, 20, 20}, []int64{4, 20, 16}, []int64{0}, []int64{0}, []int64{2}, []int64{1}, true},         // p·v per head
		{[]int64{20, 4, 16}, []int64{4, 16, 20}, []int64{1}, []int64{0}, []int64{2}, []int64{1}, true},         // batch dim in the middle
		{[]int64{2, 3, 5, 8}, []int64{8, 5, 6}, none, none, []int64{3}, []int64{0}, true},                      // merged free dims
		{[]int64{3, 6, 2, 4}, []int64{3, 2, 4, 5}, []int64{0}, []int64{0}, []int64{2, 3}, []int64{1, 2}, true}, // two contracting dims
		{[]int64{1, 9}, []int64{9, 1}, none, none, []int64{1}, []int64{0}, true},                               // vector product
		{[]int64{5, 0}, []int64{0, 3}, none, none, []int64{1}, []int64{0}, true},                               // empty sum
		{[]int64{0, 4}, []int64{4, 3}, none, none, []int64{1}, []int64{0}, true},                               // empty result
	}
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, 3e38, -3e38, 1e-45}
	for _, dc := range cases {
		op := dc.op(t)
		a := randF32Literal(t, r, dc.lhs...)
		b := randF32Literal(t, r, dc.rhs...)
		for _, l := range []interface {
			Len() int
			SetFloat64(int, float64)
		}{a, b} {
			for i := 0; i < l.Len(); i += 7 {
				l.SetFloat64(i, float64(special[r.IntN(len(special))]))
			}
		}
		p, ok := stridedDotShape(op, a, b)
		if !ok || !p.small() {
			t.Fatalf("%v x %v: strided exact path not taken", dc.lhs, dc.rhs)
		}
		got, want := runDot(t, op, a, b, true), runDot(t, op, a, b, false)
		if got.DType != want.DType || len(got.Shape) != len(want.Shape) || len(got.Data) != len(want.Data) {
			t.Fatalf("%v x %v: %v, want %v", dc.lhs, dc.rhs, got, want)
		}
		g, w := f32View(got.Data), f32View(want.Data)
		for i := range w {
			if math.Float32bits(g[i]) != math.Float32bits(w[i]) && !(g[i] != g[i] && w[i] != w[i]) { // a NaN's sign and payload are not specified
				t.Fatalf("%v x %v: element %d = %#x, exact kernel %#x", dc.lhs, dc.rhs, i, math.Float32bits(g[i]), math.Float32bits(w[i]))
			}
		}
	}
}

// Rows split across goroutines give the same bits as one goroutine.
func TestExactStridedDotParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	dc := dotCase{[]int64{64, 41, 47}, []int64{64, 43, 47}, []int64{0}, []int64{0}, []int64{2}, []int64{2}, true}
	op := dc.op(t)
	a := randF32Literal(t, r, dc.lhs...)
	b := randF32Literal(t, r, dc.rhs...)
	if int64(64*41*43*47) < exactDotParallelMin || 41*43*47 >= fastGemmMinFlops {
		t.Fatal("case too small to split")
	}
	got, want := runDot(t, op, a, b, true), runDot(t, op, a, b, false)
	if string(got.Data) != string(want.Data) {
		t.Fatal("split product differs from the exact kernel")
	}
}

// BenchmarkSmallDot is a linear layer of the transformer encoder fixture
// (20×64 by 64×64ᵀ, below the GEMM threshold): in place vs gathered copies.
func BenchmarkSmallDot(b *testing.B) {
	r := rand.New(rand.NewPCG(25, 26))
	none := []int64{}
	dc := dotCase{[]int64{20, 64}, []int64{64, 64}, none, none, []int64{1}, []int64{1}, true}
	op := dc.op(&testing.T{})
	x := randF32Literal(&testing.T{}, r, dc.lhs...)
	w := randF32Literal(&testing.T{}, r, dc.rhs...)
	for _, inPlace := range []bool{true, false} {
		b.Run(map[bool]string{true: "in-place", false: "gathered"}[inPlace], func(b *testing.B) {
			defer func(old bool) { fastDotEnabled = old }(fastDotEnabled)
			fastDotEnabled = inPlace
			k := kernels["stablehlo.dot_general"]
			for b.Loop() {
				if _, err := k(nil, op, []Value{x, w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The SIMD tiles give scalarRows' bits for every tile remainder (rows not
// a multiple of 4, columns not a multiple of 16), strided and packed B,
// batches, and row ranges that start and end inside a batch.
func TestExactTilesMatchScalarRows(t *testing.T) {
	if !exactTilesOK {
		t.Skip("no SIMD tiles on this CPU")
	}
	eachForm(t, &exactTilesZ, checkTilesMatchScalarRows)
}

func checkTilesMatchScalarRows(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	none := []int64{}
	for iter := 0; iter < 200; iter++ {
		m, n, k := 1+r.IntN(13), 1+r.IntN(70), 1+r.IntN(20)
		batch := 1 + r.IntN(3)
		var dc dotCase
		switch r.IntN(3) {
		case 0: // A·B
			dc = dotCase{[]int64{int64(m), int64(k)}, []int64{int64(k), int64(n)}, none, none, []int64{1}, []int64{0}, true}
			batch = 1
		case 1: // A·Bᵀ (packed B)
			dc = dotCase{[]int64{int64(m), int64(k)}, []int64{int64(n), int64(k)}, none, none, []int64{1}, []int64{1}, true}
			batch = 1
		default: // batched, transposed A
			dc = dotCase{[]int64{int64(batch), int64(k), int64(m)}, []int64{int64(batch), int64(k), int64(n)}, []int64{0}, []int64{0}, []int64{1}, []int64{1}, true}
		}
		op := dc.op(t)
		a := randF32Literal(t, r, dc.lhs...)
		b := randF32Literal(t, r, dc.rhs...)
		p, ok := stridedDotShape(op, a, b)
		if !ok {
			t.Fatalf("%v x %v: no strided plan", dc.lhs, dc.rhs)
		}
		rows := p.batch * p.m
		lo := r.IntN(rows)
		hi := lo + 1 + r.IntN(rows-lo)
		got := make([]float32, rows*p.n)
		want := make([]float32, rows*p.n)
		if !p.tileRows(f32View(a.Data), f32View(b.Data), got, lo, hi) {
			t.Fatalf("%v x %v: tiles refused", dc.lhs, dc.rhs)
		}
		p.scalarRows(f32View(a.Data), f32View(b.Data), want, lo, hi)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v x %v rows [%d,%d): element %d = %v, scalar %v", dc.lhs, dc.rhs, lo, hi, i, got[i], want[i])
			}
		}
	}
}

// Operands shorter than the plan make the tiles refuse rather than read
// past them.
func TestExactTilesRefuseShortOperands(t *testing.T) {
	if !exactTilesOK {
		t.Skip("no SIMD tiles on this CPU")
	}
	r := rand.New(rand.NewPCG(29, 30))
	none := []int64{}
	dc := dotCase{[]int64{8, 16}, []int64{16, 24}, none, none, []int64{1}, []int64{0}, true}
	op := dc.op(t)
	a := randF32Literal(t, r, dc.lhs...)
	b := randF32Literal(t, r, dc.rhs...)
	p, _ := stridedDotShape(op, a, b)
	c := make([]float32, 8*24)
	av, bv := f32View(a.Data), f32View(b.Data)
	if p.tileRows(av[:len(av)-1], bv, c, 0, 8) || p.tileRows(av, bv[:len(bv)-1], c, 0, 8) || p.tileRows(av, bv, c[:len(c)-1], 0, 8) {
		t.Fatal("tiles ran on a short operand")
	}
}

// BenchmarkLinearDot compares the exact tiles with the packed GEMM on the
// linear layers of a small transformer ([20, in] by [out, in]ᵀ).
func BenchmarkLinearDot(b *testing.B) {
	r := rand.New(rand.NewPCG(31, 32))
	none := []int64{}
	for _, sz := range [][3]int64{{20, 64, 64}, {20, 64, 192}, {20, 64, 128}, {20, 128, 64}, {64, 64, 256}} {
		m, k, n := sz[0], sz[1], sz[2]
		dc := dotCase{[]int64{m, k}, []int64{n, k}, none, none, []int64{1}, []int64{1}, true}
		op := dc.op(&testing.T{})
		x := randF32Literal(&testing.T{}, r, dc.lhs...)
		w := randF32Literal(&testing.T{}, r, dc.rhs...)
		p, _ := stridedDotShape(op, x, w)
		out := randF32Literal(&testing.T{}, r, m, n)
		for _, path := range []string{"exact", "exact-avx2", "gemm"} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", m, k, n, path), func(b *testing.B) {
				defer func(old bool) { exactTilesZ = old }(exactTilesZ)
				exactTilesZ = exactTilesZ && path == "exact"
				t0 := benchCPU()
				defer func() { reportCPU(b, t0) }()
				for b.Loop() {
					if path != "gemm" {
						p.runExact(f32View(x.Data), f32View(w.Data), out)
					} else {
						p.run(f32View(x.Data), f32View(w.Data), out, nil)
					}
				}
			})
		}
	}
}
