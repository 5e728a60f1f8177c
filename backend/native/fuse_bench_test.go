package native

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// BenchmarkBNReLU runs ResNet's batch-norm + ReLU epilogue on a
// 1x64x112x112 activation, planned (fused) and op by op.
func BenchmarkBNReLU(b *testing.B) {
	src := strings.ReplaceAll(fuseModules["bn_relu"], "2x8x5x7", "1x64x112x112")
	src = strings.ReplaceAll(src, "8xf32", "64xf32")
	m, err := stablehlo.ParseModule("bn", []byte("module {\n"+src+"\n}"))
	if err != nil {
		b.Fatal(err)
	}
	t := &testing.T{}
	rng := rand.New(rand.NewSource(1))
	var args []*literal.Literal
	for _, it := range m.Func("main").Type.Inputs {
		args = append(args, randomLiteral(t, rng, stablehlo.AsTensor(it)))
	}
	for _, plan := range []bool{true, false} {
		name := "plan"
		if !plan {
			name = "interp"
		}
		b.Run(name, func(b *testing.B) {
			e := compileWith(t, m, plan)
			b.SetBytes(int64(len(args[0].Data)))
			for i := 0; i < b.N; i++ {
				if _, err := e.Run(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
