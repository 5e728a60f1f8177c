package main

import "fmt"

// fn describes one function: body computes it from register 0 (kept
// unchanged, for the final NaN blend) and returns the register holding
// the result.
type fn struct {
	name string
	body func(e *emitter) reg
}

var funcs = []fn{
	{"vneg", func(e *emitter) reg { e.xorc(0, "SignMask", 1); return 1 }},
	{"vabs", func(e *emitter) reg { e.andc(0, "AbsMask", 1); return 1 }},
	// IEEE square root, correctly rounded: the bits of the float64 root
	// rounded to float32 (a NaN's quieted payload too)
	{"vsqrt", func(e *emitter) reg { e.line("VSQRTPS", e.r(0), e.r(1)); return 1 }},
	{"vexp", expBody},
	{"vsilu", siluBody},
	{"vgelu", geluBody},
	{"vgelutanh", geluTanhBody},
	{"vgelutanhin", func(e *emitter) reg { return geluTanhInOf(e) }},
	{"vlogistic", logisticBody},
	{"vtanh", tanhBody},
	{"verf", erfBody},
	{"vhardswish", hardswishBody},
}

// binaryFuncs are the functions of two inputs, f(a, b): body finds a in
// register 11 and b in register 0 (kept unchanged, as for funcs).
var binaryFuncs = []fn{
	{"vgelutanhbwd", geluTanhBackwardBody},
	{"vgelubwd", geluBackwardBody},
}

// geluBackwardBody is the exact GELU's backward of the gradient g at x,
// each step rounding as the ops of PyTorch's decomposition do one by one
// (g·(cdf + x·pdf), cdf = (1 + erf(x·Rsqrt2))·0.5, pdf = exp((x·x)·-0.5)·KB;
// the first source of each op as the graph orders it, g that of the last).
func geluBackwardBody(e *emitter) reg {
	const g, t, c = 11, 10, 12
	e.mulc(0, "Rsqrt2", t) // x·Rsqrt2
	q := erfOf(e, t)       // erf, register 2 (1-9 scratch)
	e.addc(q, "One", c)    // erf + 1
	e.mulc(c, "Half", c)   // cdf
	e.mul(0, 0, t)         // x·x
	e.mulc(t, "NegHalf", t)
	p := expOf(e, t)       // exp, register 2 (1-6 scratch)
	e.mulc(p, "GeluKB", p) // pdf
	e.mul(0, p, p)         // x·pdf
	e.add(c, p, p)         // cdf + x·pdf
	e.mul(g, p, p)         // g·(...)
	return p
}

// expCore sets q and n with exp(a) = 2^n (1 + q), a clamped to [ExpLo,
// ExpHi]: n = round(a log2 e), r = a - n ln2 in two steps (the first
// exact), q = r + r^2 P(r). a is overwritten; p and r2 are scratch.
func expCore(e *emitter, a, q, n, p, r2 reg) {
	if p != q {
		panic("vmathgen: expCore's q is its p")
	}
	expCoreN(e, []expRegs{{a: a, q: q, n: n, r2: r2}})
}

// expRegs are one vector's registers in expCoreN.
type expRegs struct{ a, q, n, r2 reg }

// expCoreN is expCore for several vectors at once, each step emitted for
// each vector in turn (independent chains side by side: expPair).
func expCoreN(e *emitter, rs []expRegs) {
	each := func(f func(r expRegs)) {
		for _, r := range rs {
			f(r)
		}
	}
	each(func(r expRegs) { e.maxc(r.a, "ExpLo", r.a) })
	each(func(r expRegs) { e.minc(r.a, "ExpHi", r.a) })
	each(func(r expRegs) { e.mulc(r.a, "Log2e", r.n) })
	each(func(r expRegs) { e.roundEven(r.n, r.n) })
	each(func(r expRegs) { e.fnmac(r.n, "Ln2Hi", r.a) })
	each(func(r expRegs) { e.fnmac(r.n, "Ln2Lo", r.a) })
	each(func(r expRegs) { e.mul(r.a, r.a, r.r2) })
	p := polyNamed("ExpP")
	each(func(r expRegs) { e.bcast(fmt.Sprintf("ExpP%d", len(p)-1), r.q) })
	for k := len(p) - 2; k >= 0; k-- {
		each(func(r expRegs) { e.fmac(r.a, fmt.Sprintf("ExpP%d", k), r.q) })
	}
	each(func(r expRegs) { e.fma(r.r2, r.a, r.q) }) // q = q r^2 + r
}

// nanBlend returns x where x (register 0) is NaN, else y (into y).
func nanBlend(e *emitter, y reg) reg { return nanBlendOf(e, 0, y) }

// nanBlendOf returns x where x is NaN, else y (into y).
func nanBlendOf(e *emitter, x, y reg) reg {
	e.cmp(predUnord, x, x, 0)
	e.blend(0, x, y, y)
	return y
}

// exp(x) = 2^h (2^l (1 + q)): the scaling by 2^l (normal) rounds once,
// 2^h rounds again only below the normal range.
func expBody(e *emitter) reg { return expOf(e, 0) }

// expOf computes exp of register x (kept) into register 2, with
// registers 1-6 as scratch.
//
// A vector with a lane below ExpNorm (-Inf included) makes
// subnormals or zeros from normal numbers, and on Intel's cores each
// instruction that does takes a microcode assist: the masked softmax of a
// causal attention, half its lanes -Inf, ran exp at 4.3 ns an element
// against 0.4 (Ice Lake). Where every such lane lies below ExpLo (its
// result rounds to +0 on the full path), they are raised to ExpNorm,
// computed there and set to +0 after; a lane in [ExpLo, ExpNorm), whose
// result is subnormal, sends the vector down the full path (the same
// bits either way).
func expOf(e *emitter, x reg) reg {
	const a, q, n, r2, s1, s2 = 1, 2, 3, 4, 5, 6
	e.line("VMOVAPS", e.r(x), e.r(a))
	// small: the lanes below ExpNorm (a mask register, or AVX2's mask 1);
	// sub: those of them at ExpLo or above
	if e.wide {
		e.line("VCMPPS.BCST", fmt.Sprintf("$%d", predLT), "vmExpNorm<>(SB)", e.r(x), "K2")
		e.line("KORTESTW", "K2", "K2")
		e.line("JEQ", "expfull")
		e.line("VCMPPS.BCST", fmt.Sprintf("$%d", predGE), "vmExpLo<>(SB)", e.r(x), "K2", "K3")
		e.line("KORTESTW", "K3", "K3")
		e.line("JEQ", "expzero")
		e.line("KXORW", "K2", "K2", "K2") // a subnormal result: the full path, nothing zeroed
	} else {
		const small, sub = 1, 2
		e.cmpc(predLT, x, "ExpNorm", small)
		e.line("VMOVMSKPS", e.m(small), "R8")
		e.line("TESTL", "R8", "R8")
		e.line("JEQ", "expfull")
		e.cmpc(predGE, x, "ExpLo", sub)
		e.line("VANDPS", e.m(small), e.m(sub), e.m(sub))
		e.line("VMOVMSKPS", e.m(sub), "R8")
		e.line("TESTL", "R8", "R8")
		e.line("JEQ", "expzero")
		e.line("VXORPS", e.m(small), e.m(small), e.m(small))
	}
	e.line("JMP", "expfull")
	fmt.Fprintln(e.w, "expzero:")
	e.maxc(a, "ExpNorm", a)
	fmt.Fprintln(e.w, "expfull:")
	expCore(e, a, q, n, q, r2)
	e.pow2Split(n, s1, s2)
	e.fma(s2, s2, q) // q = q s2 + s2
	e.mul(q, s1, q)
	// the lanes below ExpLo: +0
	if e.wide {
		e.line("VXORPS", e.r(q), e.r(q), "K2", e.r(q))
	} else {
		e.line("VANDNPS", e.r(q), e.m(1), e.r(q))
	}
	return nanBlendOf(e, x, q)
}

// silu(x) = x / (1 + exp(-x)), each step rounding as the ops do one by
// one (negate, exp, add, divide; x the divide's first source): the fused
// loops run aten's SiLU chain as this one loop, with the same bits.
func siluBody(e *emitter) reg {
	const neg = 10
	e.xorc(0, "SignMask", neg)
	q := expOf(e, neg)
	e.addc(q, "One", q)
	e.div(0, q, q)
	return q
}

// logistic(x) = num / (1 + e) with e = exp(-|x|) = s (1 + q) and num = 1
// for x >= 0, e for x < 0; 1 + e and e each round once (fma).
func logisticBody(e *emitter) reg {
	const a, q, n, r2, s, t, num = 1, 2, 3, 4, 5, 6, 7
	e.orc(0, "SignMask", a) // -|x|
	expCore(e, a, q, n, q, r2)
	e.pow2(n, s, t)
	e.addc(s, "One", t)
	e.line("VMOVAPS", e.r(q), e.r(n))
	e.fma(s, t, n) // n = q s + (1 + s): the denominator
	e.fma(s, s, q) // q = q s + s: e
	e.bcast("One", num)
	e.cmpc(predGE, 0, "Zero", 1)
	e.blend(1, num, q, num)
	e.div(num, n, num)
	return nanBlend(e, num)
}

// tanh(x) = sign(x) t(|x|): t(a) = a + a^3 P(a^2) for a < TanhCut, else
// 1 - 2/(1 + e) with e = exp(2 min(a, TanhMax)) = s (1 + q), 1 + e
// rounding once.
func tanhBody(e *emitter) reg { return tanhOf(e, 0) }

// tanhOf computes tanh of register x (kept) into register 2, with
// registers 1-8 as scratch.
func tanhOf(e *emitter, x reg) reg {
	const a, q, n, r2, s, t, small, x2 = 1, 2, 3, 4, 5, 6, 7, 8
	e.andc(x, "AbsMask", a)
	e.mul(a, a, x2)
	e.horner("TanhP", x2, small)
	e.mul(x2, a, x2) // a^3
	e.fma(x2, a, small)
	e.minc(a, "TanhMax", t)
	e.add(t, t, t)
	expCore(e, t, q, n, q, r2)
	e.pow2(n, s, t)
	e.addc(s, "One", t)
	e.fma(s, t, q) // q = q s + (1 + s)
	e.bcast("Two", t)
	e.div(t, q, t)
	e.bcast("One", q)
	e.sub(q, t, q)
	e.cmpc(predLT, a, "TanhCut", 1)
	e.blend(1, small, q, q)
	e.andc(x, "SignMask", t)
	e.or(q, t, q)
	return nanBlendOf(e, x, q)
}

// erf(x) = sign(x) f(|x|): f(a) = a P(a^2) for a < ErfCut, else 1 - E
// with E = erfc(a) = exp(-a^2) R(1/a) (a at most ErfMax); exp(-a^2) =
// s (1 + q) and E = s R + s R q rounds once.
func erfBody(e *emitter) reg { return erfOf(e, 0) }

// erfOf computes erf of register x (kept) into register 2, with
// registers 1-9 as scratch.
func erfOf(e *emitter, x reg) reg {
	const a, q, n, r2, s, t, small, x2, rr = 1, 2, 3, 4, 5, 6, 7, 8, 9
	e.andc(x, "AbsMask", a)
	e.mul(a, a, x2)
	e.horner("ErfP", x2, small)
	e.mul(small, a, small)
	e.minc(a, "ErfMax", x2)
	e.bcast("One", t)
	e.div(t, x2, t) // 1/a
	e.horner("ErfcR", t, rr)
	e.mul(x2, x2, x2)
	e.orc(x2, "SignMask", x2) // -a^2
	expCore(e, x2, q, n, q, r2)
	e.pow2(n, s, t)
	e.mul(s, rr, s)
	e.fma(s, s, q) // q = q sR + sR
	e.bcast("One", t)
	e.sub(t, q, q)
	e.cmpc(predLT, a, "ErfCut", 1)
	e.blend(1, small, q, q)
	e.andc(x, "SignMask", t)
	e.or(q, t, q)
	return nanBlendOf(e, x, q)
}

// gelu(x) = (x * 0.5) * (1 + erf(x * Rsqrt2)), each step rounding as the
// ops of aten's exact GELU do one by one (x the first source of both
// multiplies by constants, x * 0.5 the first of the last).
func geluBody(e *emitter) reg {
	const t, h = 10, 11
	e.mulc(0, "Rsqrt2", t)
	q := erfOf(e, t)
	e.addc(q, "One", q)
	e.mulc(0, "Half", h)
	e.mul(h, q, q)
	return q
}

// hardswish(x) = x · min(max(x + 3, 0), 6) / 6, each step rounding as
// the ops do one by one (add, the clamp's maximum and minimum, multiply,
// divide): aten's decomposition, which the fused loops run as this one
// loop. Only a NaN x makes a NaN (the blend keeps it).
func hardswishBody(e *emitter) reg {
	const t, six = 1, 2
	e.addc(0, "Three", t)
	e.maxc(t, "Zero", t)
	e.minc(t, "Six", t)
	e.mul(0, t, t)
	e.bcast("Six", six)
	e.div(t, six, t)
	return nanBlend(e, t)
}

// geluTanhInOf computes tanh(((x + (x·x)·x · K1)) · K2) into register 2,
// each step rounding as the ops of the tanh-approximate GELU do one by
// one (x·x, then ·x, ·K1, x +, ·K2, tanh; registers 9 and 10 hold the
// steps, 1-8 tanh's scratch): the chain of a training graph, whose tanh
// is saved for the backward.
func geluTanhInOf(e *emitter) reg {
	const c, t = 9, 10
	e.mul(0, 0, c)
	e.mul(c, 0, c)
	e.mulc(c, "GeluK1", c)
	e.add(0, c, t)
	e.mulc(t, "GeluK2", t)
	return tanhOf(e, t)
}

// geluTanhBody is the tanh-approximate GELU, (x · 0.5) · (tanh(...) + 1)
// with the inner chain of geluTanhInOf, each step rounding as its op does.
func geluTanhBody(e *emitter) reg {
	const h = 11
	q := geluTanhInOf(e)
	e.addc(q, "One", q)
	e.mulc(0, "Half", h)
	e.mul(h, q, q)
	return q
}

// geluTanhBackwardBody is the tanh-approximate GELU's backward of the
// gradient g (register 11) and the input x (register 0), as AOTAutograd
// decomposes it with the forward's tanh t recomputed (geluTanhInOf):
//
//	(g·(x·0.5))·(1 - t·t)·K2 = w,  w + (w·K1)·((x·x)·3) + (g·(t + 1))·0.5
//
// each step a separate multiply, add or subtract rounding as its op does
// one by one (no fused multiply-adds), with the operands in the graph's
// order: where g and x are both NaN, the first source's NaN is the one
// x86 keeps, and g comes first wherever the two meet (g·(x·0.5),
// g·(t + 1), then the first operand down to the result), so the result
// is g's NaN as the ops give it.
func geluTanhBackwardBody(e *emitter) reg {
	const g, h, p, s, u = 11, 3, 4, 5, 6
	t := geluTanhInOf(e)   // t = tanh(...), register 2 (1-10 scratch)
	e.mulc(0, "Half", h)   // x·0.5
	e.mul(g, h, h)         // g·(x·0.5)
	e.addc(t, "One", p)    // t + 1
	e.mul(g, p, p)         // g·(t + 1)
	e.mul(t, t, s)         // t·t
	e.bcast("One", u)      // 1
	e.sub(u, s, u)         // 1 - t·t
	e.mul(h, u, h)         // (g·(x·0.5))·(1 - t·t)
	e.mulc(h, "GeluK2", h) // w
	e.mulc(h, "GeluK1", s) // w·K1
	e.mul(0, 0, u)         // x·x (again, as the graph has it)
	e.mulc(u, "Three", u)  // (x·x)·3
	e.mul(s, u, s)         // (w·K1)·((x·x)·3)
	e.add(h, s, h)         // w + (w·K1)·((x·x)·3)
	e.mulc(p, "Half", p)   // (g·(t + 1))·0.5
	e.add(h, p, h)         // the result
	return h
}
