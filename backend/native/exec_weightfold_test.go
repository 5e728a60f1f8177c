package native

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestWeightFolds runs batch norm with its per-channel scale and shift
// computed from weight arguments: the weight-only steps are folded, keep
// their results while the weights are the same literals (hits, the same
// bits as computing them), recompute them for new weight literals, and
// the image (larger than a kept result) is never folded.
func TestWeightFolds(t *testing.T) {
	src := `module {
  func.func @main(%x: tensor<2x37x19x11xf32>, %g: tensor<37xf32>, %b: tensor<37xf32>, %m: tensor<37xf32>, %v: tensor<37xf32>) -> tensor<2x37x19x11xf32> {
    %e = stablehlo.constant dense<1.0e-5> : tensor<37xf32>
    %ve = stablehlo.add %v, %e : tensor<37xf32>
    %sd = stablehlo.sqrt %ve : tensor<37xf32>
    %one = stablehlo.constant dense<1.0> : tensor<37xf32>
    %is = stablehlo.divide %one, %sd : tensor<37xf32>
    %s = stablehlo.multiply %g, %is : tensor<37xf32>
    %ms = stablehlo.multiply %m, %s : tensor<37xf32>
    %sh = stablehlo.subtract %b, %ms : tensor<37xf32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<37xf32>) -> tensor<2x37x19x11xf32>
    %y0 = stablehlo.multiply %x, %sb : tensor<2x37x19x11xf32>
    %hb = stablehlo.broadcast_in_dim %sh, dims = [1] : (tensor<37xf32>) -> tensor<2x37x19x11xf32>
    %y = stablehlo.add %y0, %hb : tensor<2x37x19x11xf32>
    func.return %y : tensor<2x37x19x11xf32>
  }
}`
	m, err := stablehlo.ParseModule("bn.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := compileModule(t, m)
	folds := 0
	for _, st := range e.(*Executable).prog.plans[m.Func("main")].exec.steps {
		if st.wfold != nil {
			folds++
			if reads, _ := stepIO(&st); len(reads) > 0 && reads[0] == 0 {
				t.Errorf("a step reading the image is folded")
			}
		}
	}
	if folds == 0 {
		t.Fatal("no weight-only step folded")
	}
	weightFoldsEnabled = false
	plain := compileModule(t, m)
	weightFoldsEnabled = true
	r := rand.New(rand.NewPCG(61, 62))
	weights := func() []*literal.Literal {
		w := []*literal.Literal{randF32Literal(t, r, 37), randF32Literal(t, r, 37), randF32Literal(t, r, 37), randF32Literal(t, r, 37)}
		for i := 0; i < 37; i++ {
			w[3].SetFloat64(i, w[3].Float64(i)*w[3].Float64(i)) // a variance
		}
		for _, l := range w {
			l.Frozen = true // weights as an archive's are
		}
		return w
	}
	w := weights()
	for run := 0; run < 8; run++ {
		switch run {
		case 3:
			w = weights() // new weight literals: recomputed
		case 5:
			g := randF32Literal(t, r, 37) // a new gamma alone
			g.Frozen = true
			w = []*literal.Literal{g, w[1], w[2], w[3]}
		}
		args := append([]*literal.Literal{randF32Literal(t, r, 2, 37, 19, 11)}, w...)
		snaps := foldSnapRuns.Load()
		got := runExe(t, e, args...)[0]
		// the run after one that kept every fold (0, 3 and 5 keep them)
		// takes them all from its snapshot, and no other run does
		if snapped, want := foldSnapRuns.Load() > snaps, run != 0 && run != 3 && run != 5; snapped != want {
			t.Errorf("run %d: results taken from the snapshot %v, want %v", run, snapped, want)
		}
		want := runExe(t, plain, args...)[0]
		if !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("run %d: results differ from the unfolded ones", run)
		}
	}
	// Buffers written in place between runs (the eager device's, not
	// frozen): the same literals with new contents are never taken for
	// the old ones.
	w = weights()
	for _, l := range w {
		l.Frozen = false
	}
	for run := 0; run < 4; run++ {
		for i := 0; i < 37; i++ {
			w[0].SetFloat64(i, float64(run+i)) // gamma updated in place
		}
		args := append([]*literal.Literal{randF32Literal(t, r, 2, 37, 19, 11)}, w...)
		snaps := foldSnapRuns.Load()
		got := runExe(t, e, args...)[0]
		if foldSnapRuns.Load() != snaps {
			t.Errorf("in-place run %d: results taken from a snapshot", run)
		}
		want := runExe(t, plain, args...)[0]
		if !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("in-place run %d: results differ from the unfolded ones", run)
		}
	}
}
