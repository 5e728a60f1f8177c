package aten_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestOpsCoverageCases runs the cases of testdata/opscov (made by
// tools/opscov/gen.py with real PyTorch): logcumsumexp, det, vander,
// the multi-margin losses and the torch.fft user ops, each as exported
// (the user-facing op) and, for NAME_core, after run_decompositions.
// Every lowered module is verified and its outputs compared with
// PyTorch's; FFT outputs get a tolerance proportional to the transform
// size (the native backend's FFT rounds differently from pocketfft).
// OPSCOV_CASES=name1,name2 narrows the run.
func TestOpsCoverageCases(t *testing.T) {
	for _, dir := range []string{"opscov", "opscov-torch2.6"} {
		t.Run(dir, func(t *testing.T) { runOpsCovDir(t, dir) })
	}
}

func runOpsCovDir(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.pt2"))
	if len(files) == 0 {
		t.Fatalf("no cases in testdata/%s: run tools/opscov/gen.py", dir)
	}
	sort.Strings(files)
	rejects, err := opscovRejects(dir)
	if err != nil {
		t.Fatal(err)
	}
	filter := os.Getenv("OPSCOV_CASES")
	pass, total := 0, 0
	for _, f := range files {
		base := strings.TrimSuffix(f, ".pt2")
		name := filepath.Base(base)
		if filter != "" && !strings.Contains(","+filter+",", ","+name+",") {
			continue
		}
		total++
		if want, ok := rejects[name]; ok {
			// PyTorch raised when running this program: so must the runtime.
			err := runOpsCovCase(base, false)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got error %v, want one containing %q", name, err, want)
				continue
			}
			pass++
			continue
		}
		if err := runOpsCovCase(base, strings.HasPrefix(name, "fft_")); err != nil {
			if why, ok := opscovGap(dir, name); ok {
				t.Logf("%s: known gap (%s): %v", name, why, err)
				continue
			}
			t.Errorf("%s: %v", name, err)
			continue
		}
		pass++
	}
	t.Logf("%s cases: %d of %d pass", dir, pass, total)
}

// opscovRejects reads the programs PyTorch exported but refused to run
// (ERRORS.json entries with exported set): name → the message of the
// error, without its Python exception type ("RuntimeError: ").
func opscovRejects(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join("testdata", dir, "ERRORS.json"))
	if err != nil {
		return nil, err
	}
	var list []struct {
		Name     string `json:"name"`
		Error    string `json:"error"`
		Exported bool   `json:"exported"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("ERRORS.json: %w", err)
	}
	out := map[string]string{}
	for _, e := range list {
		if e.Exported {
			_, msg, _ := strings.Cut(e.Error, ": ")
			out[e.Name] = msg
		}
	}
	return out, nil
}

// opscovGaps lists cases expected to fail (by name, or "dir/name" for one
// folder), and why; they are reported, not failed.
var opscovGaps = map[string]string{
	// A 1-D input with a 0-dim (multi_margin) or 1-D (multilabel) target
	// and reduction none: the CPU kernel returns a 0-dim loss (what the
	// lowering gives), PyTorch's decomposition a [1] one.
	"mml_1d_0d_target_core": "PyTorch's decomposition and kernel disagree on the shape",
	"mlml_1d_core":          "PyTorch's decomposition and kernel disagree on the shape",
	// torch 2.6's decomposition of multilabel_margin_loss does not mask
	// the targets after the first -1 (it gathers x[0] for them); later
	// versions do, and their _core cases pass.
	"opscov-torch2.6/mlml_mean_core":    "torch 2.6's decomposition counts targets after -1",
	"opscov-torch2.6/mlml_sum_core":     "torch 2.6's decomposition counts targets after -1",
	"opscov-torch2.6/mlml_none_core":    "torch 2.6's decomposition counts targets after -1",
	"opscov-torch2.6/mlml_f64_core":     "torch 2.6's decomposition counts targets after -1",
	"opscov-torch2.6/mlml_forward_core": "torch 2.6's decomposition counts targets after -1",
}

// opscovMetaGaps lists cases whose exported output shape (PyTorch's meta
// function) differs from its CPU kernel's: the shape check is skipped.
var opscovMetaGaps = map[string]string{
	"mml_1d_0d_target": "meta gives [1], the kernel a 0-dim loss",
	"mlml_1d":          "meta gives [1], the kernel a 0-dim loss",
}

func opscovGap(dir, name string) (string, bool) {
	if why, ok := opscovGaps[dir+"/"+name]; ok {
		return why, true
	}
	why, ok := opscovGaps[name]
	return why, ok
}

// runOpsCovCase runs a case on its recorded inputs and, for a program
// with symbolic sizes, on the other-sized inputs of NAME.alt.io.safetensors.
func runOpsCovCase(base string, fft bool) error {
	if err := runOpsCovIO(base, base+".io.safetensors", fft); err != nil {
		return err
	}
	alt := base + ".alt.io.safetensors"
	if _, err := os.Stat(alt); err != nil {
		return nil
	}
	if err := runOpsCovIO(base, alt, fft); err != nil {
		return fmt.Errorf("other sizes: %w", err)
	}
	return nil
}

func runOpsCovIO(base, ioPath string, fft bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		return err
	}
	io, err := safetensors.Load(ioPath)
	if err != nil {
		return err
	}
	prog, err := runtime.FromPT2(p, "cpu")
	if err != nil {
		return err
	}
	_, metaGap := opscovMetaGaps[filepath.Base(base)]
	prog.Check = !metaGap
	got, _, err := prog.Run(context.Background(), io.Inputs())
	if err != nil {
		return err
	}
	want := io.Outputs()
	if len(got) != len(want) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	for i := range want {
		if fft {
			err = compareFFT(got[i], want[i])
		} else {
			err = compareLit(got[i], want[i])
		}
		if err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
	}
	return nil
}

// compareFFT compares an FFT result: an element may be off by
// 8·eps·log2(2n)·max|want| (n the number of elements, eps of the dtype;
// an FFT's rounding error grows with log n) plus 100·eps relative. The
// native backend's results were within 2.1·eps·max|want| of PyTorch's
// when these cases were made. NaN must match NaN.
func compareFFT(got, want *literal.Literal) error {
	if got.DType != want.DType {
		return fmt.Errorf("dtype %v, want %v", got.DType, want.DType)
	}
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	eps := 1.2e-7
	if want.DType == dtype.F64 || want.DType == dtype.C128 {
		eps = 2.3e-16
	}
	at := func(l *literal.Literal, i int) complex128 {
		if l.DType.IsComplex() {
			return l.Complex128(i)
		}
		return complex(l.Float64(i), 0)
	}
	n := want.Len()
	scale := 0.0
	for i := 0; i < n; i++ {
		scale = math.Max(scale, cmplx.Abs(at(want, i)))
	}
	atol := 8 * eps * math.Log2(float64(2*n)) * scale
	for i := 0; i < n; i++ {
		g, w := at(got, i), at(want, i)
		if cmplx.IsNaN(w) && cmplx.IsNaN(g) {
			continue
		}
		if cmplx.Abs(g-w) > atol+100*eps*cmplx.Abs(w) {
			return fmt.Errorf("element %d: got %v, want %v (atol %.3g)", i, g, w, atol)
		}
	}
	return nil
}
