package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Whole recurrent layers (nn.LSTM, nn.GRU, nn.RNN): aten::lstm.input,
// gru.input, rnn_tanh.input and rnn_relu.input, decomposed per layer and
// direction into one input projection over the whole sequence and the cell
// arithmetic of ATen unrolled over the (static) sequence length. Packed
// sequences (the .data overloads) and dropout between layers in training
// are not handled.

func init() {
	decomp("aten::lstm.input", lowerRNN("lstm", ""))
	decomp("aten::gru.input", lowerRNN("gru", ""))
	decomp("aten::rnn_tanh.input", lowerRNN("rnn", "tanh"))
	decomp("aten::rnn_relu.input", lowerRNN("rnn", "relu"))
}

type rnnSpec struct {
	kind, act           string
	layers, dirs        int
	hasBias, batchFirst bool
	params              []*stablehlo.Value
	stride              int // parameters per layer-direction
	proj                bool
}

func lowerRNN(kind, act string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		s := rnnSpec{kind: kind, act: act, layers: int(a.Int("num_layers")), hasBias: a.Bool("has_biases"),
			batchFirst: a.Bool("batch_first"), params: a.Tensors("params"), dirs: 1}
		if a.Bool("bidirectional") {
			s.dirs = 2
		}
		x := a.Tensor("input")
		var hx []*stablehlo.Value
		if kind == "lstm" {
			hx = a.Tensors("hx")
		} else {
			hx = []*stablehlo.Value{a.Tensor("hx")}
		}
		dropout, train := a.Float("dropout"), a.Bool("train")
		if a.Err() != nil {
			return nil, a.Err()
		}
		name := a.Schema.Name
		if train && dropout > 0 && s.layers > 1 {
			return nil, fmt.Errorf("%s: dropout between layers in training draws random numbers: %w", name, ErrUnsupported)
		}
		if err := s.check(c, x, hx); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out, finals := s.run(rnnOps{c}, x, hx)
		res := []Value{TensorValue(out)}
		for _, f := range finals {
			res = append(res, TensorValue(f))
		}
		return res, nil
	}
}

// check validates ranks and the parameter count, and finds the stride.
func (s *rnnSpec) check(c *LowerCtx, x *stablehlo.Value, hx []*stablehlo.Value) error {
	if c.Rank(x) != 3 {
		return fmt.Errorf("input must be 3-D, has shape %v", c.Shape(x))
	}
	if s.kind == "lstm" && len(hx) != 2 {
		return fmt.Errorf("hx must hold (h0, c0), has %d tensors", len(hx))
	}
	for _, h := range hx {
		if h == nil || c.Rank(h) != 3 {
			return fmt.Errorf("initial states must be 3-D tensors")
		}
	}
	if s.layers < 1 {
		return fmt.Errorf("num_layers %d", s.layers)
	}
	base := 2
	if s.hasBias {
		base = 4
	}
	n := len(s.params)
	switch {
	case n == s.layers*s.dirs*base:
		s.stride = base
	case s.kind == "lstm" && n == s.layers*s.dirs*(base+1):
		s.stride, s.proj = base+1, true
	default:
		return fmt.Errorf("%d parameters for %d layers × %d directions", n, s.layers, s.dirs)
	}
	for _, p := range s.params {
		if p == nil {
			return fmt.Errorf("a parameter is None")
		}
	}
	if c.Shape(x)[0] == 0 || c.Shape(x)[1] == 0 {
		return fmt.Errorf("empty sequence or batch (shape %v): %w", c.Shape(x), ErrUnsupported)
	}
	return nil
}

func (s *rnnSpec) weights(idx int) cellWeights {
	p := s.params[idx*s.stride : (idx+1)*s.stride]
	w := cellWeights{wih: p[0], whh: p[1]}
	if s.hasBias {
		w.bih, w.bhh = p[2], p[3]
	}
	if s.proj {
		w.whr = p[len(p)-1]
	}
	return w
}

// run returns the output sequence and the final states (h_n, and c_n for
// an LSTM), stacked over layers × directions.
func (s *rnnSpec) run(r rnnOps, x *stablehlo.Value, hx []*stablehlo.Value) (*stablehlo.Value, []*stablehlo.Value) {
	if s.batchFirst {
		x = r.swap01(x)
	}
	steps := int(r.c.Shape(x)[0])
	finals := make([][]*stablehlo.Value, len(hx))
	for layer := 0; layer < s.layers; layer++ {
		var outs []*stablehlo.Value
		for dir := 0; dir < s.dirs; dir++ {
			idx := layer*s.dirs + dir
			w := s.weights(idx)
			gi := r.linear(x, w.wih, w.bih)
			if layer == 0 && s.batchFirst && w.bih != nil {
				// ATen's linear on the transposed (non-contiguous) input is
				// matmul, then add_(bias): two roundings in half types.
				wt := r.call("aten::t", TensorValue(w.wih))
				gi = r.add(r.call("aten::matmul", TensorValue(x), TensorValue(wt)), w.bih)
			}
			state := make([]*stablehlo.Value, len(hx))
			for i, h := range hx {
				state[i] = r.sel(h, 0, int64(idx))
			}
			seq := make([]*stablehlo.Value, steps)
			for k := 0; k < steps; k++ {
				t := k
				if dir == 1 {
					t = steps - 1 - k
				}
				g := r.sel(gi, 0, int64(t))
				switch s.kind {
				case "lstm":
					state[0], state[1] = r.lstmStep(g, state[0], state[1], w)
				case "gru":
					state[0] = r.gruStep(g, state[0], w)
				default:
					state[0] = r.simpleStep(g, state[0], w, s.act)
				}
				seq[t] = state[0]
			}
			outs = append(outs, r.stack(seq, 0))
			for i := range state {
				finals[i] = append(finals[i], state[i])
			}
		}
		if len(outs) == 1 {
			x = outs[0]
		} else {
			x = r.cat(outs, 2)
		}
	}
	if s.batchFirst {
		x = r.swap01(x)
	}
	res := make([]*stablehlo.Value, len(finals))
	for i, f := range finals {
		res[i] = r.stack(f, 0)
	}
	return x, res
}
