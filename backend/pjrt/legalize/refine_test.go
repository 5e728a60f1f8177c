package legalize_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

const confDir = "../../../../shared/conformance/stablehlo"

// polyMLP is a jax.export-style program: @main reads the batch from its
// argument's shape, checks it and calls the body with it.
const polyMLP = `
module @poly {
  func.func public @main(%arg0: tensor<?x4xf32>) -> tensor<?x2xf32> {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.compare GE, %1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "batch {0} must be >= 1", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3 = call @body(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> tensor<?x2xf32>
    return %3 : tensor<?x2xf32>
  }
  func.func private @body(%b: tensor<i64>, %x: tensor<?x4xf32>) -> tensor<?x2xf32> {
    %w = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %b32 = stablehlo.convert %b : (tensor<i64>) -> tensor<i32>
    %r = stablehlo.reshape %b32 : (tensor<i32>) -> tensor<1xi32>
    %two = stablehlo.constant dense<2> : tensor<1xi32>
    %s = stablehlo.concatenate %r, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi32>) -> tensor<?x2xf32>
    %z = stablehlo.add %y, %i : tensor<?x2xf32>
    return %z : tensor<?x2xf32>
  }
}
`

func parseOne(t *testing.T, src string) *stablehlo.Module {
	t.Helper()
	mods, err := stablehlo.Parse("test.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return mods[0]
}

func argsOf(lits []*literal.Literal, shapeArgs []int) []legalize.Arg {
	isShape := map[int]bool{}
	for _, i := range shapeArgs {
		isShape[i] = true
	}
	out := make([]legalize.Arg, len(lits))
	for i, l := range lits {
		out[i].Type = stablehlo.Tensor(l.DType, l.Shape...)
		if isShape[i] {
			out[i].Value = l
		}
	}
	return out
}

// refineFor legalizes a copy of m for the call with args (shape
// refinement only: the other passes are for XLA).
func refineFor(t *testing.T, src []byte, mi int, args []*literal.Literal) (*stablehlo.Module, error) {
	t.Helper()
	mods, err := stablehlo.Parse("test.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	m := mods[mi]
	s := &legalize.State{Module: m, Target: legalize.TargetFor("xla-cpu")}
	if err := legalize.Run(&legalize.State{Module: m, Target: s.Target}, legalize.Options{Disable: []string{"refine", "chlo", "quant", "types", "fixes", "dce"}}); err != nil {
		return nil, err
	}
	shapeArgs, err := legalize.ShapeArgs(m)
	if err != nil {
		return nil, err
	}
	s.Args = argsOf(args, shapeArgs)
	err = legalize.Run(s, legalize.Options{Disable: []string{"chlo", "quant", "types", "fixes"}, Verify: true})
	return m, err
}

func runNative(t *testing.T, m *stablehlo.Module, args []*literal.Literal) ([]*literal.Literal, error) {
	t.Helper()
	ctx := context.Background()
	exe, err := (&native.Backend{}).Compile(ctx, m, backend.Options{})
	if err != nil {
		return nil, err
	}
	return exe.Run(ctx, args)
}

func TestRefineJaxExportStyle(t *testing.T) {
	for _, b := range []int64{1, 3, 8} {
		args, err := pjrttest.SampleArgs([]stablehlo.Type{stablehlo.Tensor(dtype.F32, stablehlo.Dynamic, 4)}, b, b)
		if err != nil {
			t.Fatal(err)
		}
		args[0] = mustF32(t, []int64{b, 4})
		want, err := runNative(t, parseOne(t, polyMLP), args)
		if err != nil {
			t.Fatalf("b=%d: native on the polymorphic program: %v", b, err)
		}
		m, err := refineFor(t, []byte(polyMLP), 0, args)
		if err != nil {
			t.Fatalf("b=%d: %v", b, err)
		}
		var sb strings.Builder
		if err := stablehlo.Print(&sb, m); err != nil {
			t.Fatal(err)
		}
		text := sb.String()
		for _, bad := range []string{"?", "dynamic_iota", "get_dimension_size", "shape_assertion", "call @"} {
			if strings.Contains(text, bad) {
				t.Errorf("b=%d: refined program still has %q:\n%s", b, bad, text)
			}
		}
		got, err := runNative(t, m, args)
		if err != nil {
			t.Fatalf("b=%d: refined program: %v", b, err)
		}
		if err := pjrttest.Compare(got, want, 0, 0); err != nil {
			t.Errorf("b=%d: %v", b, err)
		}
	}
}

func mustF32(t *testing.T, shape []int64) *literal.Literal {
	l, err := literal.New(dtype.F32, shape)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < l.Len(); i++ {
		l.SetFloat64(i, float64(i%7)-3)
	}
	return l
}

func TestRefineFailedAssertionIsAnError(t *testing.T) {
	args := []*literal.Literal{mustF32(t, []int64{0, 4})}
	_, err := refineFor(t, []byte(polyMLP), 0, args)
	if err == nil || !strings.Contains(err.Error(), "batch 0 must be >= 1") {
		t.Fatalf("got %v, want the program's assertion message", err)
	}
}

func TestRefineWrongShapeIsAnError(t *testing.T) {
	args := []*literal.Literal{mustF32(t, []int64{3, 5})}
	if _, err := refineFor(t, []byte(polyMLP), 0, args); err == nil {
		t.Fatal("a call of tensor<3x5xf32> for tensor<?x4xf32> refined without error")
	}
}

// TestRefineConformanceDynamic refines every shape-polymorphic program
// of the StableHLO suite at two batch sizes and checks that the refined
// program, on the native backend, gives what the polymorphic one gives.
func TestRefineConformanceDynamic(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(confDir, "testdata", "*dynamic*.mlir"))
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("conformance suite missing")
		}
		t.Skip("conformance suite not found")
	}
	pass, fail, nativeOnly := 0, 0, 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods, err := stablehlo.Parse(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for mi, m := range mods {
			main := m.Func("main")
			if main == nil || len(main.Type.Inputs) == 0 {
				continue
			}
			for _, b := range []int64{2, 3} {
				args, err := pjrttest.SampleArgs(main.Type.Inputs, b, b)
				if err != nil {
					t.Fatal(err)
				}
				want, werr := runNative(t, m, args)
				rm, err := refineFor(t, src, mi, args)
				if err != nil {
					if werr == nil {
						fail++
						t.Errorf("%s b=%d: refine: %v", filepath.Base(path), b, err)
					}
					continue
				}
				got, err := runNative(t, rm, args)
				switch {
				case werr != nil && err != nil:
					continue // both refuse these inputs
				case err != nil:
					fail++
					t.Errorf("%s b=%d: refined program: %v", filepath.Base(path), b, err)
				case werr != nil:
					nativeOnly++ // the native backend plans these, it cannot run them (a ? result of convert)
				default:
					if err := pjrttest.Compare(got, want, 0, 0); err != nil {
						fail++
						t.Errorf("%s b=%d: %v", filepath.Base(path), b, err)
					} else {
						pass++
					}
				}
			}
		}
	}
	t.Logf("%d refinements agree with the polymorphic programs, %d do not; %d run refined where the native backend cannot run the polymorphic program", pass, fail, nativeOnly)
}
