package runtime

import (
	"github.com/torchtpu/torchtpu/fx"
)

// Where PyTorch's record of an op's output (the fake kernel's meta["val"])
// disagrees with what its eager kernel returns, the lowering follows the
// eager kernel and the op contract check (check.go) compares only the
// dtype of that output. Each entry names the ops, the outputs, when the
// record is wrong, and why; the list only shrinks as PyTorch fixes them.
type recordError struct {
	ops     []string
	outputs []int // nil: every output
	applies func(g *fx.Graph, n *fx.Node) bool
	cause   string
}

var recordErrors = []recordError{
	{
		ops: []string{"aten::unique_dim.default", "aten::unique_consecutive.default"},
		applies: func(g *fx.Graph, n *fx.Node) bool {
			a, ok := n.Input("dim")
			return ok && a.Kind == fx.ArgInt && a.Int < 0
		},
		cause: "the fake kernel (torch/_subclasses/fake_impls.py, _unique) builds the values' shape as " +
			"shape[:dim] + [nnz] + shape[dim+1:] without normalizing a negative dim: dim=-1 on [5, 5] records [5, u0, 5, 5]",
	},
	{
		ops:     []string{"aten::lstm.input"},
		outputs: []int{1, 2},
		applies: func(g *fx.Graph, n *fx.Node) bool { return recordedRank(g, n, 1) == 4 },
		cause:   "torch 2.6's fake kernel records the final hidden and cell states as 4-D [layers, 1, batch, hidden]; eager returns [layers, batch, hidden]",
	},
	{
		ops:     []string{"aten::multilabel_margin_loss.default", "aten::multi_margin_loss.default"},
		outputs: []int{0},
		applies: func(g *fx.Graph, n *fx.Node) bool { return inputRank(g, n, "self") == 1 },
		cause:   "for a 1-D input with reduction='none' the eager kernel returns a 0-d loss, the fake kernel records shape [1]",
	},
	{
		ops: []string{"aten::embedding_bag.default", "aten::embedding_bag.padding_idx",
			"aten::_embedding_bag.default", "aten::_embedding_bag_forward_only.default"},
		outputs: []int{2, 3},
		applies: func(g *fx.Graph, n *fx.Node) bool {
			a, ok := n.Input("include_last_offset")
			return ok && a.Kind == fx.ArgBool && a.Bool
		},
		cause: "with include_last_offset, the forward-only kernel (no grad) sizes bag_size (and in sum mode max_indices) " +
			"by the offsets, the fake kernel only bag_size, and the kernel with grad both by the bags, as the engine does: " +
			"only the backward reads them, and it exists only with grad",
	},
}

// wrongRecord returns the entry whose record error applies to n, if any.
func wrongRecord(g *fx.Graph, n *fx.Node) *recordError {
	for i := range recordErrors {
		e := &recordErrors[i]
		for _, op := range e.ops {
			if op == n.Target && e.applies(g, n) {
				return e
			}
		}
	}
	return nil
}

// recordedRank is the recorded rank of n's output i (-1 if unknown).
func recordedRank(g *fx.Graph, n *fx.Node, i int) int {
	if i >= len(n.Outputs) || n.Outputs[i].Kind != fx.ArgTensor {
		return -1
	}
	if m := g.Tensor(n.Outputs[i].Name); m != nil {
		return m.Rank()
	}
	return -1
}

// inputRank is the recorded rank of n's tensor argument name (-1 if unknown).
func inputRank(g *fx.Graph, n *fx.Node, name string) int {
	a, ok := n.Input(name)
	if !ok || a.Kind != fx.ArgTensor {
		return -1
	}
	if m := g.Tensor(a.Name); m != nil {
		return m.Rank()
	}
	return -1
}
