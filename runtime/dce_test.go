package runtime

import (
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func TestEliminateDeadOps(t *testing.T) {
	ty := stablehlo.Tensor(dtype.F32, 2)
	arg := &stablehlo.Value{Type: ty}
	mk := func(name string, in ...*stablehlo.Value) (*stablehlo.Op, *stablehlo.Value) {
		r := &stablehlo.Value{Type: ty}
		return &stablehlo.Op{Name: name, Operands: in, Results: []*stablehlo.Value{r}}, r
	}
	live1, a := mk("stablehlo.negate", arg)
	dead1, d := mk("stablehlo.abs", arg)
	dead2, _ := mk("stablehlo.add", d, a) // uses a live value, itself unused
	effect, _ := mk("stablehlo.custom_call", arg)
	live2, b := mk("stablehlo.exponential", a)
	ret := &stablehlo.Op{Name: "func.return", Operands: []*stablehlo.Value{b}}
	blk := &stablehlo.Block{Args: []*stablehlo.Value{arg}, Ops: []*stablehlo.Op{live1, dead1, dead2, effect, live2, ret}}
	if n := eliminateDeadOps(blk); n != 2 {
		t.Fatalf("removed %d ops, want 2", n)
	}
	want := []*stablehlo.Op{live1, effect, live2, ret}
	if len(blk.Ops) != len(want) {
		t.Fatalf("kept %d ops, want %d", len(blk.Ops), len(want))
	}
	for i, op := range want {
		if blk.Ops[i] != op {
			t.Errorf("op %d: got %s, want %s", i, blk.Ops[i].Name, op.Name)
		}
	}
}

// An eager op's module (EagerModule: single ops and fused blocks) keeps
// only what its results read: the transpose a lowering emitted for a
// product that then reads the weight in place is gone.
func TestEagerModuleDropsDeadOps(t *testing.T) {
	w := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 3, 2)}
	x := &stablehlo.Value{Type: stablehlo.Tensor(dtype.F32, 4, 2), Index: 1}
	tr := stablehlo.NewOp("stablehlo.transpose", []*stablehlo.Value{w}, []stablehlo.Type{stablehlo.Tensor(dtype.F32, 2, 3)}, nil)
	dot := stablehlo.NewOp("stablehlo.dot_general", []*stablehlo.Value{x, w}, []stablehlo.Type{stablehlo.Tensor(dtype.F32, 4, 3)}, nil)
	blk := &stablehlo.Block{Args: []*stablehlo.Value{w, x}, Ops: []*stablehlo.Op{tr, dot}}
	m := EagerModule(blk, dot.Results)
	ops := m.Funcs[0].Body.Blocks[0].Ops
	if len(ops) != 2 || ops[0] != dot || ops[1].Name != "func.return" {
		names := []string{}
		for _, op := range ops {
			names = append(names, op.Name)
		}
		t.Fatalf("module ops %v, want the product and the return", names)
	}
}
