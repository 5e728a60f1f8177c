package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/fx"
)

// checkMeta compares each tensor a node produced with the TensorMeta the
// export recorded for it: the dtype must be equal, and every dim whose
// symbols are bound must have the recorded size. It runs in Check mode,
// so that a lowering that gets a dtype or shape wrong fails at the node
// that did it, not at a distant output (or never, when later ops hide it).
func (r *run) checkMeta(n *fx.Node, res []aten.Value) error {
	if negativeUniqueDim(n) {
		// PyTorch's fake kernel for unique_dim / unique_consecutive
		// (torch/_subclasses/fake_impls.py, _unique) builds the values'
		// shape as shape[:dim] + [nnz] + shape[dim+1:] without normalizing
		// dim, so a negative dim records a wrong rank (dim=-1 on [5, 5]
		// records [5, u0, 5, 5]) and counts of size shape[dim] of that
		// wrong shape. Eager PyTorch returns the right shapes; only the
		// dtypes can be checked against the record.
		return r.checkDTypes(n, res)
	}
	for i, o := range n.Outputs {
		if i >= len(res) {
			break
		}
		switch o.Kind {
		case fx.ArgTensor:
			if err := r.checkTensor(o.Name, res[i]); err != nil {
				return err
			}
		case fx.ArgTensors:
			for j, name := range o.Names {
				if name != "" && j < len(res[i].List) {
					if err := r.checkTensor(name, res[i].List[j]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
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
		return fmt.Errorf("check: %s has dtype %s, the export recorded %s", name, dt.Torch(), m.DType.Torch())
	}
	if len(shape) != m.Rank() {
		return fmt.Errorf("check: %s has shape %v, the export recorded %s", name, shape, m)
	}
	for d, dim := range m.Shape {
		want, err := dim.Eval(r.bindings)
		if err != nil {
			continue // an unbacked size (data-dependent) or an unbound symbol
		}
		if shape[d] != want {
			return fmt.Errorf("check: %s has shape %v, the export recorded %s (dim %d should be %d)", name, shape, m, d, want)
		}
	}
	return nil
}

// negativeUniqueDim reports a unique_dim or unique_consecutive node called
// with a negative dim, whose recorded output shapes are wrong (see checkMeta).
func negativeUniqueDim(n *fx.Node) bool {
	switch n.Target {
	case "aten::unique_dim.default", "aten::unique_consecutive.default":
	default:
		return false
	}
	a, ok := n.Input("dim")
	return ok && a.Kind == fx.ArgInt && a.Int < 0
}

// checkDTypes compares only the dtypes of a node's tensor results with the
// recorded ones.
func (r *run) checkDTypes(n *fx.Node, res []aten.Value) error {
	for i, o := range n.Outputs {
		if i >= len(res) || o.Kind != fx.ArgTensor {
			continue
		}
		m := r.p.Graph.Tensor(o.Name)
		if m == nil || res[i].Kind != aten.KTensor {
			continue
		}
		if dt := dtypeOf(res[i]); dt != m.DType {
			return fmt.Errorf("check: %s has dtype %s, the export recorded %s", o.Name, dt.Torch(), m.DType.Torch())
		}
	}
	return nil
}
