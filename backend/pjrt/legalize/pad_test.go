package legalize_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// padRun runs module mi of src padded from n to B on the native backend
// (refined at B and 2B, legalize.Pad's masks, zero-padded arguments,
// results cut to the exact shapes) and compares with the program run at
// n. ok is false when Pad refuses the program.
func padRun(t *testing.T, src []byte, mi int, n, B int64) (ok bool, err error) {
	t.Helper()
	mods, perr := stablehlo.Parse("p.mlir", src)
	if perr != nil {
		t.Fatal(perr)
	}
	main := mods[mi].Func("main")
	args, aerr := pjrttest.SampleArgs(main.Type.Inputs, n, n)
	if aerr != nil {
		t.Fatal(aerr)
	}
	want, werr := runNative(t, mods[mi], args)
	exact, rerr := refineFor(t, src, mi, args)
	if rerr != nil {
		return false, nil
	}
	if werr != nil {
		if want, werr = runNative(t, exact, args); werr != nil {
			return false, nil
		}
	}
	at := func(size int64) []*literal.Literal {
		out := make([]*literal.Literal, len(args))
		for i, a := range args {
			shape := append([]int64{}, a.Shape...)
			for d, s := range stablehlo.AsTensor(main.Type.Inputs[i]).Shape {
				if s == stablehlo.Dynamic {
					shape[d] = size
				}
			}
			if len(shape) == 0 && a.DType.IsInteger() && a.Int64(0) == n {
				l, _ := literal.New(a.DType, nil)
				l.SetInt64(0, size)
				out[i] = l
				continue
			}
			r, err := literal.Resize(a, shape)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = r
		}
		return out
	}
	mB, err := refineFor(t, src, mi, at(B))
	if err != nil {
		return false, nil
	}
	m2, err := refineFor(t, src, mi, at(2*B))
	if err != nil {
		return false, nil
	}
	if _, err := legalize.Pad(mB, m2, B); err != nil {
		return false, nil
	}
	if err := stablehlo.Verify(mB); err != nil {
		return true, err
	}
	nl, _ := literal.New(dtype.I64, nil)
	nl.SetInt64(0, n)
	got, err := runNative(t, mB, append(at(B), nl))
	if err != nil {
		return true, err
	}
	for i := range got {
		rt := stablehlo.AsTensor(exact.Func("main").Type.Results[i])
		if got[i], err = literal.Resize(got[i], rt.Shape); err != nil {
			return true, err
		}
	}
	return true, pjrttest.Compare(got, want, 0, 0)
}

func TestPadJaxExportMLP(t *testing.T) {
	src, err := os.ReadFile("../testdata/jax/mlp_poly.mlir")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]int64{{3, 4}, {5, 8}, {1, 2}} {
		ok, err := padRun(t, src, 0, c[0], c[1])
		if !ok {
			t.Fatalf("n=%d B=%d: padding refused", c[0], c[1])
		}
		if err != nil {
			t.Errorf("n=%d B=%d: %v", c[0], c[1], err)
		}
	}
}

// A mean over the batch divides by the batch size: the program uses the
// size as a value, and padding must be refused.
const meanOverBatch = `
func.func public @main(%arg0: tensor<?x4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %4 = stablehlo.divide %2, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}
`

func TestPadRefusesTheSizeAsAValue(t *testing.T) {
	ok, err := padRun(t, []byte(meanOverBatch), 0, 3, 4)
	if ok {
		t.Fatalf("a mean over the padded batch was accepted (err %v)", err)
	}
}

// TestPadConformanceDynamic pads every shape-polymorphic program of the
// StableHLO suite that legalize.Pad accepts from 3 to 4 and checks the
// native backend's results against the unpadded run, exactly.
func TestPadConformanceDynamic(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(confDir, "testdata", "*dynamic*.mlir"))
	if len(files) == 0 {
		t.Skip("conformance suite not found")
	}
	accepted, refused := 0, 0
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
			if f := m.Func("main"); f == nil || len(f.Type.Inputs) == 0 {
				continue
			}
			ok, err := padRun(t, src, mi, 3, 4)
			if !ok {
				refused++
				continue
			}
			accepted++
			if err != nil {
				t.Errorf("%s: padded 3 -> 4: %v", strings.TrimPrefix(path, confDir+"/"), err)
			}
		}
	}
	t.Logf("%d programs run padded with the unpadded results, %d refused (exact shapes)", accepted, refused)
	if accepted < 100 {
		t.Errorf("only %d programs accepted for padding", accepted)
	}
}
