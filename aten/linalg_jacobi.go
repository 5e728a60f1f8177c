package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Jacobi methods for the Hermitian eigenproblem and the SVD, in StableHLO
// that every device runs: sweeps of plane rotations in round-robin order,
// each round applying n/2 disjoint rotations at once as one unitary
// matrix J (A ← Jᴴ A J for eigh, G ← G J on the columns for the one-sided
// SVD), until the off-diagonal part (or the columns' mutual inner
// products) is negligible. The pairing schedule is static; the sweep and
// round loops are stablehlo.while loops. Results are sorted as LAPACK
// returns them (eigenvalues ascending, singular values descending); the
// phase of each vector is whatever the rotations give (callers that
// compare with LAPACK must normalize it).

const jacobiMaxSweeps = 40

// jacobiTol is the relative size below which off-diagonal entries count
// as zero.
func jacobiTol(rt dtype.DType) float64 {
	if rt == dtype.F64 {
		return 1e-15
	}
	return 1e-7
}

// roundRobin returns the pairs of each round for an even n: p[r][i] and
// q[r][i] (the circle method: index 0 fixed, the others rotating).
func roundRobin(n int) (p, q [][]int64) {
	others := make([]int64, n-1)
	for i := range others {
		others[i] = int64(i + 1)
	}
	for r := 0; r < n-1; r++ {
		ring := append([]int64{0}, others...)
		var pr, qr []int64
		for i := 0; i < n/2; i++ {
			a, b := ring[i], ring[n-1-i]
			if a > b {
				a, b = b, a
			}
			pr, qr = append(pr, a), append(qr, b)
		}
		p, q = append(p, pr), append(q, qr)
		others = append([]int64{others[len(others)-1]}, others[:len(others)-1]...)
	}
	return p, q
}

// jacobiRotation returns, per pair, c, s (real) and ω (the phase of the
// off-diagonal entry) that diagonalize [[a, b], [b̄, d]]: with W =
// diag(1, ω̄) and R = [[c, s], [-s, c]], (WR)ᴴ H (WR) is diagonal.
func jacobiRotation(b *LowerCtx, a, d, off *stablehlo.Value, dt dtype.DType) (cs, sn, om *stablehlo.Value) {
	rt := realPart(dt)
	shape := b.Shape(a)
	mag := b.Unary("abs", off)
	zero := b.Compare("EQ", mag, b.Splat(rt, shape, 0))
	safe := b.Select(zero, b.Splat(rt, shape, 1), mag)
	tau := b.Binary("divide", b.Binary("subtract", d, a), b.Binary("multiply", safe, b.Splat(rt, shape, 2)))
	sgn := b.Select(b.Compare("LT", tau, b.Splat(rt, shape, 0)), b.Splat(rt, shape, -1), b.Splat(rt, shape, 1))
	t := b.Binary("divide", sgn, b.Binary("add", b.Unary("abs", tau), b.Unary("sqrt", b.Binary("add", b.Splat(rt, shape, 1), b.Binary("multiply", tau, tau)))))
	t = b.Select(zero, b.Splat(rt, shape, 0), t)
	cs = b.Unary("rsqrt", b.Binary("add", b.Splat(rt, shape, 1), b.Binary("multiply", t, t)))
	sn = b.Binary("multiply", t, cs)
	// ω: the phase of the off-diagonal entry (its sign for real ones).
	om = b.Binary("divide", off, b.Convert(safe, dt))
	om = b.Select(zero, b.Splat(dt, shape, 1), om)
	return cs, sn, om
}

// rotationMatrix builds J [B, n, n] from the pairs' one-hot rows ep, eq
// [n/2, n] and per-pair c, s, ω [B, n/2]: J[p,p] = c, J[p,q] = s,
// J[q,p] = -s·ω̄, J[q,q] = c·ω̄.
func rotationMatrix(b *LowerCtx, ep, eq, cs, sn, om *stablehlo.Value, dt dtype.DType) *stablehlo.Value {
	s := b.Shape(cs)
	B, h := s[0], s[1]
	n := b.Shape(ep)[1]
	c, sv := b.Convert(cs, dt), b.Convert(sn, dt)
	w := conjIf(b, om)
	qp, qq := b.Binary("multiply", b.Unary("negate", sv), w), b.Binary("multiply", c, w)
	epd, eqd := b.Convert(ep, dt), b.Convert(eq, dt)
	three := []int64{B, h, n}
	term := func(rowOne, colOne, coef *stablehlo.Value) *stablehlo.Value {
		// Σ_i onehot_row[i]ᵀ · coef[i] · onehot_col[i]
		left := b.Binary("multiply", b.BroadcastInDim(rowOne, three, []int64{1, 2}), b.BroadcastInDim(coef, three, []int64{0, 1}))
		right := b.BroadcastInDim(colOne, three, []int64{1, 2})
		return dotGeneral(b, left, right, []int64{0}, []int64{0}, []int64{1}, []int64{1})
	}
	j := term(epd, epd, c)
	j = b.Binary("add", j, term(epd, eqd, sv))
	j = b.Binary("add", j, term(eqd, epd, qp))
	j = b.Binary("add", j, term(eqd, eqd, qq))
	return j
}

// pairOneHots returns the one-hot rows [n/2, n] of round r's p and q
// (r a 0-d int64), from the static schedule tables.
func pairOneHots(b *LowerCtx, pt, qt [][]int64, r *stablehlo.Value, n int64) (ep, eq *stablehlo.Value) {
	rounds := int64(len(pt))
	h := n / 2
	flat := func(t [][]int64) []int64 {
		var out []int64
		for _, row := range t {
			out = append(out, row...)
		}
		return out
	}
	pick := func(t [][]int64) *stablehlo.Value {
		tab := constI64(b, []int64{rounds, h}, flat(t))
		sel := b.Compare("EQ", b.Iota(dtype.I64, []int64{rounds, h}, 0), b.BroadcastTo(r, []int64{rounds, h}))
		idx := b.Reduce(b.Select(sel, tab, b.SplatInt(dtype.I64, []int64{rounds, h}, 0)), []int64{0}, "add", 0) // [h]
		return b.Compare("EQ", b.BroadcastInDim(idx, []int64{h, n}, []int64{0}), b.Iota(dtype.I64, []int64{h, n}, 1))
	}
	return pick(pt), pick(qt)
}

// jacobiEigh diagonalizes Hermitian a [B, n, n] (in a's dtype, which the
// caller widens): eigenvalues [B, n] ascending (real) and eigenvectors
// [B, n, n] in the columns.
func jacobiEigh(c *LowerCtx, a *stablehlo.Value) (vals, vecs *stablehlo.Value) {
	s := c.Shape(a)
	B, n := s[0], s[1]
	dt := c.DType(a)
	rt := realPart(dt)
	N := n + n%2
	if N != n {
		a = emitPad(c, a, c.Splat(dt, nil, 0), []int64{0, 0, 0}, []int64{0, 1, 1})
	}
	full := []int64{B, N, N}
	eye := identityLike(c, dt, B, N, N)
	if N >= 2 {
		pt, qt := roundRobin(int(N))
		rounds := int64(len(pt))
		offDiag := c.Compare("NE", c.Iota(dtype.I64, full, 1), c.Iota(dtype.I64, full, 2))
		off := func(b *LowerCtx, m *stablehlo.Value) *stablehlo.Value {
			am := b.Unary("abs", m)
			sq := b.Binary("multiply", am, am)
			o := b.Reduce(b.Select(offDiag, sq, b.Splat(rt, full, 0)), []int64{0, 1, 2}, "add", 0)
			t := b.Reduce(sq, []int64{0, 1, 2}, "add", 0)
			return b.Compare("GT", o, b.Binary("multiply", t, b.Splat(rt, nil, jacobiTol(rt)*jacobiTol(rt))))
		}
		out := c.whileLoop([]*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), a, eye}, func(b *LowerCtx, v []*stablehlo.Value) *stablehlo.Value {
			return b.Binary("and", b.Compare("LT", v[0], b.SplatInt(dtype.I64, nil, jacobiMaxSweeps)), off(b, v[1]))
		}, func(b *LowerCtx, v []*stablehlo.Value) []*stablehlo.Value {
			inner := b.whileLoop([]*stablehlo.Value{b.SplatInt(dtype.I64, nil, 0), v[1], v[2]}, func(bb *LowerCtx, w []*stablehlo.Value) *stablehlo.Value {
				return bb.Compare("LT", w[0], bb.SplatInt(dtype.I64, nil, rounds))
			}, func(bb *LowerCtx, w []*stablehlo.Value) []*stablehlo.Value {
				ep, eq := pairOneHots(bb, pt, qt, w[0], N)
				A := w[1]
				h := N / 2
				three := []int64{B, h, N}
				// Row p of A: ep·A; entries a_pp, a_pq, a_qq.
				epd, eqd := bb.Convert(ep, dt), bb.Convert(eq, dt)
				rowsP := dotGeneral(bb, bb.BroadcastTo(epd, three), A, []int64{0}, []int64{0}, []int64{2}, []int64{1})
				rowsQ := dotGeneral(bb, bb.BroadcastTo(eqd, three), A, []int64{0}, []int64{0}, []int64{2}, []int64{1})
				pick := func(rows, one *stablehlo.Value) *stablehlo.Value {
					return bb.Reduce(bb.Binary("multiply", rows, bb.BroadcastTo(one, three)), []int64{2}, "add", 0)
				}
				app, apq, aqq := pick(rowsP, epd), pick(rowsP, eqd), pick(rowsQ, eqd)
				re := func(v *stablehlo.Value) *stablehlo.Value {
					if dt.IsComplex() {
						return bb.Unary("real", v)
					}
					return v
				}
				cs, sn, om := jacobiRotation(bb, re(app), re(aqq), apq, dt)
				J := rotationMatrix(bb, ep, eq, cs, sn, om, dt)
				Jh := conjIf(bb, emitTranspose(bb, J, []int64{0, 2, 1}))
				A = dotGeneral(bb, dotGeneral(bb, Jh, A, []int64{0}, []int64{0}, []int64{2}, []int64{1}), J, []int64{0}, []int64{0}, []int64{2}, []int64{1})
				V := dotGeneral(bb, w[2], J, []int64{0}, []int64{0}, []int64{2}, []int64{1})
				return []*stablehlo.Value{bb.Binary("add", w[0], bb.SplatInt(dtype.I64, nil, 1)), A, V}
			})
			return []*stablehlo.Value{b.Binary("add", v[0], b.SplatInt(dtype.I64, nil, 1)), inner[1], inner[2]}
		})
		a, eye = out[1], out[2]
	}
	d := diagonalOf(c, a, 0, 1, 2) // [B, N]
	if dt.IsComplex() {
		d = c.Unary("real", d)
	}
	if N != n {
		// The padding's eigenvalue sorts last and is dropped.
		isPad := c.Compare("EQ", c.Iota(dtype.I64, []int64{B, N}, 1), c.SplatInt(dtype.I64, []int64{B, N}, n))
		d = c.Select(isPad, c.Splat(rt, []int64{B, N}, math.Inf(1)), d)
	}
	sv, si := sortAlong(c, d, 1, false)
	vecs = gatherAlong(c, eye, 2, c.BroadcastInDim(si, full, []int64{0, 2}))
	return sliceDim(c, sv, 1, 0, n, 1), emitSlice(c, vecs, []int64{0, 0, 0}, []int64{B, n, n}, nil)
}

// jacobiSVD computes the thin SVD of a [B, m, n] with m ≥ n by one-sided
// Jacobi: U [B, m, n], S [B, n] descending (real), V [B, n, n].
func jacobiSVD(c *LowerCtx, a *stablehlo.Value) (u, sv, v *stablehlo.Value) {
	s := c.Shape(a)
	B, m, n := s[0], s[1], s[2]
	dt := c.DType(a)
	rt := realPart(dt)
	N := n + n%2
	if N != n {
		a = emitPad(c, a, c.Splat(dt, nil, 0), []int64{0, 0, 0}, []int64{0, 0, 1})
	}
	V := identityLike(c, dt, B, N, N)
	if N >= 2 {
		pt, qt := roundRobin(int(N))
		rounds := int64(len(pt))
		gram := func(b *LowerCtx, g *stablehlo.Value) *stablehlo.Value {
			return dotGeneral(b, conjIf(b, g), g, []int64{0}, []int64{0}, []int64{1}, []int64{1}) // [B, N, N]
		}
		nn := []int64{B, N, N}
		offDiag := c.Compare("NE", c.Iota(dtype.I64, nn, 1), c.Iota(dtype.I64, nn, 2))
		notDone := func(b *LowerCtx, g *stablehlo.Value) *stablehlo.Value {
			gm := gram(b, g)
			ag := b.Unary("abs", gm)
			d := diagonalOf(b, ag, 0, 1, 2) // [B, N]
			den := b.Unary("sqrt", b.Binary("multiply", b.BroadcastInDim(d, nn, []int64{0, 1}), b.BroadcastInDim(d, nn, []int64{0, 2})))
			big := b.Compare("GT", ag, b.Binary("multiply", den, b.Splat(rt, nn, jacobiTol(rt))))
			return b.Reduce(b.Convert(b.Binary("and", big, offDiag), dtype.I32), []int64{0, 1, 2}, "maximum", 0)
		}
		out := c.whileLoop([]*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), a, V}, func(b *LowerCtx, w []*stablehlo.Value) *stablehlo.Value {
			return b.Binary("and", b.Compare("LT", w[0], b.SplatInt(dtype.I64, nil, jacobiMaxSweeps)),
				b.Compare("GT", notDone(b, w[1]), b.SplatInt(dtype.I32, nil, 0)))
		}, func(b *LowerCtx, w []*stablehlo.Value) []*stablehlo.Value {
			inner := b.whileLoop([]*stablehlo.Value{b.SplatInt(dtype.I64, nil, 0), w[1], w[2]}, func(bb *LowerCtx, x []*stablehlo.Value) *stablehlo.Value {
				return bb.Compare("LT", x[0], bb.SplatInt(dtype.I64, nil, rounds))
			}, func(bb *LowerCtx, x []*stablehlo.Value) []*stablehlo.Value {
				ep, eq := pairOneHots(bb, pt, qt, x[0], N)
				G := x[1]
				h := N / 2
				epd, eqd := bb.Convert(ep, dt), bb.Convert(eq, dt)
				// The pairs' columns: G·epᵀ [B, m, h].
				colsP := dotGeneral(bb, G, bb.BroadcastTo(epd, []int64{B, h, N}), []int64{0}, []int64{0}, []int64{2}, []int64{2})
				colsQ := dotGeneral(bb, G, bb.BroadcastTo(eqd, []int64{B, h, N}), []int64{0}, []int64{0}, []int64{2}, []int64{2})
				dotc := func(x, y *stablehlo.Value) *stablehlo.Value {
					return bb.Reduce(bb.Binary("multiply", conjIf(bb, x), y), []int64{1}, "add", 0) // [B, h]
				}
				re := func(v *stablehlo.Value) *stablehlo.Value {
					if dt.IsComplex() {
						return bb.Unary("real", v)
					}
					return v
				}
				alpha, beta, gamma := re(dotc(colsP, colsP)), re(dotc(colsQ, colsQ)), dotc(colsP, colsQ)
				cs, sn, om := jacobiRotation(bb, alpha, beta, gamma, dt)
				J := rotationMatrix(bb, ep, eq, cs, sn, om, dt)
				G = dotGeneral(bb, G, J, []int64{0}, []int64{0}, []int64{2}, []int64{1})
				Vn := dotGeneral(bb, x[2], J, []int64{0}, []int64{0}, []int64{2}, []int64{1})
				return []*stablehlo.Value{bb.Binary("add", x[0], bb.SplatInt(dtype.I64, nil, 1)), G, Vn}
			})
			return []*stablehlo.Value{b.Binary("add", w[0], b.SplatInt(dtype.I64, nil, 1)), inner[1], inner[2]}
		})
		a, V = out[1], out[2]
	}
	ag := c.Unary("abs", a)
	norms := c.Unary("sqrt", c.Reduce(c.Binary("multiply", ag, ag), []int64{1}, "add", 0)) // [B, N]
	key := c.Unary("negate", norms)
	if N != n {
		isPad := c.Compare("EQ", c.Iota(dtype.I64, []int64{B, N}, 1), c.SplatInt(dtype.I64, []int64{B, N}, n))
		key = c.Select(isPad, c.Splat(rt, []int64{B, N}, math.Inf(1)), key)
	}
	_, si := sortAlong(c, key, 1, false)
	sorted := gatherAlong(c, norms, 1, si)
	ga := gatherAlong(c, a, 2, c.BroadcastInDim(si, []int64{B, m, N}, []int64{0, 2}))
	vs := gatherAlong(c, V, 2, c.BroadcastInDim(si, []int64{B, N, N}, []int64{0, 2}))
	sv = sliceDim(c, sorted, 1, 0, n, 1)
	ga = sliceDim(c, ga, 2, 0, n, 1)
	sb := c.BroadcastInDim(sv, []int64{B, m, n}, []int64{0, 2})
	zero := c.Compare("EQ", sb, c.Splat(rt, []int64{B, m, n}, 0))
	u = c.Binary("divide", ga, c.Convert(c.Select(zero, c.Splat(rt, []int64{B, m, n}, 1), sb), dt))
	v = emitSlice(c, vs, []int64{0, 0, 0}, []int64{B, n, n}, nil)
	return u, sv, v
}
