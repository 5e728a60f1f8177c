package runtime

import (
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/sym"
)

// TestPaddingNodeWithoutOutputs: a node that reads a padded tensor and
// returns nothing (the export serializes a None-returning op, such as
// _assert_tensor_metadata, with no outputs) makes the bucketing analysis
// decline with a reason, not panic.
func TestPaddingNodeWithoutOutputs(t *testing.T) {
	s0 := fx.Dim{Expr: &sym.Expr{Op: sym.OpSymbol, Name: "s0"}}
	x := fx.Arg{Kind: fx.ArgTensor, Name: "x"}
	g := &fx.Graph{
		Inputs: []fx.Arg{x},
		Nodes: []*fx.Node{{
			Name: "check", Target: "aten::_assert_tensor_metadata.default",
			Inputs: []fx.NamedArg{{Name: "a", Arg: x}},
		}},
		Outputs:   []fx.Arg{x},
		Tensors:   map[string]*fx.TensorMeta{"x": {DType: dtype.F32, Shape: []fx.Dim{s0, fx.StaticDim(4)}}},
		Signature: &fx.Signature{Inputs: []fx.InputSpec{{Kind: fx.InputUser, Arg: x}}, Outputs: []fx.OutputSpec{{Kind: fx.OutputUser, Arg: x}}},
	}
	_, err := analyzePadding(g, map[string]bool{"s0": true})
	if err == nil || !strings.Contains(err.Error(), "node check") {
		t.Fatalf("want an error naming node check, got %v", err)
	}
}
