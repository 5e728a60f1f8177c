package legalize_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The seed programs (testdata/seeds, one or more per pass) are the fuzz
// target's seeds and part of the mutation harness's corpus
// (tools/mutate). Each must legalize for xla-cpu, and the legalized
// program must compute on the native backend what the original does.

func seedFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "seeds", "*.mlir"))
	if len(files) == 0 {
		t.Fatal("no seed programs in testdata/seeds")
	}
	return files
}

// carry converts a caller's literal to what the device takes (edges).
func carry(l *literal.Literal, to dtype.DType) *literal.Literal {
	if l.DType.Size() == 1 && to.Size() == 1 && !l.DType.IsFloat() && !to.IsFloat() {
		return &literal.Literal{DType: to, Shape: l.Shape, Data: l.Data}
	}
	out, _ := literal.New(to, l.Shape)
	for i := 0; i < l.Len(); i++ {
		out.SetFloat64(i, l.Float64(i))
	}
	return out
}

func TestSeedsLegalizeAndAgree(t *testing.T) {
	for _, path := range seedFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			mods, err := stablehlo.Parse(path, src)
			if err != nil {
				t.Fatal(err)
			}
			target := legalize.TargetFor("xla-cpu")
			if err := legalize.Exercise(context.Background(), mods[0], target, 3); err != nil {
				t.Fatalf("Exercise: %v", err)
			}
			main := mods[0].Func("main")
			args, err := pjrttest.SampleArgs(main.Type.Inputs, 3, 7)
			if err != nil {
				t.Fatal(err)
			}
			want, err := runNative(t, mods[0], args)
			if err != nil {
				t.Fatalf("native, original: %v", err)
			}
			m, _ := stablehlo.Parse(path, src)
			s := &legalize.State{Module: m[0], Target: target}
			if legalize.IsDynamic(m[0]) {
				if err := legalize.Run(&legalize.State{Module: m[0], Target: target}, legalize.Options{Only: []string{"inline"}}); err != nil {
					t.Fatal(err)
				}
				shapeArgs, err := legalize.ShapeArgs(m[0])
				if err != nil {
					t.Fatal(err)
				}
				s.Args = argsOf(args, shapeArgs)
			}
			if err := legalize.Run(s, legalize.Options{Verify: true}); err != nil {
				t.Fatalf("legalize: %v (ran %v)", err, s.Ran)
			}
			in := append([]*literal.Literal(nil), args...)
			if s.Edges != nil {
				for i, d := range s.Edges.Args {
					if d != dtype.Invalid {
						in[i] = carry(in[i], stablehlo.AsTensor(m[0].Func("main").Type.Inputs[i]).DType())
					}
				}
			}
			got, err := runNative(t, m[0], in)
			if err != nil {
				t.Fatalf("native, legalized (%v): %v", s.Ran, err)
			}
			if s.Edges != nil {
				for i, d := range s.Edges.Results {
					if d != dtype.Invalid {
						got[i] = carry(got[i], d)
					}
				}
			}
			if err := pjrttest.Compare(got, want, 0, 0); err != nil {
				t.Errorf("after %v: %v", s.Ran, err)
			}
			t.Logf("passes: %v", s.Ran)
		})
	}
}

// FuzzLegalize mutates programs (the seeds and a sample of the StableHLO
// suite) and runs each through the pipeline as the PJRT backend does
// (legalize.Exercise): a bad program must be an error, never a panic, and
// what the pipeline produces must verify.
func FuzzLegalize(f *testing.F) {
	for _, path := range seedFiles(f) {
		if src, err := os.ReadFile(path); err == nil {
			f.Add(src, uint8(3))
		}
	}
	more, _ := filepath.Glob(filepath.Join(confDir, "testdata", "*dynamic*.mlir"))
	for i := 0; i < len(more); i += 25 {
		if src, err := os.ReadFile(more[i]); err == nil && len(src) < 16<<10 {
			f.Add(src, uint8(2))
		}
	}
	target := legalize.TargetFor("xla-cpu")
	f.Fuzz(func(t *testing.T, src []byte, n uint8) {
		mods, err := stablehlo.Parse("fuzz.mlir", src)
		if err != nil {
			return
		}
		for _, m := range mods {
			if stablehlo.Verify(m) != nil {
				continue
			}
			_ = legalize.Exercise(context.Background(), m, target, int64(n%9)+1)
		}
	})
}
