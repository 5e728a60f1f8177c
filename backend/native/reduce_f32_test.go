package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// The float32 folds give the generic float64 fold's bits: sums and
// products that round, signed zeros, infinities and NaNs (quiet, with
// the first NaN's payload), contiguous and permuted groups; contiguous
// sums in package rowsum's 64 slots, its one-chain sum where that is NaN
// or 0.
func TestReduceF32MatchesFloatFold(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	special := []float32{float32(math.NaN()), math.Float32frombits(0x7fa00001), math.Float32frombits(0xffc00123),
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, 3e38, -3e38, 1e-45, 1, -1}
	for iter := 0; iter < 300; iter++ {
		groups, size := 1+r.IntN(6), r.IntN(9)
		in, _ := literal.New(dtype.F32, []int64{int64(groups * size)})
		src := f32View(in.Data)
		for i := range src {
			if r.IntN(4) == 0 {
				src[i] = special[r.IntN(len(special))]
			} else {
				src[i] = float32(r.NormFloat64() * 1e3)
			}
		}
		var idx []int
		if r.IntN(2) == 0 {
			idx = r.Perm(groups * size)
		}
		init, _ := literal.New(dtype.F32, nil)
		f32View(init.Data)[0] = special[r.IntN(len(special))]
		for _, k := range []foldKind{foldAdd, foldMul, foldMax, foldMin} {
			out, _ := literal.New(dtype.F32, []int64{int64(groups)})
			if !reduceF32(k, in, init, out, groups, size, idx) {
				t.Fatalf("fold %d: not taken", k)
			}
			f := floatFold(k, dtype.F32)
			for g := 0; g < groups; g++ {
				acc := float64(f32View(init.Data)[0])
				for j := 0; j < size; j++ {
					at := g*size + j
					if idx != nil {
						at = idx[at]
					}
					acc = f(acc, float64(src[at]))
				}
				if k == foldAdd && idx == nil && size > 0 {
					// contiguous sums: in 64 slots (package rowsum)
					in0 := f32View(init.Data)[0]
					if s := slotSum(in0, src[g*size:(g+1)*size]); s == s && !(s == 0 && math.Signbit(float64(in0))) {
						acc = float64(s)
					}
				}
				want, got := math.Float32bits(float32(acc)), math.Float32bits(f32View(out.Data)[g])
				if want != got {
					t.Fatalf("fold %d, group %d of %v (idx %v): %#x, want %#x", k, g, src, idx, got, want)
				}
			}
		}
	}
}

// slotSum is init + Σ x in package rowsum's order, written out apart:
// element i into slot i%64 in order, the four groups of 16 slots pairwise,
// then the 16 lanes by halves (rowsum's tests have the same reference).
func slotSum(init float32, x []float32) float32 {
	var slot [64]float32
	for i, v := range x {
		slot[i%64] += v
	}
	var l [16]float32
	for j := range l {
		l[j] = (slot[j] + slot[16+j]) + (slot[32+j] + slot[48+j])
	}
	a := [8]float32{}
	for j := range a {
		a[j] = l[j] + l[j+8]
	}
	b := [4]float32{a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]}
	c := [2]float32{b[0] + b[2], b[1] + b[3]}
	return init + (c[0] + c[1])
}
