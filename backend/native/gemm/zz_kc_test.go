package gemm

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestKcSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1024, 2048} {
		a, bb, c := randMat(r, n*n), randMat(r, n*n), make([]float32, n*n)
		flops := 2 * float64(n) * float64(n) * float64(n)
		kcs := []int{128, 192, 256, 384}
		res := map[int][]float64{}
		for rep := 0; rep < 5; rep++ {
			for _, kc := range kcs {
				kcMax = kc
				c0 := processCPU()
				Sgemm(n, n, n, RowMajor(a, n), RowMajor(bb, n), c, n, false, 2)
				res[kc] = append(res[kc], flops/((processCPU()-c0).Seconds()/2)/1e9)
			}
		}
		for _, kc := range kcs {
			x := res[kc]
			sort.Float64s(x)
			fmt.Printf("n=%d kc=%d cpuGFLOP/s med %.0f max %.0f\n", n, kc, x[len(x)/2], x[len(x)-1])
		}
	}
	kcMax = 384
}
