//go:build cgo

package pjrt_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	_ "github.com/torchtpu/torchtpu/backend/native"
)

// BenchmarkGEMM times an f32 n×n×n matmul on the native backend and on
// XLA's CPU plugin side by side, operands resident on the device (no
// transfer is timed): scripts/bench-xla.sh prints the ratios.
func BenchmarkGEMM(b *testing.B) {
	for _, n := range []int64{1024, 2048} {
		for _, dev := range []string{"cpu", "xla-cpu"} {
			b.Run(fmt.Sprintf("%d/%s", n, dev), func(b *testing.B) {
				ctx := context.Background()
				src := fmt.Sprintf(`func.func @main(%%a: tensor<%[1]dx%[1]dxf32>, %%b: tensor<%[1]dx%[1]dxf32>) -> tensor<%[1]dx%[1]dxf32> {
  %%0 = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : (tensor<%[1]dx%[1]dxf32>, tensor<%[1]dx%[1]dxf32>) -> tensor<%[1]dx%[1]dxf32>
  return %%0 : tensor<%[1]dx%[1]dxf32>
}`, n)
				be, err := backend.Open(dev)
				if err != nil {
					b.Skip(err)
				}
				exe := compileOn(b, dev, src)
				x, y := ramp([]int64{n, n}, 0.01), ramp([]int64{n, n}, 0.02)
				bx, _ := backend.Upload(ctx, be, x)
				by, _ := backend.Upload(ctx, be, y)
				defer bx.Release()
				defer by.Release()
				args := []backend.Buffer{bx, by}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					outs, err := backend.RunBuffers(ctx, be, exe, args, nil)
					if err == nil {
						err = outs[0].Await(ctx)
					}
					if err != nil {
						b.Fatal(err)
					}
					backend.ReleaseAll(outs)
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
