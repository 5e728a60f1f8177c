package native

import (
	"bytes"
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native/vmath"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// geluTanhBackwardSrc is the fusion group of GPT-2's training step that
// computes the tanh-approximate GELU's backward (of the gradient %g at
// the input %x), as PyTorch's AOTAutograd decomposes it with the
// forward's tanh recomputed and the dumped StableHLO has it: the
// constants are broadcast f32 splats. SHAPE is the tensors' shape.
const geluTanhBackwardSrc = `func.func @main(%g: tensor<SHAPExf32>, %x: tensor<SHAPExf32>) -> tensor<SHAPExf32> {
  %half = stablehlo.constant dense<5.000000e-01> : tensor<f32>
  %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %three = stablehlo.constant dense<3.000000e+00> : tensor<f32>
  %k1 = stablehlo.constant dense<4.4714998453855515e-02> : tensor<f32>
  %k2 = stablehlo.constant dense<7.978845834732056e-01> : tensor<f32>
  %69 = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %70 = stablehlo.multiply %x, %69 : tensor<SHAPExf32>
  %71 = stablehlo.multiply %g, %70 : tensor<SHAPExf32>
  %72 = stablehlo.multiply %x, %x : tensor<SHAPExf32>
  %73 = stablehlo.multiply %72, %x : tensor<SHAPExf32>
  %75 = stablehlo.broadcast_in_dim %k1, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %76 = stablehlo.multiply %73, %75 : tensor<SHAPExf32>
  %77 = stablehlo.add %x, %76 : tensor<SHAPExf32>
  %79 = stablehlo.broadcast_in_dim %k2, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %80 = stablehlo.multiply %77, %79 : tensor<SHAPExf32>
  %81 = stablehlo.tanh %80 : tensor<SHAPExf32>
  %83 = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %84 = stablehlo.add %81, %83 : tensor<SHAPExf32>
  %85 = stablehlo.multiply %g, %84 : tensor<SHAPExf32>
  %86 = stablehlo.multiply %81, %81 : tensor<SHAPExf32>
  %88 = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %89 = stablehlo.subtract %88, %86 : tensor<SHAPExf32>
  %90 = stablehlo.multiply %71, %89 : tensor<SHAPExf32>
  %92 = stablehlo.broadcast_in_dim %k2, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %93 = stablehlo.multiply %90, %92 : tensor<SHAPExf32>
  %95 = stablehlo.broadcast_in_dim %k1, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %96 = stablehlo.multiply %93, %95 : tensor<SHAPExf32>
  %97 = stablehlo.multiply %x, %x : tensor<SHAPExf32>
  %99 = stablehlo.broadcast_in_dim %three, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %100 = stablehlo.multiply %97, %99 : tensor<SHAPExf32>
  %101 = stablehlo.multiply %96, %100 : tensor<SHAPExf32>
  %102 = stablehlo.add %93, %101 : tensor<SHAPExf32>
  %104 = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %105 = stablehlo.multiply %85, %104 : tensor<SHAPExf32>
  %106 = stablehlo.add %102, %105 : tensor<SHAPExf32>
  return %106 : tensor<SHAPExf32>
}`

// geluTanhBackwardModule returns geluTanhBackwardSrc over shape with
// each of edits (pairs of old and new text, each old found once)
// applied.
func geluTanhBackwardModule(shape string, edits ...string) string {
	src := strings.ReplaceAll(geluTanhBackwardSrc, "SHAPE", shape)
	for i := 0; i < len(edits); i += 2 {
		old := strings.ReplaceAll(edits[i], "SHAPE", shape)
		if strings.Count(src, old) != 1 {
			panic("geluTanhBackwardModule: " + old)
		}
		src = strings.Replace(src, old, strings.ReplaceAll(edits[i+1], "SHAPE", shape), 1)
	}
	return src
}

// geluTanhBackwardVariants are the group and its variants, each with
// whether it folds into one gelu_tanh_backward node (3x347: chunks with
// tails of every loop width).
var geluTanhBackwardVariants = []struct {
	name  string
	src   string
	folds bool
}{
	{"gelu_tanh_bwd", geluTanhBackwardModule("3x347"), true},
	// commutative operands swapped: still the same values, and where g
	// and x are both NaN still g's NaN (the root's first operand is
	// (g·(t+1))·0.5, whose NaN is g's)
	{"gelu_tanh_bwd_swapped", geluTanhBackwardModule("3x347",
		"multiply %x, %69", "multiply %69, %x",
		"add %x, %76", "add %76, %x",
		"add %81, %83", "add %83, %81",
		"multiply %71, %89", "multiply %89, %71",
		"multiply %90, %92", "multiply %92, %90",
		"multiply %93, %95", "multiply %95, %93",
		"multiply %96, %100", "multiply %100, %96",
		"multiply %85, %104", "multiply %104, %85",
		"add %102, %105", "add %105, %102"), true},
	// g·(x·0.5) as (x·0.5)·g: where both are NaN the ops give x's NaN,
	// the vector loop g's: left op by op
	{"gelu_tanh_bwd_xnan", geluTanhBackwardModule("3x347", "multiply %g, %70", "multiply %70, %g"), false},
	// another constant: not the backward
	{"gelu_tanh_bwd_k", geluTanhBackwardModule("3x347", "dense<3.000000e+00>", "dense<2.000000e+00>"), false},
	// an intermediate read outside the chain
	{"gelu_tanh_bwd_shared", geluTanhBackwardModule("3x347",
		"return %106 : tensor<SHAPExf32>", "return %106, %93 : tensor<SHAPExf32>, tensor<SHAPExf32>",
		"-> tensor<SHAPExf32> {", "-> (tensor<SHAPExf32>, tensor<SHAPExf32>) {"), false},
	// the gradient one value per row (uniform in each chunk's segments:
	// the node reads it spread over a row)
	{"gelu_tanh_bwd_rowg", geluTanhBackwardModule("3x347",
		"%g: tensor<SHAPExf32>", "%g3: tensor<3xf32>",
		"  %half =", "  %g = stablehlo.broadcast_in_dim %g3, dims = [0] : (tensor<3xf32>) -> tensor<SHAPExf32>\n  %half ="), true},
}

func init() {
	for _, v := range geluTanhBackwardVariants {
		fuseModules[v.name] = v.src // TestFusionMatchesInterpreter runs them too
	}
}

// geluTanhBackwardFolded reports whether a planned executable of m has
// a group with a gelu_tanh_backward node.
func geluTanhBackwardFolded(e backend.Executable, m *stablehlo.Module) bool {
	for _, st := range e.(*Executable).prog.plans[m.Func("main")].exec.steps {
		if st.group == nil {
			continue
		}
		for _, nd := range st.group.nodes {
			if nd.name == "gelu_tanh_backward" {
				return true
			}
		}
	}
	return false
}

// TestGELUTanhBackwardFold checks that the group of the tanh-approximate
// GELU's backward folds into one node (and its variants where they
// should), and that the folded group, the group op by op (fold off) and
// the interpreter give the same bits, on every pair of special values
// (NaNs of several payloads, quiet and signaling, in both operands;
// infinities, signed zeros, subnormals, values where tanh saturates or
// x·x overflows) and random ones.
func TestGELUTanhBackwardFold(t *testing.T) {
	nan := math.NaN()
	special := []float64{nan, -nan, float64(math.Float32frombits(0x7fc00042)), float64(math.Float32frombits(0xffc01234)),
		float64(math.Float32frombits(0x7f800001)), float64(math.Float32frombits(0xff812345)),
		math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-45, -1e-45, 0x1p-126, 1e-20, -1e-20,
		0.7, -0.7, 3.2, -3.2, 9.5, -9.5, 20, -20, 6e12, -6e12, 3e38, -3e38, 1, -1, 0.5}
	rng := rand.New(rand.NewSource(3))
	for _, v := range geluTanhBackwardVariants {
		t.Run(v.name, func(t *testing.T) {
			m, err := stablehlo.ParseModule(v.name, []byte("module {\n"+v.src+"\n}"))
			if err != nil {
				t.Fatal(err)
			}
			folded := compileWith(t, m, true)
			if got := geluTanhBackwardFolded(folded, m); got != v.folds {
				t.Fatalf("folded into gelu_tanh_backward: %v, want %v", got, v.folds)
			}
			foldGELUTanhBackward = false
			ops := compileWith(t, m, true)
			foldGELUTanhBackward = true
			if geluTanhBackwardFolded(ops, m) {
				t.Fatal("folded with the fold off")
			}
			plain := compileWith(t, m, false)
			var args []*literal.Literal
			for a, it := range m.Func("main").Type.Inputs {
				l := randomLiteral(t, rng, stablehlo.AsTensor(it))
				for k := 0; k < l.Len(); k++ {
					switch {
					case l.Len() < len(special): // the per-row gradient
						l.SetFloat64(k, special[k])
					case k < len(special)*len(special):
						// every pair: g the first special value of
						// each, x the second
						l.SetFloat64(k, special[[2]int{k / len(special), k % len(special)}[a]])
					case k%2 == 0:
						l.SetFloat64(k, rng.NormFloat64()*[2]float64{1e-3, 2}[a])
					}
				}
				args = append(args, l)
			}
			want, err := plain.Run(context.Background(), args)
			if err != nil {
				t.Fatal(err)
			}
			for name, e := range map[string]backend.Executable{"folded": folded, "op by op": ops} {
				got, err := e.Run(context.Background(), args)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if bytes.Equal(got[i].Data, want[i].Data) {
						continue
					}
					for k := 0; k < want[i].Len(); k++ {
						gb, wb := math.Float32bits(float32(got[i].Float64(k))), math.Float32bits(float32(want[i].Float64(k)))
						if gb != wb {
							t.Fatalf("%s: result #%d element %d (g %g, x %g) = %#x, the interpreter gives %#x",
								name, i, k, args[0].Float64(min(k, args[0].Len()-1)), args[1].Float64(k), gb, wb)
						}
					}
					t.Fatalf("%s: result #%d differs", name, i)
				}
			}
		})
	}
}

// TestGELUTanhBackwardNodeF64 runs the folded node over float64 rows
// (the rows of groups that are not all f32) against its float32 form.
func TestGELUTanhBackwardNodeF64(t *testing.T) {
	nd := &fuseNode{kind: fkBinary, dt: dtype.F32, name: "gelu_tanh_backward", v2: vmath.GELUTanhBackwardRow, bin: geluTanhBackward64}
	g := []float32{float32(math.NaN()), 1, -2.5, 1e-3, float32(math.Inf(1)), 0, 3}
	x := []float32{0.5, float32(math.NaN()), 1.25, -3, 0, 1e30, -0.75}
	want := make([]float32, len(g))
	binaryRow(nd, want, g, x)
	g64, x64, got := make([]float64, len(g)), make([]float64, len(g)), make([]float64, len(g))
	for i := range g {
		g64[i], x64[i] = float64(g[i]), float64(x[i])
	}
	binaryRow(nd, got, g64, x64)
	for i := range want {
		if w := vmath.GELUTanhBackward(g[i], x[i]); math.Float32bits(want[i]) != math.Float32bits(w) || math.Float32bits(float32(got[i])) != math.Float32bits(w) {
			t.Fatalf("gelu_tanh_backward(%g, %g): float32 row %g, float64 row %g, want %g", g[i], x[i], want[i], got[i], w)
		}
	}
}
