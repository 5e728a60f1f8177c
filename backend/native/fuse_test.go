package native

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	// The uniform module with runs of 40 and 200 elements: chunks of
	// several whole runs, uniform values one per run (segment).
	fuseModules["uniform_40"] = strings.ReplaceAll(fuseModules["uniform"], "1000", "40")
	fuseModules["uniform_200"] = strings.ReplaceAll(fuseModules["uniform"], "1000", "200")
}

// randomLiteral fills a tensor with values including NaN, infinities,
// signed zeros and subnormals.
func randomLiteral(t *testing.T, rng *rand.Rand, tt *stablehlo.TensorType) *literal.Literal {
	l, err := literal.New(tt.DType(), tt.Shape)
	if err != nil {
		t.Fatal(err)
	}
	// NaNs of both signs and several payloads: which one an op returns
	// must not change either.
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-40, -1, 1,
		float64(math.Float32frombits(0xffc01234)), float64(math.Float32frombits(0x7fc00042))}
	for i := 0; i < l.Len(); i++ {
		switch {
		case tt.DType() == dtype.Bool:
			l.SetInt64(i, int64(rng.Intn(2)))
		case rng.Intn(10) == 0:
			l.SetFloat64(i, special[rng.Intn(len(special))])
		default:
			l.SetFloat64(i, rng.NormFloat64()*3)
		}
	}
	return l
}

func compileWith(t *testing.T, m *stablehlo.Module, plan bool) backend.Executable {
	t.Helper()
	old := noFusion
	noFusion = !plan
	defer func() { noFusion = old }()
	e, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestFusionMatchesInterpreter(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for name, src := range fuseModules {
		t.Run(name, func(t *testing.T) {
			if name == "inplace" {
				// the arena's in-place writes and recycling: the values
				// the memory plan would place, or weight folding keep, go
				// through the arena
				defer func(old, wf bool) { noMemPlan, weightFoldsEnabled = old, wf }(noMemPlan, weightFoldsEnabled)
				noMemPlan, weightFoldsEnabled = true, false
			}
			m, err := stablehlo.ParseModule(name, []byte("module {\n"+src+"\n}"))
			if err != nil {
				t.Fatal(err)
			}
			planned, plain := compileWith(t, m, true), compileWith(t, m, false)
			ep := planned.(*Executable).prog.plans[m.Func("main")].exec
			if ep == nil || ep.groups == 0 {
				t.Fatalf("no fusion group planned")
			}
			var prev, prevCopy []*literal.Literal
			for run := 0; run < 4; run++ {
				var args []*literal.Literal
				for _, it := range m.Func("main").Type.Inputs {
					l := randomLiteral(t, rng, stablehlo.AsTensor(it))
					if run < 2 && l.DType.IsFloat() {
						// finite values in two runs of four: randomLiteral's
						// specials (one element in ten) make nearly every
						// reduce over more than a few dozen elements NaN
						for k := 0; k < l.Len(); k++ {
							l.SetFloat64(k, rng.NormFloat64()*3)
						}
					}
					args = append(args, l)
				}
				want, err := plain.Run(context.Background(), args)
				if err != nil {
					t.Fatal(err)
				}
				keep := make([]*literal.Literal, len(args))
				for i, a := range args {
					keep[i] = a.Clone()
				}
				got, err := planned.Run(context.Background(), args)
				if err != nil {
					t.Fatal(err)
				}
				for i := range args {
					if !bytes.Equal(args[i].Data, keep[i].Data) {
						t.Fatalf("run %d: argument #%d was modified", run, i)
					}
				}
				for i := range prev {
					if !bytes.Equal(prev[i].Data, prevCopy[i].Data) {
						t.Fatalf("run %d overwrote result #%d of the run before", run, i)
					}
				}
				prev, prevCopy = got, nil
				for _, g := range got {
					prevCopy = append(prevCopy, g.Clone())
				}
				for i := range want {
					if got[i].DType != want[i].DType || !shapeEq(got[i].Shape, want[i].Shape) || !bytes.Equal(got[i].Data, want[i].Data) {
						t.Fatalf("run %d: result #%d differs: got %v, want %v", run, i, got[i], want[i])
					}
				}
			}
			var st arenaStats
			for _, a := range planned.(*Executable).prog.arenas.idle {
				st = a.stats
			}
			reds, pipes := 0, 0
			for _, st := range ep.steps {
				if st.group != nil && st.group.red != nil {
					reds++
				}
				if st.pipe != nil {
					pipes++
					for _, ps := range st.pipe.stages {
						if ps.kind == psReduceGroup {
							reds++
						}
					}
				}
			}
			if name == "norms" && pipes == 0 {
				t.Errorf("norms: no row pipeline")
			}
			perPlane := 0
			for _, st := range ep.steps {
				if st.group != nil && st.group.planes != nil {
					perPlane++
				}
			}
			if want := map[bool]int{true: 8}[name == "planes" && simdRows && planesEnabled]; name == "planes" && perPlane != want {
				t.Errorf("planes: %d groups run per plane, want %d", perPlane, want)
			}
			if name == "gelubwd" {
				folded := 0
				for _, st := range ep.steps {
					if st.group != nil {
						for _, nd := range st.group.nodes {
							if nd.name == "gelu_backward" {
								folded++
							}
						}
					}
				}
				if folded != 1 {
					t.Errorf("gelubwd: %d chains run as gelu_backward's loop, want 1 (the one whose root reads g first)", folded)
				}
			}
			if name == "transpose" && len(ep.steps) != 1 {
				t.Errorf("transpose: %d steps, want the transposes inlined in one group", len(ep.steps))
			}
			if name == "mask" && ep.folded < 3 {
				t.Errorf("mask: %d ops evaluated once, want the iotas and the compare", ep.folded)
			}
			if (name == "norms" && reds < 2) || (name == "regions" && reds != 1) || (name == "colsums" && reds != 10) {
				t.Errorf("%s: %d reduces fused", name, reds)
			}
			t.Logf("%s: %d groups (%d into reduces), %d ops fused; arena %+v", name, ep.groups, reds, ep.fused, st)
			if name == "inplace" && (st.inplace == 0 || st.hits == 0) {
				t.Errorf("inplace: want in-place writes and recycled buffers, got %+v", st)
			}
		})
	}
}

// TestPlanConcurrentRuns runs one planned executable from several
// goroutines at once: each run has its own arena, and results agree.
func TestPlanConcurrentRuns(t *testing.T) {
	m, err := stablehlo.ParseModule("norms", []byte("module {\n"+fuseModules["norms"]+"\n}"))
	if err != nil {
		t.Fatal(err)
	}
	planned, plain := compileWith(t, m, true), compileWith(t, m, false)
	rng := rand.New(rand.NewSource(2))
	var args []*literal.Literal
	for _, it := range m.Func("main").Type.Inputs {
		args = append(args, randomLiteral(t, rng, stablehlo.AsTensor(it)))
	}
	want, err := plain.Run(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		go func() {
			for r := 0; r < 5; r++ {
				got, err := planned.Run(context.Background(), args)
				if err != nil {
					errs <- err
					return
				}
				for i := range want {
					if !bytes.Equal(got[i].Data, want[i].Data) {
						errs <- fmt.Errorf("result #%d differs", i)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < 8; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
