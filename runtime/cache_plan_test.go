package runtime

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
)

// savesInput builds what a training forward looks like to the plan cache:
// x + y, x itself (saved for the backward: the executable hands its
// argument back) and a None.
func savesInput() *fx.Graph {
	g := twoInputs()
	x := g.Inputs[0]
	none := fx.Arg{Kind: fx.ArgNone}
	g.Outputs = append(g.Outputs, x, none)
	g.Signature.Outputs = append(g.Signature.Outputs,
		fx.OutputSpec{Kind: fx.OutputUser, Arg: x}, fx.OutputSpec{Kind: fx.OutputUser, Arg: none})
	return g
}

// A program returning an input and a None runs from its cached plan after
// the first call (it once lowered every call: the input was taken for a
// result of the executable, and None could not be traced).
func TestPlanWithInputAndNoneOutputs(t *testing.T) {
	prog, err := New(savesInput(), nil, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	for call := 0; call < 3; call++ {
		x, y := vec(4, 1), vec(4, 0.5)
		outs, _, err := prog.Run(context.Background(), []*literal.Literal{x, y})
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 3 || outs[2] != nil || outs[1] == nil || outs[1].DType != dtype.F32 {
			t.Fatalf("call %d: outputs %v", call, outs)
		}
		for i := 0; i < 4; i++ {
			if outs[0].Float64(i) != 1.5*float64(i+1) || outs[1].Float64(i) != float64(i+1) {
				t.Fatalf("call %d: element %d: %v, %v", call, i, outs[0].Float64(i), outs[1].Float64(i))
			}
		}
	}
	if m := prog.Metrics().Snapshot(); m.HitsBy["plan"] != 2 {
		t.Errorf("plan hits %d, want 2 (every call after the first): %+v", m.HitsBy["plan"], m.HitsBy)
	}
}
