package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Householder QR as LAPACK computes it (geqrf: reflectors H_j = I - τ v vᴴ
// with v_j = 1, β = -sign(Re α)·‖(α, x)‖, the reflectors below the
// diagonal of the result and τ beside it), and what builds on it:
// linalg_qr (reduced, complete, r), geqrf, householder_product / orgqr
// (Q = H_1 ⋯ H_k) and ormqr (op(Q)·C or C·op(Q)). Each is a while loop
// over the reflectors on the batch [B, m, n]; a step works on whole
// matrices through one-hot masks, so the program size does not grow
// with the matrix.

func init() {
	lower("aten::linalg_qr", lowerQR)
	lower("aten::geqrf", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		xb, batch, err := matBatch(c, "geqrf", x)
		if err != nil {
			return nil, err
		}
		s := c.Shape(xb)
		r, tau := geqrf(c, xb)
		return []Value{TensorValue(c.Reshape(r, withBatch(batch, s[1], s[2]))), TensorValue(c.Reshape(tau, withBatch(batch, min(s[1], s[2]))))}, nil
	})
	for _, name := range []string{"aten::linalg_householder_product", "aten::orgqr"} {
		lower(name, func(c *LowerCtx, a *Args) ([]Value, error) {
			v, tau := a.Tensor(a.Schema.Params[0].Name), a.Tensor(a.Schema.Params[1].Name)
			if a.Err() != nil {
				return nil, a.Err()
			}
			vb, batch, err := matBatch(c, "householder_product", v)
			if err != nil {
				return nil, err
			}
			s := c.Shape(vb)
			m, n := s[1], s[2]
			if n > m {
				return nil, c.Errorf("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to input.shape[-1]")
			}
			ts := c.Shape(tau)
			if len(ts) != len(batch)+1 || ts[len(ts)-1] > n || c.DType(tau) != c.DType(v) {
				return nil, c.Errorf("torch.linalg.householder_product: tau of shape %v does not match input of shape %v", ts, c.Shape(v))
			}
			tb := c.Reshape(tau, []int64{s[0], ts[len(ts)-1]})
			q := applyQ(c, vb, tb, identityLike(c, c.DType(vb), s[0], m, n), true, false)
			return one(c.Reshape(q, withBatch(batch, m, n))), nil
		})
	}
	lower("aten::ormqr", func(c *LowerCtx, a *Args) ([]Value, error) {
		v, tau, cm := a.Tensor("self"), a.Tensor("input2"), a.Tensor("input3")
		left, trans := a.Bool("left"), a.Bool("transpose")
		if a.Err() != nil {
			return nil, a.Err()
		}
		vs, cs := c.Shape(v), c.Shape(cm)
		if len(vs) < 2 || len(cs) != len(vs) || c.DType(v) != c.DType(cm) || c.DType(tau) != c.DType(v) {
			return nil, c.Errorf("torch.ormqr: input, tau and other must have the same dtype and input and other the same rank, got %v, %v and %v", vs, c.Shape(tau), cs)
		}
		batch := vs[:len(vs)-2]
		if !sameShape(batch, cs[:len(cs)-2]) {
			return nil, c.Errorf("torch.ormqr: batch dims of input %v and other %v differ", vs, cs)
		}
		B := numelOf(batch)
		m := vs[len(vs)-2]
		want := cs[len(cs)-2]
		if !left {
			want = cs[len(cs)-1]
		}
		if want != m {
			return nil, c.Errorf("torch.ormqr: other of shape %v does not match input of shape %v", cs, vs)
		}
		ts := c.Shape(tau)
		if len(ts) != len(vs)-1 || !sameShape(ts[:len(ts)-1], batch) || ts[len(ts)-1] > min(m, vs[len(vs)-1]) {
			return nil, c.Errorf("torch.ormqr: tau of shape %v does not match input of shape %v", ts, vs)
		}
		k := ts[len(ts)-1]
		vb := c.Reshape(v, []int64{B, m, vs[len(vs)-1]})
		cb := c.Reshape(cm, []int64{B, cs[len(cs)-2], cs[len(cs)-1]})
		out := applyQ(c, vb, c.Reshape(tau, []int64{B, k}), cb, left, trans)
		return one(c.Reshape(out, cs)), nil
	})
}

func identityLike(c *LowerCtx, dt dtype.DType, b, m, n int64) *stablehlo.Value {
	s := []int64{b, m, n}
	return c.Convert(c.Compare("EQ", c.Iota(dtype.I64, s, 1), c.Iota(dtype.I64, s, 2)), dt)
}

// conjIf conjugates complex values.
func conjIf(c *LowerCtx, v *stablehlo.Value) *stablehlo.Value {
	if c.DType(v).IsComplex() {
		re, im := c.Unary("real", v), c.Unary("imag", v)
		return c.Op1("stablehlo.complex", []*stablehlo.Value{re, c.Unary("negate", im)}, nil)
	}
	return v
}

// geqrf factors a [B, m, n]: the result holds R on and above the diagonal
// and the reflectors' tails below it; tau is [B, k].
func geqrf(c *LowerCtx, a *stablehlo.Value) (r, tau *stablehlo.Value) {
	s := c.Shape(a)
	B, m, n := s[0], s[1], s[2]
	k := min(m, n)
	dt := c.DType(a)
	rt := realPart(dt)
	tau0 := c.Splat(dt, []int64{B, k}, 0)
	if k == 0 {
		return a, tau0
	}
	out := c.whileLoop([]*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), a, tau0}, func(b *LowerCtx, v []*stablehlo.Value) *stablehlo.Value {
		return b.Compare("LT", v[0], b.SplatInt(dtype.I64, nil, k))
	}, func(b *LowerCtx, v []*stablehlo.Value) []*stablehlo.Value {
		j, A, T := v[0], v[1], v[2]
		full := []int64{B, m, n}
		bm := []int64{B, m}
		jF := b.BroadcastTo(j, full)
		colF := b.Iota(dtype.I64, full, 2)
		atCol := b.Compare("EQ", colF, jF)
		col := b.Reduce(b.Select(atCol, A, b.Splat(dt, full, 0)), []int64{2}, "add", 0) // [B, m]
		rows := b.Iota(dtype.I64, bm, 1)
		jm := b.BroadcastTo(j, bm)
		below, atJ := b.Compare("GT", rows, jm), b.Compare("EQ", rows, jm)
		zeroM := b.Splat(dt, bm, 0)
		alpha := b.Reduce(b.Select(atJ, col, zeroM), []int64{1}, "add", 0) // [B]
		tail := b.Select(below, col, zeroM)
		at := b.Unary("abs", tail)
		xnorm := b.Unary("sqrt", b.Reduce(b.Binary("multiply", at, at), []int64{1}, "add", 0))
		var ar, ai *stablehlo.Value
		if dt.IsComplex() {
			ar, ai = b.Unary("real", alpha), b.Unary("imag", alpha)
		} else {
			ar, ai = alpha, b.Splat(rt, []int64{B}, 0)
		}
		nrm := b.Unary("sqrt", b.Binary("add", b.Binary("add", b.Binary("multiply", ar, ar), b.Binary("multiply", ai, ai)), b.Binary("multiply", xnorm, xnorm)))
		// β = -sign(Re α)·‖·‖ (+ for Re α = 0).
		neg := b.Compare("LT", ar, b.Splat(rt, []int64{B}, 0))
		beta := b.Select(neg, nrm, b.Unary("negate", nrm))
		noop := b.Compare("EQ", xnorm, b.Splat(rt, []int64{B}, 0))
		if dt.IsComplex() {
			noop = b.Binary("and", noop, b.Compare("EQ", ai, b.Splat(rt, []int64{B}, 0)))
		}
		var tauV, betaC *stablehlo.Value
		if dt.IsComplex() {
			tr := b.Binary("divide", b.Binary("subtract", beta, ar), beta)
			ti := b.Binary("divide", b.Unary("negate", ai), beta)
			tauV = b.Op1("stablehlo.complex", []*stablehlo.Value{tr, ti}, nil)
			betaC = b.Op1("stablehlo.complex", []*stablehlo.Value{beta, b.Splat(rt, []int64{B}, 0)}, nil)
		} else {
			tauV = b.Binary("divide", b.Binary("subtract", beta, alpha), beta)
			betaC = beta
		}
		tauV = b.Select(noop, b.Splat(dt, []int64{B}, 0), tauV)
		scal := b.Binary("divide", b.Splat(dt, []int64{B}, 1), b.Binary("subtract", alpha, betaC))
		vt := b.Binary("multiply", tail, b.BroadcastInDim(scal, bm, []int64{0}))
		vt = b.Select(b.BroadcastInDim(noop, bm, []int64{0}), tail, vt)
		vec := b.Select(atJ, b.Splat(dt, bm, 1), vt) // v: 0 above j, 1 at j, the tail below
		// Apply Hᴴ = I - conj(τ) v vᴴ to the columns right of j.
		w := b.Reduce(b.Binary("multiply", b.BroadcastInDim(conjIf(b, vec), full, []int64{0, 1}), A), []int64{1}, "add", 0) // [B, n]
		ct := conjIf(b, tauV)
		upd := b.Binary("multiply", b.BroadcastInDim(b.Binary("multiply", vec, b.BroadcastInDim(ct, bm, []int64{0})), full, []int64{0, 1}),
			b.BroadcastInDim(w, full, []int64{0, 2}))
		right := b.Compare("GT", colF, jF)
		A2 := b.Select(right, b.Binary("subtract", A, upd), A)
		// Column j: β on the diagonal, v's tail below.
		newCol := b.Select(atJ, b.BroadcastInDim(b.Select(noop, alpha, betaC), bm, []int64{0}), b.Select(below, vt, col))
		A2 = b.Select(atCol, b.BroadcastInDim(newCol, full, []int64{0, 1}), A2)
		kIdx := b.Iota(dtype.I64, []int64{B, k}, 1)
		T2 := b.Select(b.Compare("EQ", kIdx, b.BroadcastTo(j, []int64{B, k})), b.BroadcastInDim(tauV, []int64{B, k}, []int64{0}), T)
		return []*stablehlo.Value{b.Binary("add", j, b.SplatInt(dtype.I64, nil, 1)), A2, T2}
	})
	return out[1], out[2]
}

// applyQ multiplies C by Q = H_1 ⋯ H_k (the reflectors in v [B, m, *]
// below the diagonal, tau [B, k]): Q·C (left) or C·Q, with Qᴴ if trans.
func applyQ(c *LowerCtx, v, tau, cm *stablehlo.Value, left, trans bool) *stablehlo.Value {
	vs := c.Shape(v)
	B, m := vs[0], vs[1]
	k := c.Shape(tau)[1]
	dt := c.DType(v)
	if k == 0 {
		return cm
	}
	// Q·C applies H_k first; Qᴴ·C applies H_1ᴴ first; C·Q applies H_1
	// first; C·Qᴴ applies H_kᴴ first.
	descending := left != trans
	start, step := int64(0), int64(1)
	if descending {
		start, step = k-1, -1
	}
	cs := c.Shape(cm)
	out := c.whileLoop([]*stablehlo.Value{c.SplatInt(dtype.I64, nil, start), cm}, func(b *LowerCtx, x []*stablehlo.Value) *stablehlo.Value {
		return b.Binary("and", b.Compare("GE", x[0], b.SplatInt(dtype.I64, nil, 0)), b.Compare("LT", x[0], b.SplatInt(dtype.I64, nil, k)))
	}, func(b *LowerCtx, x []*stablehlo.Value) []*stablehlo.Value {
		i, C := x[0], x[1]
		bm := []int64{B, m}
		vF := []int64{B, m, vs[2]}
		atCol := b.Compare("EQ", b.Iota(dtype.I64, vF, 2), b.BroadcastTo(i, vF))
		col := b.Reduce(b.Select(atCol, v, b.Splat(dt, vF, 0)), []int64{2}, "add", 0)
		rows := b.Iota(dtype.I64, bm, 1)
		im := b.BroadcastTo(i, bm)
		vec := b.Select(b.Compare("EQ", rows, im), b.Splat(dt, bm, 1), b.Select(b.Compare("GT", rows, im), col, b.Splat(dt, bm, 0)))
		kb := []int64{B, k}
		t := b.Reduce(b.Select(b.Compare("EQ", b.Iota(dtype.I64, kb, 1), b.BroadcastTo(i, kb)), tau, b.Splat(dt, kb, 0)), []int64{1}, "add", 0)
		if trans {
			t = conjIf(b, t)
		}
		var upd *stablehlo.Value
		if left {
			// C - τ v (vᴴ C)
			w := b.Reduce(b.Binary("multiply", b.BroadcastInDim(conjIf(b, vec), cs, []int64{0, 1}), C), []int64{1}, "add", 0) // [B, cols]
			tv := b.Binary("multiply", vec, b.BroadcastInDim(t, bm, []int64{0}))
			upd = b.Binary("multiply", b.BroadcastInDim(tv, cs, []int64{0, 1}), b.BroadcastInDim(w, cs, []int64{0, 2}))
		} else {
			// C - τ (C v) vᴴ
			w := b.Reduce(b.Binary("multiply", C, b.BroadcastInDim(vec, cs, []int64{0, 2})), []int64{2}, "add", 0) // [B, rows]
			tw := b.Binary("multiply", w, b.BroadcastInDim(t, []int64{B, cs[1]}, []int64{0}))
			upd = b.Binary("multiply", b.BroadcastInDim(tw, cs, []int64{0, 1}), b.BroadcastInDim(conjIf(b, vec), cs, []int64{0, 2}))
		}
		return []*stablehlo.Value{b.Binary("add", i, b.SplatInt(dtype.I64, nil, step)), b.Binary("subtract", C, upd)}
	})
	return out[1]
}

func lowerQR(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("A")
	mode := a.Str("mode")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if mode != "reduced" && mode != "complete" && mode != "r" {
		return nil, c.Errorf("qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', or 'complete'", mode)
	}
	xb, batch, err := matBatch(c, "linalg.qr", x)
	if err != nil {
		return nil, err
	}
	s := c.Shape(xb)
	B, m, n := s[0], s[1], s[2]
	k := min(m, n)
	dt := c.DType(xb)
	r, tau := geqrf(c, xb)
	rows := k
	if mode == "complete" {
		rows = m
	}
	R := triangle(c, sliceDim(c, r, 1, 0, rows, 1), false)
	var Q *stablehlo.Value
	switch mode {
	case "r":
		Q = c.Splat(dt, []int64{B, 0}, 0)
		return []Value{TensorValue(c.Reshape(Q, withBatch(batch, 0))), TensorValue(c.Reshape(R, withBatch(batch, rows, n)))}, nil
	case "complete":
		Q = applyQ(c, sliceDim(c, r, 2, 0, k, 1), tau, identityLike(c, dt, B, m, m), true, false)
	default:
		Q = applyQ(c, sliceDim(c, r, 2, 0, k, 1), tau, identityLike(c, dt, B, m, k), true, false)
	}
	return []Value{TensorValue(c.Reshape(Q, withBatch(batch, c.Shape(Q)[1:]...))), TensorValue(c.Reshape(R, withBatch(batch, rows, n)))}, nil
}
