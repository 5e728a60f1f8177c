package runtime

import (
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/fx"
)

// checkMeta is the op contract check, run on every node as it is lowered:
// each tensor the node produced must have the dtype the graph recorded
// for it (the export's meta["val"]) and, for every dim whose symbols are
// bound, the recorded size. A lowering that gets a dtype or shape wrong
// fails the compile at the node that did it, naming the op and the output,
// not at a distant output — or never, when later ops hide it, or when the
// value is saved for a backward that PyTorch runs (a graph output read by
// PyTorch's own kernel).
func (r *run) checkMeta(n *fx.Node, res []aten.Value) error {
	wrong := wrongRecord(r.p.Graph, n)
	for i, o := range n.Outputs {
		if i >= len(res) {
			break
		}
		if wrong != nil && (wrong.outputs == nil || slices.Contains(wrong.outputs, i)) {
			// PyTorch's record of this output is wrong (see records.go):
			// the lowering follows PyTorch's eager kernel, whose dtype
			// the record still gets right.
			if err := r.checkDType(o, res[i]); err != nil {
				return contractError(n, i, err)
			}
			continue
		}
		switch o.Kind {
		case fx.ArgTensor:
			if err := r.checkTensor(o.Name, res[i]); err != nil {
				return contractError(n, i, err)
			}
		case fx.ArgTensors:
			for j, name := range o.Names {
				if name != "" && j < len(res[i].List) {
					if err := r.checkTensor(name, res[i].List[j]); err != nil {
						return contractError(n, i, fmt.Errorf("element %d: %w", j, err))
					}
				}
			}
		}
	}
	return nil
}

// contractError names the node, its op and the output that broke the
// contract.
func contractError(n *fx.Node, out int, err error) error {
	return fmt.Errorf("op contract: node %s (%s) output %d: %w", n.Name, n.Target, out, err)
}

func (r *run) checkTensor(name string, v aten.Value) error {
	m := r.p.Graph.Tensor(name)
	if m == nil || v.Kind != aten.KTensor {
		return nil
	}
	var dt = dtypeOf(v)
	var shape []int64
	if v.Lit != nil {
		shape = v.Lit.Shape
	} else if t := v.TensorType(); t != nil {
		shape = t.Shape
	}
	if dt != m.DType {
		return fmt.Errorf("%s is lowered as %s%v, the graph records %s", name, dt.Torch(), shape, m)
	}
	if len(shape) != m.Rank() {
		return fmt.Errorf("%s is lowered as %s%v, the graph records %s", name, dt.Torch(), shape, m)
	}
	for d, dim := range m.Shape {
		want, err := dim.Eval(r.bindings)
		if err != nil {
			continue // an unbacked size (data-dependent) or an unbound symbol
		}
		if shape[d] != want {
			return fmt.Errorf("%s is lowered as %s%v, the graph records %s (dim %d should be %d)", name, dt.Torch(), shape, m, d, want)
		}
	}
	return nil
}

// checkDType compares the dtype of a tensor result with its record.
func (r *run) checkDType(o fx.Arg, v aten.Value) error {
	if o.Kind != fx.ArgTensor || v.Kind != aten.KTensor {
		return nil
	}
	m := r.p.Graph.Tensor(o.Name)
	if m == nil {
		return nil
	}
	if dt := dtypeOf(v); dt != m.DType {
		return fmt.Errorf("%s is lowered as %s, the graph records %s", o.Name, dt.Torch(), m.DType.Torch())
	}
	return nil
}
