package native

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// epiModule returns a function computing a convolution of case cc and the
// epilogue kind over its result %c (of type T), with per-channel vectors
// %s and %b, a tensor %r of the result's shape and a scalar %k as inputs.
func epiModule(cc convCase, kind string) string {
	oh, ow := cc.outHW()
	T := fmt.Sprintf("tensor<%dx%dx%dx%dxf32>", cc.b, cc.o, oh, ow)
	V := fmt.Sprintf("tensor<%dxf32>", cc.o)
	bin := func(res, name, a, b string) string {
		return fmt.Sprintf("  %s = \"stablehlo.%s\"(%s, %s) : (%s, %s) -> %s\n", res, name, a, b, T, T, T)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `func.func @main(%%x: tensor<%dx%dx%dx%dxf32>, %%w: tensor<%dx%dx%dx%dxf32>, %%s: %s, %%b: %s, %%r: %s, %%k: tensor<f32>) -> RESULTS {
  %%c = stablehlo.convolution(%%x, %%w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [%d, %d], pad = [[%d, %d], [%d, %d]], rhs_dilate = [%d, %d]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (tensor<%dx%dx%dx%dxf32>, tensor<%dx%dx%dx%dxf32>) -> %s
  %%S = "stablehlo.broadcast_in_dim"(%%s) {broadcast_dimensions = array<i64: 1>} : (%s) -> %s
  %%B = "stablehlo.broadcast_in_dim"(%%b) {broadcast_dimensions = array<i64: 1>} : (%s) -> %s
  %%K = "stablehlo.broadcast_in_dim"(%%k) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> %s
  %%z = "stablehlo.constant"() {value = dense<0.0> : %s} : () -> %s
  %%h = "stablehlo.constant"() {value = dense<0.5> : %s} : () -> %s
`, cc.b, cc.c, cc.h, cc.w, cc.o, cc.c/cc.g, cc.kh, cc.kw, V, V, T,
		cc.sh, cc.sw, cc.pt, cc.pb, cc.pl, cc.pr, cc.dh, cc.dw, cc.g,
		cc.b, cc.c, cc.h, cc.w, cc.o, cc.c/cc.g, cc.kh, cc.kw, T, V, T, V, T, T, T, T, T, T)
	relu := func(a string) {
		fmt.Fprintf(&b, "  %%lt = \"stablehlo.compare\"(%s, %%z) {comparison_direction = #stablehlo<comparison_direction LT>} : (%s, %s) -> tensor<%dx%dx%dx%dxi1>\n", a, T, T, cc.b, cc.o, oh, ow)
		fmt.Fprintf(&b, "  %%y = \"stablehlo.select\"(%%lt, %%z, %s) : (tensor<%dx%dx%dx%dxi1>, %s, %s) -> %s\n", a, cc.b, cc.o, oh, ow, T, T, T)
	}
	// clamp is one side of aten's clamp with a constant bound as nanSelect
	// lowers it: select(isnan(a), a, mm(a, c))
	clamp := func(res, mm, a, c string) {
		b.WriteString(bin(res+"m", mm, a, c))
		fmt.Fprintf(&b, "  %sn = \"stablehlo.compare\"(%s, %s) {comparison_direction = #stablehlo<comparison_direction NE>} : (%s, %s) -> tensor<%dx%dx%dx%dxi1>\n", res, a, a, T, T, cc.b, cc.o, oh, ow)
		fmt.Fprintf(&b, "  %s = \"stablehlo.select\"(%sn, %s, %sm) : (tensor<%dx%dx%dx%dxi1>, %s, %s) -> %s\n", res, res, a, res, cc.b, cc.o, oh, ow, T, T, T)
	}
	results, ret := T, "%y"
	switch kind {
	case "bn": // batch norm alone
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%y", "add", "%m", "%B"))
	case "bnrelu", "twouse":
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%a", "add", "%m", "%B"))
		relu("%a")
		if kind == "twouse" { // the convolution's result is returned too
			results, ret = T+", "+T, "%y, %c"
		}
	case "bnres":
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%a", "add", "%m", "%B") + bin("%q", "add", "%a", "%r"))
		relu("%q")
	case "bnrelu6": // batch norm and ReLU6 (hardtanh's clamp to [0, 6])
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%a", "add", "%m", "%B"))
		fmt.Fprintf(&b, "  %%six = \"stablehlo.constant\"() {value = dense<6.0> : %s} : () -> %s\n", T, T)
		clamp("%l", "maximum", "%a", "%z")
		clamp("%y", "minimum", "%l", "%six")
	case "bnsilu": // batch norm and SiLU as aten lowers it
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%a", "add", "%m", "%B"))
		fmt.Fprintf(&b, "  %%one = \"stablehlo.constant\"() {value = dense<1.0> : %s} : () -> %s\n", T, T)
		fmt.Fprintf(&b, "  %%ng = \"stablehlo.negate\"(%%a) : (%s) -> %s\n", T, T)
		fmt.Fprintf(&b, "  %%ex = \"stablehlo.exponential\"(%%ng) : (%s) -> %s\n", T, T)
		b.WriteString(bin("%dn", "add", "%one", "%ex") + bin("%y", "divide", "%a", "%dn"))
	case "bnhardswish": // batch norm and hardswish as aten lowers it
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%a", "add", "%m", "%B"))
		fmt.Fprintf(&b, "  %%three = \"stablehlo.constant\"() {value = dense<3.0> : %s} : () -> %s\n", T, T)
		fmt.Fprintf(&b, "  %%six = \"stablehlo.constant\"() {value = dense<6.0> : %s} : () -> %s\n", T, T)
		b.WriteString(bin("%t", "add", "%a", "%three"))
		clamp("%l", "maximum", "%t", "%z")
		clamp("%u", "minimum", "%l", "%six")
		b.WriteString(bin("%p", "multiply", "%a", "%u") + bin("%y", "divide", "%p", "%six"))
	case "resclamp": // a residual add, then a clamp from below only
		b.WriteString(bin("%a", "add", "%c", "%r"))
		clamp("%y", "maximum", "%a", "%z")
	case "bias": // a bias and ReLU
		b.WriteString(bin("%a", "add", "%c", "%B"))
		relu("%a")
	case "scalars": // a constant and a broadcast scalar
		b.WriteString(bin("%m", "multiply", "%c", "%h") + bin("%a", "add", "%m", "%K"))
		relu("%a")
	case "generic": // a chain of other ops and operand orders
		b.WriteString(bin("%m", "subtract", "%c", "%B") + bin("%a", "multiply", "%S", "%m") + bin("%q", "add", "%r", "%a") +
			bin("%y", "maximum", "%q", "%h"))
	case "twobn": // a downsampling block: batch norm on both branches, added, ReLU
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%a", "add", "%m", "%B") +
			bin("%rm", "multiply", "%r", "%B") + bin("%rb", "add", "%rm", "%S") + bin("%q", "add", "%a", "%rb"))
		relu("%q")
	case "nonchain": // a second path computed apart: side nodes of the chain
		fmt.Fprintf(&b, "  %%e = \"stablehlo.exponential\"(%%r) : (%s) -> %s\n", T, T)
		b.WriteString(bin("%m", "multiply", "%c", "%S") + bin("%y", "add", "%m", "%e"))
	case "spatial": // a broadcast along the width: not per channel
		fmt.Fprintf(&b, "  %%v = \"stablehlo.slice\"(%%r) {start_indices = array<i64: 0, 0, 0, 0>, limit_indices = array<i64: 1, 1, 1, %d>, strides = array<i64: 1, 1, 1, 1>} : (%s) -> tensor<1x1x1x%dxf32>\n", ow, T, ow)
		fmt.Fprintf(&b, "  %%W = \"stablehlo.broadcast_in_dim\"(%%v) {broadcast_dimensions = array<i64: 0, 1, 2, 3>} : (tensor<1x1x1x%dxf32>) -> %s\n", ow, T)
		b.WriteString(bin("%y", "multiply", "%c", "%W"))
	}
	fmt.Fprintf(&b, "  func.return %s : %s\n}", ret, results)
	return strings.ReplaceAll(b.String(), "RESULTS", "("+results+")")
}

// TestConvEpilogueMatchesUnfused checks that a convolution running its
// consumer group as an epilogue gives, bit for bit, what the convolution
// followed by the separate fused loop gives (the same plan with the
// epilogue switched off) and what the op-by-op interpreter gives; and
// that the groups that cannot be epilogues are not planned as ones.
func TestConvEpilogueMatchesUnfused(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	cases := []convCase{
		{1, 64, 14, 14, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // late layer: row bands
		{1, 64, 20, 20, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // row bands of long runs
		{2, 16, 40, 40, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // column chunks across images
		{1, 3, 64, 64, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},    // stem: stride, padding
		{2, 48, 17, 19, 96, 3, 3, 2, 1, 1, 2, 1, 0, 2, 1, 3},   // grouped, asymmetric
		{2, 16, 40, 40, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},   // two groups
		{3, 64, 7, 7, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // pointwise, batch 3
		{1, 24, 30, 30, 72, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // pointwise, one image: the strip kernels
		{1, 256, 14, 14, 100, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1}, // 1×1 stride-2 downsample
		{1, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},       // too small for the fast path
		{2, 64, 32, 32, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64},  // depthwise: the direct path
		{1, 32, 28, 28, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 32},  // depthwise, multiplier 2, stride 2
		{1, 96, 7, 7, 96, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 96},    // depthwise, short runs
		{1, 48, 1, 1, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // squeeze-and-excitation: one position
		{2, 40, 2, 2, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // runs of 4: after the loop
		{1, 72, 7, 7, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 7×7: the transposed path, a partial channel block
	}
	kinds := map[string]bool{ // kind -> planned as an epilogue
		"bn": true, "bnrelu": true, "bnres": true, "scalars": true, "generic": true, "bias": true,
		"bnrelu6": true, "resclamp": true, "bnsilu": true, "bnhardswish": true,
		"nonchain": true, "twobn": true, "twouse": false, "spatial": false,
	}
	defer func(old bool) { convEpiEnabled = old }(convEpiEnabled)
	genericFused := 0
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, cc := range cases {
			for kind, merged := range kinds {
				name := fmt.Sprintf("%s/%+v/procs=%d", kind, cc, procs)
				// chains the affine pass does not run: the generic loop's
				generic := kind == "generic" || kind == "nonchain"
				m, err := stablehlo.ParseModule(kind, []byte("module {\n"+epiModule(cc, kind)+"\n}"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				planned, plain := compileWith(t, m, true), compileWith(t, m, false)
				ep := planned.(*Executable).prog.plans[m.Func("main")].exec
				epis := 0
				for _, st := range ep.steps {
					if st.epi != nil {
						epis++
						if st.epi.affine != (simdRows && !generic) {
							t.Fatalf("%s: affine kernel %v", name, st.epi.affine)
						}
					}
				}
				if want := map[bool]int{true: 1, false: 0}[merged]; epis != want {
					t.Fatalf("%s: %d convolutions with an epilogue, want %d (%s)", name, epis, want, ep.summary())
				}
				var args []*literal.Literal
				for _, it := range m.Func("main").Type.Inputs {
					args = append(args, randomLiteral(t, r, stablehlo.AsTensor(it)))
				}
				// the image and the kernel finite but for one NaN and one
				// infinity in the image (randomLiteral's specials, one element
				// in ten, made nearly every output of a 3×3 layer NaN, so
				// the comparison below saw NaN against NaN)
				for _, l := range args[:2] {
					for i := 0; i < l.Len(); i++ {
						l.SetFloat64(i, r.NormFloat64())
					}
				}
				args[0].SetFloat64(3, math.NaN())
				args[0].SetFloat64(args[0].Len()-5, math.Inf(1))
				// on four cores the weights are frozen, as an archive's: packed
				// once, and the 7×7 case takes the transposed path
				args[1].Frozen = procs == 4
				run := func(e interface {
					Run(context.Context, []*literal.Literal) ([]*literal.Literal, error)
				}, epi bool) []*literal.Literal {
					convEpiEnabled = epi
					out, err := e.Run(context.Background(), args)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					return out
				}
				hits, after := convEpiHits.Load(), convEpiAfter.Load()
				got := run(planned.(*Executable), true)
				fused, later := convEpiHits.Load() > hits, convEpiAfter.Load() > after
				_, fast := fastConvShape(cc.op(t), []Value{args[0], args[1]})
				// without the vector affine pass (purego, no AVX2) every kind runs as
				// a generic chain: in the loop for long runs, else after it; the
				// affine pass runs in the loop unless its runs are shorter than
				// convEpiAffineRun
				oh, ow := cc.outHW()
				if fused == later && (fused || merged && fast) || !generic && simdRows && later && oh*ow >= convEpiAffineRun {
					t.Errorf("%s: epilogue in the convolution's loop %v, after it %v", name, fused, later)
				}
				if generic && fused {
					genericFused++
				}
				for _, want := range [][]*literal.Literal{run(planned.(*Executable), false), run(plain.(*Executable), true)} {
					for i := range want {
						if !shapeEq(got[i].Shape, want[i].Shape) || !bytes.Equal(got[i].Data, want[i].Data) {
							t.Fatalf("%s: result #%d differs from the unfused one", name, i)
						}
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
	if genericFused == 0 {
		t.Errorf("the generic chain loop never ran inside a convolution")
	}
	if simdRows && convEpiFlat.Load() == 0 {
		t.Errorf("no epilogue after a convolution ran as a flat chain")
	}
}

// BenchmarkConvEpilogue times ResNet-18's convolutions with batch norm,
// ReLU and (res) the skip connection's add, the epilogue in the
// convolution's loop and after it, alternately, so that both see the same
// machine: fused-ms and apart-ms per run.
func BenchmarkConvEpilogue(b *testing.B) {
	layers := map[string]convCase{
		"stem":   {1, 3, 224, 224, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},
		"56x56":  {1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		"28x28":  {1, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		"14x14":  {1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		"7x7":    {1, 512, 7, 7, 512, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		"1x1/s2": {1, 64, 56, 56, 128, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},
	}
	for name, cc := range layers {
		for _, kind := range []string{"bnrelu", "bnres"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				m, err := stablehlo.ParseModule(kind, []byte("module {\n"+epiModule(cc, kind)+"\n}"))
				if err != nil {
					b.Fatal(err)
				}
				e, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
				if err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewSource(1))
				var args []*literal.Literal
				for _, it := range m.Func("main").Type.Inputs {
					tt := stablehlo.AsTensor(it)
					l, err := literal.New(tt.DType(), tt.Shape)
					if err != nil {
						b.Fatal(err)
					}
					for i := 0; i < l.Len(); i++ {
						l.SetFloat64(i, r.NormFloat64())
					}
					args = append(args, l)
				}
				defer func(old bool) { convEpiEnabled = old }(convEpiEnabled)
				var spent [2]time.Duration
				for i := 0; i < b.N; i++ {
					for k, on := range []bool{true, false} {
						convEpiEnabled = on
						t0 := time.Now()
						if _, err := e.Run(context.Background(), args); err != nil {
							b.Fatal(err)
						}
						spent[k] += time.Since(t0)
					}
				}
				b.ReportMetric(float64(spent[0].Microseconds())/1e3/float64(b.N), "fused-ms")
				b.ReportMetric(float64(spent[1].Microseconds())/1e3/float64(b.N), "apart-ms")
			})
		}
	}
}
