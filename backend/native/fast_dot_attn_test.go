package native

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkAttentionDot is the attention products of the transformer
// encoder fixture: 8 heads of [10, 16]·[16, 10] and [10, 10]·[10, 16].
func BenchmarkAttentionDot(b *testing.B) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, dc := range []dotCase{
		{[]int64{2, 4, 10, 16}, []int64{2, 4, 16, 10}, []int64{0, 1}, []int64{0, 1}, []int64{3}, []int64{2}, true},
		{[]int64{2, 4, 10, 10}, []int64{2, 4, 10, 16}, []int64{0, 1}, []int64{0, 1}, []int64{3}, []int64{2}, true},
	} {
		op := dc.op(&testing.T{})
		x := randF32Literal(&testing.T{}, r, dc.lhs...)
		w := randF32Literal(&testing.T{}, r, dc.rhs...)
		k := kernels["stablehlo.dot_general"]
		b.Run(fmt.Sprint(dc.lhs, dc.rhs), func(b *testing.B) {
			t0 := benchCPU()
			defer func() { reportCPU(b, t0) }()
			for b.Loop() {
				if _, err := k(nil, op, []Value{x, w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
