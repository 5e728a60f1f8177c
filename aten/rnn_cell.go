package aten

import "fmt"

// Single recurrent cells (nn.LSTMCell, nn.GRUCell, nn.RNNCell), as loops
// written in Python leave them in the export: decomposed into linear and
// pointwise ops, exactly the arithmetic of ATen's cells.

func init() {
	decomp("aten::lstm_cell", lowerLSTMCell)
	decomp("aten::gru_cell", lowerGRUCell)
	decomp("aten::rnn_tanh_cell", lowerSimpleCell("tanh"))
	decomp("aten::rnn_relu_cell", lowerSimpleCell("relu"))
}

func cellArgs(a *Args) cellWeights {
	return cellWeights{wih: a.Tensor("w_ih"), whh: a.Tensor("w_hh"), bih: a.OptTensor("b_ih"), bhh: a.OptTensor("b_hh")}
}

func lowerLSTMCell(c *LowerCtx, a *Args) ([]Value, error) {
	x, hx, w := a.Tensor("input"), a.Tensors("hx"), cellArgs(a)
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(hx) != 2 || hx[0] == nil || hx[1] == nil {
		return nil, fmt.Errorf("lstm_cell: hx must hold two tensors (h, c), has %d", len(hx))
	}
	r := rnnOps{c}
	h, cy := r.lstmStep(r.linear(x, w.wih, w.bih), hx[0], hx[1], w)
	return []Value{TensorValue(h), TensorValue(cy)}, nil
}

func lowerGRUCell(c *LowerCtx, a *Args) ([]Value, error) {
	x, h, w := a.Tensor("input"), a.Tensor("hx"), cellArgs(a)
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := rnnOps{c}
	return one(r.gruStep(r.linear(x, w.wih, w.bih), h, w)), nil
}

func lowerSimpleCell(act string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, h, w := a.Tensor("input"), a.Tensor("hx"), cellArgs(a)
		if a.Err() != nil {
			return nil, a.Err()
		}
		r := rnnOps{c}
		return one(r.simpleStep(r.linear(x, w.wih, w.bih), h, w, act)), nil
	}
}
