package native

import (
	"bytes"
	"context"
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Slices and reshapes that are views of a buffer outlive it in several
// orders: the parent dies first, the views die one by one, one view is a
// result, another is viewed again. Each run agrees with the interpreter,
// no run overwrites an earlier run's results, the buffers come back to the
// arena once their last view dies, and nothing stays parked.
func TestViewsOutlivingTheirBuffer(t *testing.T) {
	// the arena's recycling of views' buffers: without the memory plan,
	// which would place them
	defer func(old, wf bool) { noMemPlan, weightFoldsEnabled = old, wf }(noMemPlan, weightFoldsEnabled)
	noMemPlan, weightFoldsEnabled = true, false
	src := `module {
func.func @main(%a: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> (tensor<1x8xf32>, tensor<8xf32>, tensor<2x8xf32>) {
  %p = stablehlo.add %a, %b : tensor<3x8xf32>
  %v0 = "stablehlo.slice"(%p) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 8>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<1x8xf32>
  %v1 = "stablehlo.slice"(%p) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 8>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<2x8xf32>
  %v2 = "stablehlo.slice"(%v1) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 8>, strides = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %r2 = stablehlo.reshape %v2 : (tensor<1x8xf32>) -> tensor<8xf32>
  %e0 = stablehlo.exponential %v0 : tensor<1x8xf32>
  %m1 = stablehlo.multiply %v1, %v1 : tensor<2x8xf32>
  %q = stablehlo.add %a, %a : tensor<3x8xf32>
  %w = "stablehlo.slice"(%q) {start_indices = array<i64: 2, 0>, limit_indices = array<i64: 3, 8>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<1x8xf32>
  %s = stablehlo.add %e0, %w : tensor<1x8xf32>
  %t = stablehlo.reshape %s : (tensor<1x8xf32>) -> tensor<8xf32>
  %u = stablehlo.add %t, %r2 : tensor<8xf32>
  func.return %v0, %u, %m1 : tensor<1x8xf32>, tensor<8xf32>, tensor<2x8xf32>
}
}`
	m, err := stablehlo.ParseModule("views", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	planned, plain := compileWith(t, m, true), compileWith(t, m, false)
	rng := rand.New(rand.NewSource(3))
	var prev, prevCopy []*literal.Literal
	for run := 0; run < 6; run++ {
		var args []*literal.Literal
		for _, it := range m.Func("main").Type.Inputs {
			args = append(args, randomLiteral(t, rng, stablehlo.AsTensor(it)))
		}
		want, err := plain.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := planned.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		for i := range prev {
			if !bytes.Equal(prev[i].Data, prevCopy[i].Data) {
				t.Fatalf("run %d overwrote result #%d of the run before", run, i)
			}
		}
		for i := range want {
			if !shapeEq(got[i].Shape, want[i].Shape) || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("run %d: result #%d = %v, want %v", run, i, got[i], want[i])
			}
		}
		prev, prevCopy = got, nil
		for _, g := range got {
			prevCopy = append(prevCopy, g.Clone())
		}
	}
	for _, a := range planned.(*Executable).prog.arenas.idle {
		if len(a.parked) != 0 {
			t.Errorf("%d buffers still parked after the run", len(a.parked))
		}
		if a.stats.hits == 0 || a.stats.unparked == 0 {
			t.Errorf("want buffers recycled, some after their views died: %+v", a.stats)
		}
	}
}

// The same with values large enough to be carved out of arena chunks:
// results that are views of dead values leave with copies, runs agree
// with the interpreter and never overwrite an earlier run's results, and
// the arena keeps no more than after the first run.
func TestLargeViewsOutlivingTheirBuffer(t *testing.T) {
	src := `module {
func.func @main(%a: tensor<3x32768xf32>, %b: tensor<3x32768xf32>) -> (tensor<1x32768xf32>, tensor<32768xf32>, tensor<2x32768xf32>, tensor<3x32768xf32>) {
  %p = stablehlo.add %a, %b : tensor<3x32768xf32>
  %v0 = "stablehlo.slice"(%p) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 32768>, strides = array<i64: 1, 1>} : (tensor<3x32768xf32>) -> tensor<1x32768xf32>
  %v1 = "stablehlo.slice"(%p) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 32768>, strides = array<i64: 1, 1>} : (tensor<3x32768xf32>) -> tensor<2x32768xf32>
  %v2 = "stablehlo.slice"(%v1) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 32768>, strides = array<i64: 1, 1>} : (tensor<2x32768xf32>) -> tensor<1x32768xf32>
  %r2 = stablehlo.reshape %v2 : (tensor<1x32768xf32>) -> tensor<32768xf32>
  %e0 = stablehlo.exponential %v0 : tensor<1x32768xf32>
  %m1 = stablehlo.multiply %v1, %v1 : tensor<2x32768xf32>
  %q = stablehlo.add %a, %a : tensor<3x32768xf32>
  %w = "stablehlo.slice"(%q) {start_indices = array<i64: 2, 0>, limit_indices = array<i64: 3, 32768>, strides = array<i64: 1, 1>} : (tensor<3x32768xf32>) -> tensor<1x32768xf32>
  %s = stablehlo.add %e0, %w : tensor<1x32768xf32>
  %t = stablehlo.reshape %s : (tensor<1x32768xf32>) -> tensor<32768xf32>
  %u = stablehlo.add %t, %r2 : tensor<32768xf32>
  func.return %v0, %u, %m1, %q : tensor<1x32768xf32>, tensor<32768xf32>, tensor<2x32768xf32>, tensor<3x32768xf32>
}
}`
	m, err := stablehlo.ParseModule("views", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	planned, plain := compileWith(t, m, true), compileWith(t, m, false)
	rng := rand.New(rand.NewSource(5))
	var prev, prevCopy []*literal.Literal
	kept := 0
	for run := 0; run < 5; run++ {
		var args []*literal.Literal
		for _, it := range m.Func("main").Type.Inputs {
			args = append(args, randomLiteral(t, rng, stablehlo.AsTensor(it)))
		}
		want, err := plain.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := planned.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		for i := range prev {
			if !bytes.Equal(prev[i].Data, prevCopy[i].Data) {
				t.Fatalf("run %d overwrote result #%d of the run before", run, i)
			}
		}
		for i := range want {
			if !shapeEq(got[i].Shape, want[i].Shape) || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("run %d: result #%d differs from the interpreter's", run, i)
			}
		}
		prev, prevCopy = got, nil
		for _, g := range got {
			prevCopy = append(prevCopy, g.Clone())
		}
		idle := planned.(*Executable).prog.arenas.idle
		if len(idle) != 1 {
			t.Fatalf("%d idle arenas, want 1", len(idle))
		}
		a := idle[0]
		if len(a.parked) != 0 || len(a.pieces) != 0 {
			t.Fatalf("run %d: %d buffers parked, %d pieces out after the run", run, len(a.parked), len(a.pieces))
		}
		n := 0
		for _, c := range a.chunks {
			n += len(c.b)
		}
		if run > 0 && n > kept {
			t.Errorf("run %d: the arena keeps %d bytes, %d after the first run", run, n, kept)
		}
		if run == 0 {
			kept = n
		}
	}
}
