package aten

import "fmt"

// Loss functions nobody registered, composed from registered ops with
// ATen's formulas (Loss.cpp, LossNLL/BinaryCrossEntropy kernels):
// l1, smooth_l1, huber, binary_cross_entropy(_with_logits), kl_div,
// margin_ranking, hinge_embedding, triplet_margin, soft_margin,
// cosine_embedding.
// reduction: 0 none, 1 mean, 2 sum.

func init() {
	loss := func(name string, f func(l lossOps, a *Args) Value) {
		decomp(name, func(c *LowerCtx, a *Args) ([]Value, error) {
			l := lossOps{c}
			out := f(l, a)
			if a.Err() != nil {
				return nil, a.Err()
			}
			red := a.Int("reduction")
			switch red {
			case 0:
			case 1:
				out = l.op("aten::mean.default", out)
			case 2:
				out = l.op("aten::sum.default", out)
			default:
				return nil, fmt.Errorf("%s: reduction %d", name, red)
			}
			return []Value{out}, c.Err()
		})
	}
	loss("aten::l1_loss", func(l lossOps, a *Args) Value {
		return l.op("aten::abs", l.op("aten::sub.Tensor", a.Value("self"), a.Value("target")))
	})
	loss("aten::smooth_l1_loss", func(l lossOps, a *Args) Value {
		beta := a.Float("beta")
		z := l.op("aten::abs", l.op("aten::sub.Tensor", a.Value("self"), a.Value("target")))
		if beta == 0 {
			return z
		}
		quad := l.op("aten::div.Tensor", l.op("aten::mul.Tensor", l.op("aten::mul.Tensor", z, FloatValue(0.5)), z), FloatValue(beta))
		lin := l.op("aten::sub.Tensor", z, FloatValue(0.5*beta))
		return l.op("aten::where.self", l.op("aten::lt.Scalar", z, FloatValue(beta)), quad, lin)
	})
	loss("aten::huber_loss", func(l lossOps, a *Args) Value {
		d := a.Float("delta")
		z := l.op("aten::abs", l.op("aten::sub.Tensor", a.Value("self"), a.Value("target")))
		quad := l.op("aten::mul.Tensor", l.op("aten::mul.Tensor", z, FloatValue(0.5)), z)
		lin := l.op("aten::mul.Tensor", l.op("aten::sub.Tensor", z, FloatValue(0.5*d)), FloatValue(d))
		return l.op("aten::where.self", l.op("aten::lt.Scalar", z, FloatValue(d)), quad, lin)
	})
	loss("aten::binary_cross_entropy", func(l lossOps, a *Args) Value {
		x, t := a.Value("self"), a.Value("target")
		logx := l.op("aten::clamp_min", l.op("aten::log", x), FloatValue(-100))
		log1mx := l.op("aten::clamp_min", l.op("aten::log1p", l.op("aten::neg", x)), FloatValue(-100))
		out := l.op("aten::sub.Tensor", l.op("aten::mul.Tensor", l.op("aten::sub.Tensor", t, IntValue(1)), log1mx),
			l.op("aten::mul.Tensor", t, logx))
		return l.weighted(out, a.Value("weight"))
	})
	loss("aten::binary_cross_entropy_with_logits", func(l lossOps, a *Args) Value {
		x, t := a.Value("self"), a.Value("target")
		ls := l.op("aten::log_sigmoid", x)
		if pw := a.Value("pos_weight"); !pw.IsNone() {
			lw := l.op("aten::add.Tensor", l.op("aten::mul.Tensor", l.op("aten::sub.Tensor", pw, IntValue(1)), t), IntValue(1))
			ls = l.op("aten::mul.Tensor", ls, lw)
		}
		out := l.op("aten::sub.Tensor", l.op("aten::mul.Tensor", l.op("aten::rsub.Scalar", t, IntValue(1)), x), ls)
		return l.weighted(out, a.Value("weight"))
	})
	loss("aten::kl_div", func(l lossOps, a *Args) Value {
		x, t := a.Value("self"), a.Value("target")
		if a.Bool("log_target") {
			return l.op("aten::mul.Tensor", l.op("aten::exp", t), l.op("aten::sub.Tensor", t, x))
		}
		return l.op("aten::sub.Tensor", l.op("aten::xlogy.Tensor", t, t), l.op("aten::mul.Tensor", t, x))
	})
	loss("aten::margin_ranking_loss", func(l lossOps, a *Args) Value {
		d := l.op("aten::sub.Tensor", a.Value("input1"), a.Value("input2"))
		v := l.op("aten::add.Tensor", l.op("aten::mul.Tensor", l.op("aten::neg", a.Value("target")), d), FloatValue(a.Float("margin")))
		return l.op("aten::clamp_min", v, IntValue(0))
	})
	loss("aten::hinge_embedding_loss", func(l lossOps, a *Args) Value {
		x, t := a.Value("self"), a.Value("target")
		zeros := l.op("aten::zeros_like", x)
		mc := l.op("aten::clamp_min", l.op("aten::rsub.Scalar", x, FloatValue(a.Float("margin"))), IntValue(0))
		om := l.op("aten::where.self", l.op("aten::ne.Scalar", t, IntValue(1)), mc, zeros)
		os := l.op("aten::where.self", l.op("aten::ne.Scalar", t, IntValue(-1)), x, zeros)
		return l.op("aten::add.Tensor", om, os)
	})
	loss("aten::triplet_margin_loss", func(l lossOps, a *Args) Value {
		p, eps := FloatValue(a.Float("p")), FloatValue(a.Float("eps"))
		an, po, ne := a.Value("anchor"), a.Value("positive"), a.Value("negative")
		dp := l.op("aten::pairwise_distance", an, po, p, eps)
		dn := l.op("aten::pairwise_distance", an, ne, p, eps)
		if a.Bool("swap") {
			dn = l.op("aten::minimum", dn, l.op("aten::pairwise_distance", po, ne, p, eps))
		}
		v := l.op("aten::sub.Tensor", l.op("aten::add.Tensor", dp, FloatValue(a.Float("margin"))), dn)
		return l.op("aten::clamp_min", v, IntValue(0))
	})
	loss("aten::soft_margin_loss", func(l lossOps, a *Args) Value {
		p := l.op("aten::mul.Tensor", l.op("aten::neg", a.Value("self")), a.Value("target"))
		return l.op("aten::log1p", l.op("aten::exp", p))
	})
	loss("aten::cosine_embedding_loss", func(l lossOps, a *Args) Value {
		x1, x2, t := a.Value("input1"), a.Value("input2"), a.Value("target")
		if x1.Kind != KTensor || x1.T == nil {
			return x1
		}
		d := IntsValue([]int64{int64(l.c.Rank(x1.T) - 1)})
		sum := func(v Value) Value { return l.op("aten::sum.dim_IntList", v, d) }
		prod := sum(l.op("aten::mul.Tensor", x1, x2))
		m1 := l.op("aten::add.Tensor", sum(l.op("aten::mul.Tensor", x1, x1)), FloatValue(1e-12))
		m2 := l.op("aten::add.Tensor", sum(l.op("aten::mul.Tensor", x2, x2)), FloatValue(1e-12))
		cos := l.op("aten::div.Tensor", prod, l.op("aten::sqrt", l.op("aten::mul.Tensor", m1, m2)))
		zeros := l.op("aten::zeros_like", cos)
		pos := l.op("aten::rsub.Scalar", cos, IntValue(1))
		neg := l.op("aten::clamp_min", l.op("aten::sub.Tensor", cos, FloatValue(a.Float("margin"))), IntValue(0))
		op := l.op("aten::where.self", l.op("aten::eq.Scalar", t, IntValue(1)), pos, zeros)
		on := l.op("aten::where.self", l.op("aten::eq.Scalar", t, IntValue(-1)), neg, zeros)
		return l.op("aten::add.Tensor", op, on)
	})
}

type lossOps struct{ c *LowerCtx }

func (l lossOps) op(name string, xs ...Value) Value { return TensorValue(l.c.Call1(name, xs...)) }

func (l lossOps) weighted(v, w Value) Value {
	if w.IsNone() {
		return v
	}
	return l.op("aten::mul.Tensor", v, w)
}
