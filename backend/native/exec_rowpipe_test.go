package native

import (
	"bytes"
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// rowPipeModules are a layer norm and a masked softmax as aten lowers
// them, with rows of odd width, a residual add in front and the rows split
// over several blocks.
var rowPipeModules = map[string]string{
	"layernorm": `func.func @main(%a: tensor<3x37x261xf32>, %b: tensor<3x37x261xf32>, %g: tensor<261xf32>, %h: tensor<261xf32>) -> (tensor<3x37x261xf32>, tensor<3x37x261xf32>) {
  %x = stablehlo.add %a, %b : tensor<3x37x261xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<3x37x261xf32>, tensor<f32>) -> tensor<3x37xf32>
  %s1 = stablehlo.reshape %s : (tensor<3x37xf32>) -> tensor<3x37x1xf32>
  %n = stablehlo.constant dense<261.0> : tensor<3x37x1xf32>
  %m = stablehlo.divide %s1, %n : tensor<3x37x1xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<3x37x1xf32>) -> tensor<3x37x261xf32>
  %d = stablehlo.subtract %x, %mb : tensor<3x37x261xf32>
  %q = stablehlo.multiply %d, %d : tensor<3x37x261xf32>
  %z2 = stablehlo.constant dense<0.0> : tensor<f32>
  %v = stablehlo.reduce(%q init: %z2) applies stablehlo.add across dimensions = [2] : (tensor<3x37x261xf32>, tensor<f32>) -> tensor<3x37xf32>
  %v1 = stablehlo.reshape %v : (tensor<3x37xf32>) -> tensor<3x37x1xf32>
  %vn = stablehlo.divide %v1, %n : tensor<3x37x1xf32>
  %e = stablehlo.constant dense<1.0e-5> : tensor<3x37x1xf32>
  %ve = stablehlo.add %vn, %e : tensor<3x37x1xf32>
  %r = stablehlo.rsqrt %ve : tensor<3x37x1xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0, 1, 2] : (tensor<3x37x1xf32>) -> tensor<3x37x261xf32>
  %mb2 = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<3x37x1xf32>) -> tensor<3x37x261xf32>
  %d2 = stablehlo.subtract %x, %mb2 : tensor<3x37x261xf32>
  %y0 = stablehlo.multiply %d2, %rb : tensor<3x37x261xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<261xf32>) -> tensor<3x37x261xf32>
  %y1 = stablehlo.multiply %y0, %gb : tensor<3x37x261xf32>
  %hb = stablehlo.broadcast_in_dim %h, dims = [2] : (tensor<261xf32>) -> tensor<3x37x261xf32>
  %y = stablehlo.add %y1, %hb : tensor<3x37x261xf32>
  func.return %y, %x : tensor<3x37x261xf32>, tensor<3x37x261xf32>
}`,
	"softmax": `func.func @main(%s: tensor<2x5x33x33xf32>, %k: tensor<2x1x33x33xi1>) -> tensor<2x5x33x33xf32> {
  %c = stablehlo.constant dense<0.125> : tensor<2x5x33x33xf32>
  %a = stablehlo.multiply %s, %c : tensor<2x5x33x33xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<2x5x33x33xf32>
  %kb = stablehlo.broadcast_in_dim %k, dims = [0, 1, 2, 3] : (tensor<2x1x33x33xi1>) -> tensor<2x5x33x33xi1>
  %x = stablehlo.select %kb, %a, %ninf : tensor<2x5x33x33xi1>, tensor<2x5x33x33xf32>
  %mi = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %mi) applies stablehlo.maximum across dimensions = [3] : (tensor<2x5x33x33xf32>, tensor<f32>) -> tensor<2x5x33xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<2x5x33xf32>) -> tensor<2x5x33x33xf32>
  %d = stablehlo.subtract %x, %mb : tensor<2x5x33x33xf32>
  %e = stablehlo.exponential %d : tensor<2x5x33x33xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [3] : (tensor<2x5x33x33xf32>, tensor<f32>) -> tensor<2x5x33xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [0, 1, 2] : (tensor<2x5x33xf32>) -> tensor<2x5x33x33xf32>
  %y = stablehlo.divide %e, %tb : tensor<2x5x33x33xf32>
  func.return %y : tensor<2x5x33x33xf32>
}`,
}

func init() {
	// the layer norm at gpt2_tiny's rows of 64 and with rows longer than
	// a fused chunk (the reduce group's chunked fold)
	ln := rowPipeModules["layernorm"]
	rowPipeModules["layernorm/2x12x64"] = strings.NewReplacer("3x37x261", "2x12x64", "3x37x1x", "2x12x1x", "3x37x", "2x12x", "261", "64").Replace(ln)
	// rows shorter than shortRow: the per-row and per-column operands
	// spread over all rows of a block
	rowPipeModules["layernorm/4x9x24"] = strings.NewReplacer("3x37x261", "4x9x24", "3x37x1x", "4x9x1x", "3x37x", "4x9x", "261", "24").Replace(ln)
	rowPipeModules["layernorm/2x3x1000"] = strings.NewReplacer("3x37x261", "2x3x1000", "3x37x1x", "2x3x1x", "3x37x", "2x3x", "261", "1000").Replace(ln)
	// a mask of the scores' own shape (read in place, not broadcast)
	rowPipeModules["softmax/fullmask"] = strings.ReplaceAll(rowPipeModules["softmax"], "2x1x33x33", "2x5x33x33")
	// scaled-dot-product attention's softmax, at gpt2_tiny's rows of 12 and
	// 4 heads: a row with every score masked is zeros, not NaN
	sm := strings.NewReplacer("2x5x33x33", "2x4x12x12", "2x1x33x33", "2x1x12x12", "2x5x33x", "2x4x12x", "0.125", "0.25").Replace(rowPipeModules["softmax"])
	rowPipeModules["softmax/safe"] = strings.Replace(sm, "  func.return %y : tensor<2x4x12x12xf32>\n", `  %ninf2 = stablehlo.constant dense<0xFF800000> : tensor<2x4x12x12xf32>
  %dead = "stablehlo.compare"(%mb, %ninf2) {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<2x4x12x12xf32>, tensor<2x4x12x12xf32>) -> tensor<2x4x12x12xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<2x4x12x12xf32>
  %r = stablehlo.select %dead, %zero, %y : tensor<2x4x12x12xi1>, tensor<2x4x12x12xf32>
  func.return %r : tensor<2x4x12x12xf32>
`, 1)
}

// TestRowPipesMatchSteps runs each module with row pipelines, without
// them, and op by op: the pipelines form (one step each) and the results
// are bit for bit the same, over several runs (the memory plan's buffers
// reused), with NaN and infinities in the inputs, on one and two threads.
func TestRowPipesMatchSteps(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for name, src := range rowPipeModules {
		parse := func() *stablehlo.Module {
			m, err := stablehlo.ParseModule(name, []byte("module {\n"+src+"\n}"))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m := parse()
		piped := compileWith(t, m, true)
		pipes, chains, masks, perRow := 0, 0, 0, 0
		for _, st := range piped.(*Executable).prog.plans[m.Func("main")].exec.steps {
			if st.pipe != nil {
				pipes++
				for _, ps := range st.pipe.stages {
					if ps.chain == nil {
						continue
					}
					chains++
					if ps.chain.inner == 1 {
						perRow++ // a layer norm's variance and rsqrt
					}
					for _, cs := range ps.chain.steps {
						if cs.op == stepMask {
							masks++
						}
					}
				}
			}
		}
		if pipes != 1 {
			t.Errorf("%s: %d row pipelines, want 1", name, pipes)
		}
		if simdRows && chains == 0 {
			t.Errorf("%s: no stage runs as a row chain", name)
		}
		// the attention mask (broadcast over the heads) is a chain's step,
		// and the layer norm's per-row statistics are chains
		if simdRows && strings.HasPrefix(name, "softmax") && masks == 0 {
			t.Errorf("%s: the mask's select is no chain step", name)
		}
		if simdRows && strings.HasPrefix(name, "layernorm") && perRow == 0 {
			t.Errorf("%s: no per-row chain", name)
		}
		pipesEnabled = false
		m2 := parse()
		stepped := compileWith(t, m2, true)
		pipesEnabled = true
		plain := compileWith(t, parse(), false)
		for run := 0; run < 3; run++ {
			var args []*literal.Literal
			for _, it := range m.Func("main").Type.Inputs {
				l := randomLiteral(t, rng, stablehlo.AsTensor(it))
				if run < 2 && l.DType != dtype.Bool {
					// finite values (randomLiteral's are specials in most
					// rows, where every statistic is NaN)
					for k := 0; k < l.Len(); k++ {
						l.SetFloat64(k, rng.NormFloat64())
					}
				}
				args = append(args, l)
			}
			if run == 1 {
				args[0].SetFloat64(3, math.NaN())
				args[0].SetFloat64(40, math.Inf(1))
				args[0].SetFloat64(41, math.Inf(-1))
			}
			if k := args[len(args)-1]; run == 2 && k.DType == dtype.Bool {
				for j := int64(0); j < k.Shape[len(k.Shape)-1]; j++ {
					k.SetFloat64(int(j), 0) // a row with every score masked
				}
			}
			ran := chainRuns.Load()
			got, err := piped.Run(context.Background(), args)
			if err != nil {
				t.Fatal(err)
			}
			if simdRows && chainRuns.Load() == ran {
				t.Errorf("%s run %d: no row chain ran", name, run)
			}
			for _, e := range []interface {
				Run(context.Context, []*literal.Literal) ([]*literal.Literal, error)
			}{stepped.(*Executable), plain.(*Executable)} {
				want, err := e.Run(context.Background(), args)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !bytes.Equal(got[i].Data, want[i].Data) {
						t.Fatalf("%s run %d: result #%d differs", name, run, i)
					}
				}
			}
		}
	}
}

// BenchmarkRowPipes runs the layer norm and the masked softmax at GPT-2
// training's shapes (compile_bench: 4×64 tokens of 128, 4 heads), each
// module one row pipeline, with per-element time reported ("ns/elem").
func BenchmarkRowPipes(b *testing.B) {
	// each case: the module's shape strings and what replaces them (GPT-2
	// training's shapes, and gpt2_tiny's short rows)
	cases := []struct {
		name string
		repl []string
	}{
		{"layernorm/4x64x128", []string{"3x37x261", "4x64x128", "3x37x1x", "4x64x1x", "3x37x", "4x64x", "261", "128"}},
		{"layernorm/2x12x64", []string{"3x37x261", "2x12x64", "3x37x1x", "2x12x1x", "3x37x", "2x12x", "261", "64"}},
		{"softmax/4x4x64x64", []string{"2x5x33x33", "4x4x64x64", "2x1x33x33", "4x1x64x64", "2x5x33x", "4x4x64x"}},
		{"softmax/2x4x12x12", []string{"2x5x33x33", "2x4x12x12", "2x1x33x33", "2x1x12x12", "2x5x33x", "2x4x12x"}},
		{"softmax/safe", nil}, // attention's, at gpt2_tiny's shapes
	}
	for _, cs := range cases {
		b.Run(cs.name, func(b *testing.B) {
			src, ok := rowPipeModules[cs.name]
			if !ok {
				src = strings.NewReplacer(cs.repl...).Replace(rowPipeModules[strings.Split(cs.name, "/")[0]])
			}
			m, err := stablehlo.ParseModule(cs.name, []byte("module {\n"+src+"\n}"))
			if err != nil {
				b.Fatal(err)
			}
			t := &testing.T{}
			e := compileWith(t, m, true)
			rng := rand.New(rand.NewSource(5))
			var args []*literal.Literal
			for _, it := range m.Func("main").Type.Inputs {
				l := randomLiteral(t, rng, stablehlo.AsTensor(it))
				if l.DType != dtype.Bool {
					for k := 0; k < l.Len(); k++ { // no NaNs or infinities
						l.SetFloat64(k, rng.NormFloat64())
					}
				}
				args = append(args, l)
			}
			n := args[0].Len()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Run(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/elem")
		})
	}
}
