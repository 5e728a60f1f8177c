package aten

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/safetensors"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// attnArg is one argument of a case in testdata/attention/cases.json.
type attnArg struct {
	Tensor string   `json:"tensor"`
	None   bool     `json:"none"`
	Bool   *bool    `json:"bool"`
	Int    *int64   `json:"int"`
	Float  *float64 `json:"float"`
	Bools  []bool   `json:"bools"`
}

type attnCase struct {
	Name    string             `json:"name"`
	Op      string             `json:"op"`
	Tol     float64            `json:"tol"`
	Args    []attnArg          `json:"args"`
	Kwargs  map[string]attnArg `json:"kwargs"`
	Outputs []struct {
		attnArg
		DType string  `json:"dtype"`
		Shape []int64 `json:"shape"`
	} `json:"outputs"`
}

func (a attnArg) value(t *testing.T, c *LowerCtx, f *safetensors.File) Value {
	switch {
	case a.Tensor != "":
		l, ok := f.Tensors[a.Tensor]
		if !ok {
			t.Fatalf("tensor %s missing from attention.safetensors", a.Tensor)
		}
		return TensorValue(c.Const(l))
	case a.Bool != nil:
		return BoolValue(*a.Bool)
	case a.Int != nil:
		return IntValue(*a.Int)
	case a.Float != nil:
		return FloatValue(*a.Float)
	case a.Bools != nil:
		vs := make([]Value, len(a.Bools))
		for i, b := range a.Bools {
			vs[i] = BoolValue(b)
		}
		return ListValue(vs...)
	}
	return None()
}

// TestAttentionCases runs the fused attention ops and their backwards on
// PyTorch's cases (testdata/attention/gen.py: the CPU flash kernel's own
// outputs; for the other devices' kernels, float64 math attention with the
// meta kernels' shapes) and compares every output: None-ness, SymInt
// values, dtype and shape exactly, values within the case's tolerance
// relative to the output's largest magnitude (at least 1: a gradient that
// cancels to ~0 is compared at its terms' scale), infinities exactly.
func TestAttentionCases(t *testing.T) {
	dir := filepath.Join("testdata", "attention")
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct{ Cases []attnCase }
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Load(filepath.Join(dir, "attention.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	be, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, cs := range data.Cases {
		ops[cs.Op] = true
		t.Run(cs.Name, func(t *testing.T) {
			got := runAttnCase(t, be, cs, f)
			if len(got) != len(cs.Outputs) {
				t.Fatalf("%d outputs, PyTorch's op has %d", len(got), len(cs.Outputs))
			}
			for i, want := range cs.Outputs {
				g := got[i]
				switch {
				case want.None:
					if !g.IsNone() {
						t.Errorf("output %d: %v, want None", i, g)
					}
				case want.Int != nil:
					if g.Kind != KInt || g.I != *want.Int {
						t.Errorf("output %d: %v, want %d", i, g, *want.Int)
					}
				default:
					compareAttnTensor(t, i, g.Lit, f.Tensors[want.Tensor], cs.Tol)
				}
			}
		})
	}
	if len(ops) < 12 {
		t.Errorf("cases cover %d ops, want the 12 fused attention ops and backwards", len(ops))
	}
}

// runAttnCase lowers one call with its tensors as constants and runs it;
// tensor results come back as literals, the rest as lowered.
func runAttnCase(t *testing.T, be backend.Backend, cs attnCase, f *safetensors.File) []Value {
	t.Helper()
	b := &stablehlo.Block{}
	c := NewLowerCtx(b)
	var pos []Value
	for _, a := range cs.Args {
		pos = append(pos, a.value(t, c, f))
	}
	kw := map[string]Value{}
	for k, a := range cs.Kwargs {
		kw[k] = a.value(t, c, f)
	}
	out, err := c.Call(cs.Op, pos, kw)
	if err != nil {
		t.Fatalf("%s: %v", cs.Op, err)
	}
	var vals []*stablehlo.Value
	var types []stablehlo.Type
	for _, o := range out {
		if o.T != nil {
			vals, types = append(vals, o.T), append(types, o.T.Type)
		}
	}
	b.Ops = append(b.Ops, stablehlo.NewOp("func.return", vals, nil, nil))
	fn := &stablehlo.Func{Name: "main", Type: &stablehlo.FuncType{Results: types}, Body: &stablehlo.Region{Blocks: []*stablehlo.Block{b}}}
	exe, err := be.Compile(context.Background(), &stablehlo.Module{Funcs: []*stablehlo.Func{fn}}, backend.Options{})
	if err != nil {
		t.Fatalf("compile %s: %v", cs.Op, err)
	}
	res, err := exe.Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("run %s: %v", cs.Op, err)
	}
	j := 0
	for i, o := range out {
		if o.T != nil {
			out[i] = LiteralValue(res[j])
			j++
		}
	}
	return out
}

func compareAttnTensor(t *testing.T, i int, got, want *literal.Literal, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("output %d: not a tensor, want %v", i, want)
		return
	}
	if got.DType != want.DType || fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		t.Errorf("output %d: %v, PyTorch's is %v", i, got, want)
		return
	}
	scale := 0.0
	for j := 0; j < want.Len(); j++ {
		if w := math.Abs(want.Float64(j)); !math.IsInf(w, 0) && w > scale {
			scale = w
		}
	}
	bad, worst := 0, 0.0
	for j := 0; j < want.Len(); j++ {
		g, w := got.Float64(j), want.Float64(j)
		if math.IsInf(w, 0) || math.IsNaN(w) {
			if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
				bad++
			}
			continue
		}
		if d := math.Abs(g - w); d > tol*math.Max(scale, 1) || math.IsNaN(g) {
			bad++
			worst = math.Max(worst, d)
		}
	}
	if bad > 0 {
		t.Errorf("output %d %v: %d of %d values differ (worst %g, tolerance %g of %g)", i, want, bad, want.Len(), worst, tol, scale)
	}
}
