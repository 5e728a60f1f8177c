package aten_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// TestPowScalarBits runs the cases of testdata/pow (made by gen.py there
// with real PyTorch) and requires PyTorch's bits for every element (any NaN
// for a NaN): pow(x, 2|3|-2) as products, pow(x, 0.5|-0.5|-1) as sqrt,
// rsqrt and reciprocal, -0.0 and infinities included.
func TestPowScalarBits(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pow", "*.pt2"))
	if len(files) == 0 {
		t.Fatal("no cases in testdata/pow: run testdata/pow/gen.py")
	}
	for _, f := range files {
		base := strings.TrimSuffix(f, ".pt2")
		p, err := pt2.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		io, err := safetensors.Load(base + ".io.safetensors")
		if err != nil {
			t.Fatal(err)
		}
		prog, err := runtime.New(p.Graph, nil, "cpu")
		if err != nil {
			t.Fatal(err)
		}
		outs, _, err := prog.Run(context.Background(), io.Inputs())
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		want := io.Outputs()
		if len(outs) != len(want) {
			t.Fatalf("%s: %d outputs, want %d", base, len(outs), len(want))
		}
		for i := range want {
			if err := sameBits(outs[i], want[i]); err != nil {
				t.Errorf("%s output %d: %v", filepath.Base(base), i, err)
			}
		}
	}
}

func sameBits(got, want *literal.Literal) error {
	if got.DType != want.DType || fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Errorf("%v%v, want %v%v", got.DType, got.Shape, want.DType, want.Shape)
	}
	size := len(want.Data) / max(want.Len(), 1)
	bad, first := 0, ""
	for i := 0; i < want.Len(); i++ {
		g, w := got.Data[i*size:(i+1)*size], want.Data[i*size:(i+1)*size]
		if string(g) == string(w) {
			continue
		}
		if want.DType.IsFloat() && math.IsNaN(got.Float64(i)) && math.IsNaN(want.Float64(i)) {
			continue
		}
		if bad == 0 {
			first = fmt.Sprintf("element %d: got %v (%x), want %v (%x)", i, got.Float64(i), g, want.Float64(i), w)
		}
		bad++
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements differ in their bits; %s", bad, want.Len(), first)
	}
	return nil
}
