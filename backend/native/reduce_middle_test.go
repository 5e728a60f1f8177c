package native

import (
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// TestReduceMiddleMatchesIndexedFold: the block-wise float64 sum gives the
// same bits as the general path's fold through the permuted index.
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
		for g := 0; g < got.Len(); g++ {
			acc := 0.5
			for k := 0; k < size; k++ {
				acc += in.Float64(idx[g*size+k])
			}
			if got.Float64(g) != acc {
				t.Fatalf("%v over %v: element %d = %v, the indexed fold gives %v", tc.shape, tc.dims, g, got.Float64(g), acc)
			}
		}
	}
}
