package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Building blocks of the recurrent decompositions (rnn.go, rnn_cell.go):
// each step calls the registered aten op, so dtype promotion and half-type
// rounding are PyTorch's, op by op, as ATen's own cells compute them.

type rnnOps struct{ c *LowerCtx }

func (r rnnOps) call(name string, xs ...Value) *stablehlo.Value { return r.c.Call1(name, xs...) }

func optTensor(v *stablehlo.Value) Value {
	if v == nil {
		return None()
	}
	return TensorValue(v)
}

// linear is x @ wᵀ + b (b may be nil).
func (r rnnOps) linear(x, w, b *stablehlo.Value) *stablehlo.Value {
	return r.call("aten::linear", TensorValue(x), TensorValue(w), optTensor(b))
}

func (r rnnOps) add(a, b *stablehlo.Value) *stablehlo.Value {
	return r.call("aten::add.Tensor", TensorValue(a), TensorValue(b))
}

func (r rnnOps) sub(a, b *stablehlo.Value) *stablehlo.Value {
	return r.call("aten::sub.Tensor", TensorValue(a), TensorValue(b))
}

func (r rnnOps) mul(a, b *stablehlo.Value) *stablehlo.Value {
	return r.call("aten::mul.Tensor", TensorValue(a), TensorValue(b))
}

func (r rnnOps) act(name string, x *stablehlo.Value) *stablehlo.Value {
	return r.call("aten::"+name, TensorValue(x))
}

// chunk splits x's last dim into n equal parts.
func (r rnnOps) chunk(x *stablehlo.Value, n int) []*stablehlo.Value {
	shape := r.c.Shape(x)
	d := len(shape) - 1
	size := shape[d] / int64(n)
	out := make([]*stablehlo.Value, n)
	for i := range out {
		out[i] = r.call("aten::slice.Tensor", TensorValue(x), IntValue(int64(d)), IntValue(int64(i)*size),
			IntValue(int64(i+1)*size), IntValue(1))
	}
	return out
}

func (r rnnOps) sel(x *stablehlo.Value, dim, i int64) *stablehlo.Value {
	return r.call("aten::select.int", TensorValue(x), IntValue(dim), IntValue(i))
}

func (r rnnOps) stack(xs []*stablehlo.Value, dim int64) *stablehlo.Value {
	return r.call("aten::stack", TensorsValue(xs), IntValue(dim))
}

func (r rnnOps) cat(xs []*stablehlo.Value, dim int64) *stablehlo.Value {
	return r.call("aten::cat", TensorsValue(xs), IntValue(dim))
}

func (r rnnOps) swap01(x *stablehlo.Value) *stablehlo.Value {
	return r.call("aten::transpose.int", TensorValue(x), IntValue(0), IntValue(1))
}

// cellWeights are one layer-direction's parameters; the biases and the
// LSTM projection may be nil.
type cellWeights struct{ wih, whh, bih, bhh, whr *stablehlo.Value }

// lstmStep is ATen's LSTMCell: gates = h·W_hhᵀ + b_hh + gi (gi the input
// projection), chunked as input, forget, cell, output.
func (r rnnOps) lstmStep(gi, h, c *stablehlo.Value, w cellWeights) (*stablehlo.Value, *stablehlo.Value) {
	g := r.chunk(r.add(r.linear(h, w.whh, w.bhh), gi), 4)
	in, forget, cell, out := r.act("sigmoid", g[0]), r.act("sigmoid", g[1]), r.act("tanh", g[2]), r.act("sigmoid", g[3])
	cy := r.add(r.mul(forget, c), r.mul(in, cell))
	hy := r.mul(out, r.act("tanh", cy))
	if w.whr != nil {
		hy = r.linear(hy, w.whr, nil)
	}
	return hy, cy
}

// gruStep is ATen's GRUCell: n = tanh(gi_n + r·gh_n), h' = (h − n)·z + n.
func (r rnnOps) gruStep(gi, h *stablehlo.Value, w cellWeights) *stablehlo.Value {
	ig := r.chunk(gi, 3)
	hg := r.chunk(r.linear(h, w.whh, w.bhh), 3)
	reset := r.act("sigmoid", r.add(ig[0], hg[0]))
	update := r.act("sigmoid", r.add(ig[1], hg[1]))
	n := r.act("tanh", r.add(ig[2], r.mul(hg[2], reset)))
	return r.add(r.mul(r.sub(h, n), update), n)
}

// simpleStep is ATen's RNN cell: act(h·W_hhᵀ + b_hh + gi).
func (r rnnOps) simpleStep(gi, h *stablehlo.Value, w cellWeights, act string) *stablehlo.Value {
	return r.act(act, r.add(r.linear(h, w.whh, w.bhh), gi))
}
