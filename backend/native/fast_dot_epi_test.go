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

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// dotEpiModule is x[m, k] · w (w [k, n], or [n, k] read transposed with
// wt) followed by the group kind names, returned (and with twouse the
// product returned as well).
func dotEpiModule(m, n, k int, wt bool, kind string) string {
	T := fmt.Sprintf("tensor<%dx%dxf32>", m, n)
	W := fmt.Sprintf("tensor<%dx%dxf32>", k, n)
	contract := "[1] x [0]"
	if wt {
		W = fmt.Sprintf("tensor<%dx%dxf32>", n, k)
		contract = "[1] x [1]"
	}
	V := fmt.Sprintf("tensor<%dxf32>", n)
	R := fmt.Sprintf("tensor<%dxf32>", m)
	var b strings.Builder
	fmt.Fprintf(&b, "func.func @main(%%x: tensor<%dx%dxf32>, %%w: %s, %%b: %s, %%res: %s, %%s: %s) -> RESULTS {\n", m, k, W, V, T, R)
	fmt.Fprintf(&b, "  %%d = stablehlo.dot_general %%x, %%w, contracting_dims = %s : (tensor<%dx%dxf32>, %s) -> %s\n", contract, m, k, W, T)
	fmt.Fprintf(&b, "  %%B = stablehlo.broadcast_in_dim %%b, dims = [1] : (%s) -> %s\n", V, T)
	fmt.Fprintf(&b, "  %%S = stablehlo.broadcast_in_dim %%s, dims = [0] : (%s) -> %s\n", R, T)
	fmt.Fprintf(&b, "  %%c = stablehlo.constant dense<0.5> : %s\n", T)
	bin := func(dst, op, x, y string) { fmt.Fprintf(&b, "  %s = stablehlo.%s %s, %s : %s\n", dst, op, x, y, T) }
	ret, results := "%y", T
	switch kind {
	case "bias", "twouse":
		bin("%y", "add", "%d", "%B")
		if kind == "twouse" {
			ret, results = "%y, %d", T+", "+T
		}
	case "biasfirst": // the bias on the left
		bin("%y", "add", "%B", "%d")
	case "tanhsq": // a bias, then tanh(0.5·v)²: a constant, a unary op, x·x
		bin("%a", "add", "%d", "%B")
		bin("%h", "multiply", "%a", "%c")
		fmt.Fprintf(&b, "  %%t = stablehlo.tanh %%h : %s\n", T)
		bin("%y", "multiply", "%t", "%t")
	case "residual": // a bias, a scale per row and a residual tensor
		bin("%a", "add", "%d", "%B")
		bin("%r", "multiply", "%a", "%S")
		bin("%y", "subtract", "%res", "%r")
	case "nochain": // the product read twice by the group: not a chain
		bin("%a", "add", "%d", "%B")
		bin("%y", "multiply", "%a", "%d")
	case "reshaped", "reshapeout":
		// the bias, a reshape to [1, m, n] (a linear layer's result back to
		// [batch, tokens, features]) and tanh(0.5·v)² after it: one group
		// through the reshape, the product's epilogue; unless the
		// reshaped value is returned too (then the bias alone is)
		T2 := fmt.Sprintf("tensor<1x%dx%dxf32>", m, n)
		bin("%a", "add", "%d", "%B")
		fmt.Fprintf(&b, "  %%r = stablehlo.reshape %%a : (%s) -> %s\n", T, T2)
		fmt.Fprintf(&b, "  %%c2 = stablehlo.constant dense<0.5> : %s\n", T2)
		fmt.Fprintf(&b, "  %%h = stablehlo.multiply %%r, %%c2 : %s\n", T2)
		fmt.Fprintf(&b, "  %%t = stablehlo.tanh %%h : %s\n", T2)
		fmt.Fprintf(&b, "  %%y = stablehlo.multiply %%t, %%t : %s\n", T2)
		ret, results = "%y", T2
		if kind == "reshapeout" {
			ret, results = "%y, %r", T2+", "+T2
		}
	}
	fmt.Fprintf(&b, "  return %s : %s\n}", ret, results)
	return strings.ReplaceAll(b.String(), "RESULTS", "("+results+")")
}

// TestDotEpilogueMatchesUnfused checks that a product running its
// consumer group as an epilogue gives, bit for bit, what the product
// followed by the separate group gives (the same plan with the epilogue
// switched off) and what the op-by-op interpreter gives, on every path of
// the product (the exact kernel's small products, A read in place, A
// packed, B shared or packed per chunk, a frozen weight packed once) with
// NaN and infinities in the inputs; and that groups that cannot be
// epilogues are not planned as ones.
func TestDotEpilogueMatchesUnfused(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	shapes := []struct {
		m, n, k int
		wt      bool
	}{
		{4, 8, 8, false},       // the exact kernel: after the product
		{37, 45, 29, true},     // A in place, a linear layer's weight
		{256, 384, 128, true},  // GPT-2's attention projection
		{64, 200, 1024, false}, // A packed (rows 4 KB apart)
		{50, 700, 64, true},    // B packed per column chunk
		{1, 300, 64, true},     // one row: a matrix-vector product
		{100, 96, 3072, false}, // several k blocks
		{300, 130, 40, false},  // several row blocks
	}
	kinds := map[string]bool{"bias": true, "biasfirst": true, "tanhsq": true, "residual": true, "twouse": false, "nochain": false,
		"reshaped": true, "reshapeout": true}
	defer func(old bool) { dotEpiEnabled = old }(dotEpiEnabled)
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, s := range shapes {
			for kind, merged := range kinds {
				name := fmt.Sprintf("%s/%dx%dx%d/wt=%v/procs=%d", kind, s.m, s.n, s.k, s.wt, procs)
				m, err := stablehlo.ParseModule(kind, []byte("module {\n"+dotEpiModule(s.m, s.n, s.k, s.wt, kind)+"\n}"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				planned, plain := compileWith(t, m, true), compileWith(t, m, false)
				reshapesEnabled = false // the groups on either side of a reshape apart
				apart := compileWith(t, m, true)
				reshapesEnabled = true
				ep := planned.(*Executable).prog.plans[m.Func("main")].exec
				epis, rank := 0, 0
				for _, st := range ep.steps {
					if st.epi != nil && st.epi.dot != nil {
						epis++
						rank = len(st.epi.g.shape)
					}
				}
				// through the reshape, the epilogue ends at the group of rank 3
				if wantRank := map[string]int{"reshaped": 3, "reshapeout": 2}[kind]; simdRows && wantRank > 0 && rank != wantRank {
					t.Fatalf("%s: the epilogue's group has rank %d, want %d", name, rank, wantRank)
				}
				want := 0
				if merged && simdRows {
					want = 1
				}
				if epis != want {
					t.Fatalf("%s: %d products with an epilogue, want %d (%s)", name, epis, want, ep.summary())
				}
				var args []*literal.Literal
				for _, it := range m.Func("main").Type.Inputs {
					l := randomLiteral(t, r, stablehlo.AsTensor(it))
					for i := 0; i < l.Len(); i++ {
						l.SetFloat64(i, r.NormFloat64())
					}
					args = append(args, l)
				}
				args[0].SetFloat64(3%args[0].Len(), math.NaN())
				args[2].SetFloat64(args[2].Len()-1, math.Inf(-1))
				args[3].SetFloat64(args[3].Len()/2, math.Inf(1))
				// on three cores the weight is frozen, as an archive's: packed once
				args[1].Frozen = procs == 3
				run := func(e interface {
					Run(context.Context, []*literal.Literal) ([]*literal.Literal, error)
				}, epi bool) []*literal.Literal {
					dotEpiEnabled = epi
					out, err := e.Run(context.Background(), args)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					return out
				}
				hits := dotEpiHits.Load()
				got := run(planned.(*Executable), true)
				if fused := dotEpiHits.Load() > hits; fused != (want == 1) {
					t.Errorf("%s: the epilogue ran %v", name, fused)
				}
				for _, want := range [][]*literal.Literal{run(planned.(*Executable), false), run(plain.(*Executable), true), run(apart.(*Executable), true)} {
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
}

// TestDotEpilogueRanks: a product whose rows are several lhs dims (a
// [b, t, d] activation times a weight) takes its bias as an epilogue,
// bit for bit as unfused; a batched product does not (its GEMMs take
// none, and the chain after them would run on one core).
func TestDotEpilogueRanks(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	mods := map[string]bool{
		`func.func @main(%x: tensor<3x20x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<3x20x48xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [2] x [1] : (tensor<3x20x32xf32>, tensor<48x32xf32>) -> tensor<3x20x48xf32>
  %B = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<48xf32>) -> tensor<3x20x48xf32>
  %y = stablehlo.add %d, %B : tensor<3x20x48xf32>
  return %y : tensor<3x20x48xf32>
}`: true,
		`func.func @main(%x: tensor<3x20x32xf32>, %w: tensor<3x32x48xf32>, %b: tensor<48xf32>) -> tensor<3x20x48xf32> {
  %d = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x20x32xf32>, tensor<3x32x48xf32>) -> tensor<3x20x48xf32>
  %B = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<48xf32>) -> tensor<3x20x48xf32>
  %y = stablehlo.add %d, %B : tensor<3x20x48xf32>
  return %y : tensor<3x20x48xf32>
}`: false,
	}
	defer func(old bool) { dotEpiEnabled = old }(dotEpiEnabled)
	for src, merged := range mods {
		m, err := stablehlo.ParseModule("m", []byte("module {\n"+src+"\n}"))
		if err != nil {
			t.Fatal(err)
		}
		planned, plain := compileWith(t, m, true), compileWith(t, m, false)
		ep := planned.(*Executable).prog.plans[m.Func("main")].exec
		epis := 0
		for _, st := range ep.steps {
			if st.epi != nil && st.epi.dot != nil {
				epis++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[merged && simdRows]; epis != want {
			t.Fatalf("%d products with an epilogue, want %d (%s)", epis, want, ep.summary())
		}
		var args []*literal.Literal
		for _, it := range m.Func("main").Type.Inputs {
			args = append(args, randomLiteral(t, r, stablehlo.AsTensor(it)))
		}
		got, err := planned.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		dotEpiEnabled = false
		want, err := plain.Run(context.Background(), args)
		dotEpiEnabled = true
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[0].Data, want[0].Data) {
			t.Fatalf("merged %v: the result differs from the unfused one", merged)
		}
	}
}
