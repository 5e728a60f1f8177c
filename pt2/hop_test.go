package pt2

import (
	"testing"

	"github.com/torchtpu/torchtpu/fx"
)

// TestHigherOrderOps reads torch.cond with its branch subgraphs and a
// dynamic batch dim, from torch 2.14 and 2.6 (testdata/gen_hop.py).
func TestHigherOrderOps(t *testing.T) {
	for _, name := range []string{"hop", "hop_legacy"} {
		p, err := Load("testdata/" + name + ".pt2")
		if err != nil {
			t.Fatal(err)
		}
		g := p.Graph
		if err := g.Verify(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var cond *fx.Node
		for _, n := range g.Nodes {
			if n.Target == "higher_order::cond" {
				cond = n
			}
		}
		if cond == nil {
			t.Fatalf("%s: no cond node", name)
		}
		subs := cond.Subgraphs()
		if len(subs) != 2 {
			t.Fatalf("%s: %d subgraphs", name, len(subs))
		}
		for i, want := range []string{"aten::sin.default", "aten::cos.default"} {
			if subs[i].OpCounts()[want] != 1 || len(subs[i].Inputs) != 2 || len(subs[i].Outputs) != 1 {
				t.Errorf("%s: subgraph %d: %s", name, i, subs[i].Format())
			}
		}
		r, ok := g.Ranges[g.Symbols()[0]]
		if len(g.Symbols()) != 1 || !ok || *r.Min != 2 || *r.Max != 16 {
			t.Errorf("%s: symbols %v ranges %v", name, g.Symbols(), g.Ranges)
		}
		if err := fx.RunPasses(g, fx.PassOptions{Verify: true}); err != nil || g.Producer(cond.OutputNames()[0]) == nil {
			t.Errorf("%s: passes: %v", name, err)
		}
	}
}
