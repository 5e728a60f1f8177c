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

// BenchmarkFusedGroup runs the fusion group of a module directly (no
// arena, no allocation) on ResNet-sized activations: batch norm + ReLU,
// and batch norm + residual add + ReLU. Run with -cpu 1 for one thread.
func BenchmarkFusedGroup(b *testing.B) {
	mods := map[string]string{
		"bn_relu_64x112x112": strings.ReplaceAll(strings.ReplaceAll(fuseModules["bn_relu"], "2x8x5x7", "1x64x112x112"), "8xf32", "64xf32"),
		"bn_relu_256x14x14":  strings.ReplaceAll(strings.ReplaceAll(fuseModules["bn_relu"], "2x8x5x7", "1x256x14x14"), "8xf32", "256xf32"),
		"bn_relu_512x7x7":    strings.ReplaceAll(strings.ReplaceAll(fuseModules["bn_relu"], "2x8x5x7", "1x512x7x7"), "8xf32", "512xf32"),
		"bn_relu_256x4x16":   strings.ReplaceAll(strings.ReplaceAll(fuseModules["bn_relu"], "2x8x5x7", "1x256x4x16"), "8xf32", "256xf32"),
		"bn_relu_512x1x16":   strings.ReplaceAll(strings.ReplaceAll(fuseModules["bn_relu"], "2x8x5x7", "1x512x1x16"), "8xf32", "512xf32"),
		"bn_add_relu_64x56x56": `func.func @main(%x: tensor<1x64x56x56xf32>, %s: tensor<64xf32>, %b: tensor<64xf32>, %r: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<64xf32>) -> tensor<1x64x56x56xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<1x64x56x56xf32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<64xf32>) -> tensor<1x64x56x56xf32>
  %3 = stablehlo.add %1, %2 : tensor<1x64x56x56xf32>
  %4 = stablehlo.add %3, %r : tensor<1x64x56x56xf32>
  %5 = stablehlo.constant dense<0.0> : tensor<1x64x56x56xf32>
  %6 = stablehlo.compare LT, %4, %5, FLOAT : (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xi1>
  %7 = stablehlo.select %6, %5, %4 : tensor<1x64x56x56xi1>, tensor<1x64x56x56xf32>
  return %7 : tensor<1x64x56x56xf32>
}`,
		// EfficientNet's batch norm + SiLU, x / (1 + exp(-x)) as aten lowers it
		"bn_silu_96x64x64": `func.func @main(%x: tensor<1x96x64x64xf32>, %s: tensor<96xf32>, %b: tensor<96xf32>) -> tensor<1x96x64x64xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<96xf32>) -> tensor<1x96x64x64xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<1x96x64x64xf32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<96xf32>) -> tensor<1x96x64x64xf32>
  %3 = stablehlo.add %1, %2 : tensor<1x96x64x64xf32>
  %4 = stablehlo.negate %3 : tensor<1x96x64x64xf32>
  %5 = stablehlo.exponential %4 : tensor<1x96x64x64xf32>
  %6 = stablehlo.constant dense<1.0> : tensor<1x96x64x64xf32>
  %7 = stablehlo.add %6, %5 : tensor<1x96x64x64xf32>
  %8 = stablehlo.divide %3, %7 : tensor<1x96x64x64xf32>
  return %8 : tensor<1x96x64x64xf32>
}`,
		// GPT-2's tanh GELU inner chain (its tanh is saved for the backward)
		"gelu_tanh_4x64x512": `func.func @main(%x: tensor<4x64x512xf32>) -> tensor<4x64x512xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4x64x512xf32>
  %1 = stablehlo.multiply %0, %x : tensor<4x64x512xf32>
  %2 = stablehlo.constant dense<0.044715> : tensor<4x64x512xf32>
  %3 = stablehlo.multiply %1, %2 : tensor<4x64x512xf32>
  %4 = stablehlo.add %x, %3 : tensor<4x64x512xf32>
  %5 = stablehlo.constant dense<0.7978845834732056> : tensor<4x64x512xf32>
  %6 = stablehlo.multiply %4, %5 : tensor<4x64x512xf32>
  %7 = stablehlo.tanh %6 : tensor<4x64x512xf32>
  return %7 : tensor<4x64x512xf32>
}`,
	}
	for _, name := range []string{"gelu_tanh_4x64x512", "bn_relu_64x112x112", "bn_relu_256x14x14", "bn_relu_512x7x7", "bn_relu_256x4x16", "bn_relu_512x1x16", "bn_add_relu_64x56x56", "bn_silu_96x64x64"} {
		m, err := stablehlo.ParseModule(name, []byte("module {\n"+mods[name]+"\n}"))
		if err != nil {
			b.Fatal(err)
		}
		t := &testing.T{}
		e := compileWith(t, m, true)
		ep := e.(*Executable).prog.plans[m.Func("main")].exec
		var g *fusedGroup
		for _, st := range ep.steps {
			if st.group != nil {
				g = st.group
			}
		}
		if g == nil {
			b.Fatal("no group")
		}
		rng := rand.New(rand.NewSource(1))
		leaves := make([]*literal.Literal, len(g.nodes))
		for i, nd := range g.nodes {
			if nd.kind != fkLeaf {
				continue
			}
			for a, s := range ep.args {
				if s == nd.slot {
					l := randomLiteral(t, rng, stablehlo.AsTensor(m.Func("main").Type.Inputs[a]))
					for k := 0; k < l.Len(); k++ { // no NaNs or subnormals
						l.SetFloat64(k, rng.NormFloat64())
					}
					leaves[i] = l
				}
			}
		}
		out := make([]byte, g.n*g.dt.Size())
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			defer reportCPU(b, benchCPU())
			for i := 0; i < b.N; i++ {
				execFused(g, leaves, out)
			}
		})
	}
}

// BenchmarkGELUTanhBackward runs the fusion group of GPT-2's backward
// that computes the tanh-approximate GELU's gradient (fuse_gelu_bwd_test.go)
// over [4, 64, 512], folded into one vector loop and op by op (the
// fold off: a row pass per op). Run with -cpu 1 for one thread.
func BenchmarkGELUTanhBackward(b *testing.B) {
	m, err := stablehlo.ParseModule("gelu_tanh_bwd", []byte("module {\n"+geluTanhBackwardModule("4x64x512")+"\n}"))
	if err != nil {
		b.Fatal(err)
	}
	for _, fold := range []bool{true, false} {
		name := "fold"
		if !fold {
			name = "ops"
		}
		t := &testing.T{}
		foldGELUTanhBackward = fold
		e := compileWith(t, m, true)
		foldGELUTanhBackward = true
		ep := e.(*Executable).prog.plans[m.Func("main")].exec
		var g *fusedGroup
		for _, st := range ep.steps {
			if st.group != nil && st.group.nops == 21 {
				g = st.group
			}
		}
		if g == nil || geluTanhBackwardFolded(e, m) != fold {
			b.Fatalf("no group of the 21 ops, or not folded as asked (%v)", fold)
		}
		rng := rand.New(rand.NewSource(1))
		leaves := make([]*literal.Literal, len(g.nodes))
		for i, nd := range g.nodes {
			if nd.kind != fkLeaf {
				continue
			}
			for a, s := range ep.args {
				if s == nd.slot {
					l := randomLiteral(t, rng, stablehlo.AsTensor(m.Func("main").Type.Inputs[a]))
					for k := 0; k < l.Len(); k++ { // GPT-2's gradients (a) and activations (x)
						l.SetFloat64(k, rng.NormFloat64()*[2]float64{1e-3, 2}[a])
					}
					leaves[i] = l
				}
			}
		}
		out := make([]byte, g.n*g.dt.Size())
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			defer reportCPU(b, benchCPU())
			for i := 0; i < b.N; i++ {
				execFused(g, leaves, out)
			}
		})
	}
}
