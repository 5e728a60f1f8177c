package pt2

import (
	"math"
	"testing"

	"github.com/torchtpu/torchtpu/fx"
)

// TestNonFinite reads non-finite float arguments in both encodings: torch
// 2.14's strings and torch 2.6's bare NaN/Infinity tokens
// (testdata/gen_nonfinite.py).
func TestNonFinite(t *testing.T) {
	for _, name := range []string{"nonfinite", "nonfinite_legacy"} {
		p, err := Load("testdata/" + name + ".pt2")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, n := range p.Graph.Nodes {
			for _, in := range n.Inputs {
				if in.Arg.Kind == fx.ArgFloat {
					got[in.Name] = in.Arg.Float
				}
			}
		}
		if !math.IsInf(got["min"], -1) || !math.IsInf(got["max"], 1) || !math.IsNaN(got["value"]) {
			t.Errorf("%s: float arguments %v", name, got)
		}
	}
}
