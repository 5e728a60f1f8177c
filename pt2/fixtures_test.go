package pt2

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/safetensors"
)

// fixtures returns ../shared/fixtures; it fails under CI=true when the
// folder is missing and skips otherwise.
func fixtures(t testing.TB) string {
	dir := filepath.Join("..", "..", "shared", "fixtures")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixtures missing: %v", err)
		}
		t.Skipf("fixtures missing: %v", err)
	}
	return dir
}

func TestFixturesLoad(t *testing.T) {
	root := fixtures(t)
	total := 0
	for _, sub := range []string{"ops", "ops-torch2.6", "models", "models-torch2.6"} {
		files, _ := filepath.Glob(filepath.Join(root, sub, "*.pt2"))
		if len(files) == 0 {
			t.Errorf("%s: no archives", sub)
		}
		ok := 0
		for _, f := range files {
			if err := checkFixture(f); err != nil {
				t.Error(err)
				continue
			}
			ok++
		}
		t.Logf("%s: %d of %d archives load and match their .io.safetensors", sub, ok, len(files))
		total += ok
	}
	t.Logf("total: %d archives", total)
}

func checkFixture(path string) error {
	p, err := Load(path)
	if err != nil {
		return err
	}
	io, err := safetensors.Load(strings.TrimSuffix(path, ".pt2") + ".io.safetensors")
	if err != nil {
		return err
	}
	g := p.Graph
	var tensorIns []fx.InputSpec
	for _, s := range g.UserInputs() {
		if s.Arg.Kind == fx.ArgTensor {
			tensorIns = append(tensorIns, s)
		}
	}
	ins := io.Inputs()
	if len(ins) != len(tensorIns) {
		return fmt.Errorf("%d tensor user inputs, io file has %d", len(tensorIns), len(ins))
	}
	bind := map[string]int64{}
	for i, s := range tensorIns {
		m := g.Tensors[s.Arg.Name]
		if m == nil {
			return fmt.Errorf("input %d (%s): no TensorMeta", i, s.Arg.Name)
		}
		if m.DType != ins[i].DType || m.Rank() != ins[i].Rank() {
			return fmt.Errorf("input %d: graph %v, io %v", i, m, ins[i])
		}
		for d, dim := range m.Shape {
			if dim.IsStatic() {
				if dim.Static != ins[i].Shape[d] {
					return fmt.Errorf("input %d: graph %v, io %v", i, m, ins[i])
				}
			} else if dim.Expr.Op == 4 /* symbol */ {
				bind[dim.Expr.Name] = ins[i].Shape[d]
			}
		}
	}
	for i, s := range tensorIns {
		shape, err := g.Tensors[s.Arg.Name].EvalShape(bind)
		if err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
		if fmt.Sprint(shape) != fmt.Sprint(ins[i].Shape) {
			return fmt.Errorf("input %d: evaluates to %v, io has %v", i, shape, ins[i].Shape)
		}
	}
tensors:
	for name, m := range g.Tensors {
		for _, s := range m.Symbols() {
			if _, ok := bind[s]; !ok && strings.HasPrefix(s, "u") {
				continue tensors // unbacked: data-dependent size
			}
		}
		if _, err := m.EvalShape(bind); err != nil {
			return fmt.Errorf("value %s %v: %w", name, m, err)
		}
	}
	if len(p.Warnings) > 0 {
		return fmt.Errorf("warnings: %v", p.Warnings)
	}
	if p.SampleInputs != nil {
		if len(p.SampleInputs) != len(tensorIns) {
			return fmt.Errorf("%d sample inputs for %d tensor user inputs", len(p.SampleInputs), len(tensorIns))
		}
		for i, l := range p.SampleInputs {
			if l == nil || l.DType != ins[i].DType || l.Rank() != ins[i].Rank() {
				return fmt.Errorf("sample input %d is %v, io input is %v", i, l, ins[i])
			}
			// Static programs were run on their example inputs: the
			// pickled sample inputs must equal the io file's bytes.
			if len(bind) == 0 && (l.String() != ins[i].String() || string(l.Data) != string(ins[i].Data)) {
				return fmt.Errorf("sample input %d differs from the io file's input.%d", i, i)
			}
		}
	} else {
		return fmt.Errorf("no sample inputs")
	}
	for s, v := range bind {
		if r, ok := g.Ranges[s]; ok && !r.Contains(v) {
			return fmt.Errorf("symbol %s = %d outside its range %v", s, v, r)
		}
	}
	if outs := io.Outputs(); len(outs) != len(g.UserOutputs()) {
		return fmt.Errorf("%d user outputs, io file has %d", len(g.UserOutputs()), len(outs))
	}
	for _, s := range g.Signature.Inputs {
		if s.Kind != fx.InputParameter && s.Kind != fx.InputBuffer && s.Kind != fx.InputTensorConstant {
			continue
		}
		l, ok := p.Weight(s.Target)
		if !ok {
			return fmt.Errorf("%s %s not loaded", s.Kind, s.Target)
		}
		n, _ := literal.NumElements(l.Shape)
		if int64(len(l.Data)) != n*int64(l.DType.Size()) {
			return fmt.Errorf("%s: %d bytes for %v", s.Target, len(l.Data), l)
		}
	}
	return nil
}

// TestLegacyWeightsMatch compares the pickled weights of the torch 2.6
// archives with the raw weights of the same models written by torch 2.14,
// where both were made from the same seed.
func TestLegacyWeightsMatch(t *testing.T) {
	root := fixtures(t)
	files, _ := filepath.Glob(filepath.Join(root, "models-torch2.6", "*.pt2"))
	same, differ := 0, 0
	for _, f := range files {
		old, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		cur, err := Load(filepath.Join(root, "models", filepath.Base(f)))
		if err != nil {
			continue
		}
		names := make([]string, 0, len(old.Params))
		for n := range old.Params {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			a, b := old.Params[n], cur.Params[n]
			if b == nil {
				continue
			}
			if a.String() != b.String() {
				t.Errorf("%s %s: %v vs %v", filepath.Base(f), n, a, b)
			}
			if string(a.Data) == string(b.Data) {
				same++
			} else {
				differ++
			}
		}
	}
	t.Logf("legacy vs current parameters: %d identical, %d differ", same, differ)
}
