package native

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestFoldClamps checks that hardtanh's clamp (the relu6 module) folds
// into one nanmax and one nanmin node, and that the plan gives the
// interpreter's bits on inputs with NaNs of many payloads, signalling
// ones included.
func TestFoldClamps(t *testing.T) {
	m := parseFuseModule(t, "relu6")
	planned, plain := compileWith(t, m, true), compileWith(t, m, false)
	counts := map[string]int{}
	for _, st := range planned.(*Executable).prog.plans[m.Func("main")].exec.steps {
		if st.group == nil {
			continue
		}
		for _, nd := range st.group.nodes {
			if isNaNMinMax(nd.name) {
				counts[nd.name]++
			}
		}
	}
	if counts[nodeNaNMax] != 1 || counts[nodeNaNMin] != 1 {
		t.Fatalf("folded clamp nodes %v, want one of each", counts)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for run := 0; run < 3; run++ {
		var args []*literal.Literal
		for _, it := range m.Func("main").Type.Inputs {
			tt := stablehlo.AsTensor(it)
			l, err := literal.New(tt.DType(), tt.Shape)
			if err != nil {
				t.Fatal(err)
			}
			x := f32View(l.Data)
			copy(x, minMaxTestRow(r, len(x)))
			args = append(args, l)
		}
		want, err := plain.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := planned.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("run %d: result #%d differs from the interpreter's", run, i)
			}
		}
	}
}

// TestNaNMinMaxRow compares the folded clamp row kernel with the ops one
// by one (maximum or minimum, then the isnan select), uniform and row
// bounds, every length up to 40 (the vector loops' tails).
func TestNaNMinMaxRow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{nodeNaNMax, nodeNaNMin} {
		f := fmaximum
		if name == nodeNaNMin {
			f = fminimum
		}
		for n := 1; n <= 40; n++ {
			x := minMaxTestRow(r, n)
			for _, c := range []float32{0, float32(math.Copysign(0, -1)), 6, -1.5} {
				got := make([]float32, n)
				nanMinMaxRow(name, got, x, []float32{c}, true)
				for k, v := range x {
					want := float32(f(float64(v), float64(c)))
					if v != v {
						want = v
					}
					if math.Float32bits(got[k]) != math.Float32bits(want) {
						t.Fatalf("%s(%#x, %v) at %d of %d = %#x, want %#x", name, math.Float32bits(v), c, k, n,
							math.Float32bits(got[k]), math.Float32bits(want))
					}
				}
			}
		}
	}
}
