package native

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/backend/native/rowsum"
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
					var rs rowsum.Slots // its order, checked against a written-out reference in rowsum's tests
					rs.Add(src[g*size:(g+1)*size], 0)
					if s := in0 + rs.Total(); s == s && !(s == 0 && math.Signbit(float64(in0))) {
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
