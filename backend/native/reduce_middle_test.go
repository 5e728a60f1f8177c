package native

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// TestReduceMiddleMatchesIndexedFold: the block-wise float64 sum gives the
// bits of a fold through the permuted index, in four chains by position
// where reduced dims lie on both sides of the kept ones (reduce_slots.go).
func TestReduceMiddleMatchesIndexedFold(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		shape, dims []int64
		ok          bool
	}{
		{[]int64{8, 64, 7, 9}, []int64{0, 2, 3}, true},
		{[]int64{3, 5, 4}, []int64{0, 2}, true},
		{[]int64{2, 3, 4, 5}, []int64{0, 3}, true},
		{[]int64{2, 3, 4, 5}, []int64{3, 0}, true},
		{[]int64{6, 5}, []int64{1}, true},
		{[]int64{2, 3, 4}, []int64{1}, false}, // kept dims 0 and 2: not one block
	} {
		in, _ := literal.New(dtype.F64, tc.shape)
		for i := 0; i < in.Len(); i++ {
			in.SetFloat64(i, r.NormFloat64()*1e3)
		}
		init, _ := literal.New(dtype.F64, nil)
		init.SetFloat64(0, 0.5)
		perm, outShape, size, _ := reduceLayout(tc.shape, tc.dims)
		got, _ := literal.New(dtype.F64, outShape)
		if ok := reduceMiddle("stablehlo.add", in, init, got, tc.shape, tc.dims); ok != tc.ok {
			t.Fatalf("%v over %v: handled %v, want %v", tc.shape, tc.dims, ok, tc.ok)
		}
		if !tc.ok {
			continue
		}
		idx := permutedIndex(tc.shape, perm)
		// four chains by position when the kept block has reduced dims
		// on both sides, else one (reduce_slots.go)
		chains := tc.shape[0] > 1 && tc.shape[len(tc.shape)-1] > 1 && slices.Contains(tc.dims, 0) && slices.Contains(tc.dims, int64(len(tc.shape)-1))
		for g := 0; g < got.Len(); g++ {
			acc := 0.5
			for k := 0; k < size; k++ {
				acc += in.Float64(idx[g*size+k])
			}
			if chains {
				var s [4]float64
				for k := 0; k < size; k++ {
					s[k%4] += in.Float64(idx[g*size+k])
				}
				acc = 0.5 + ((s[0] + s[1]) + (s[2] + s[3]))
			}
			if got.Float64(g) != acc {
				t.Fatalf("%v over %v: element %d = %v, the indexed fold gives %v", tc.shape, tc.dims, g, got.Float64(g), acc)
			}
		}
	}
}
