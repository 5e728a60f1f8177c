package main

import "fmt"

// The AVX2 loops of exp and SiLU take two vectors an iteration. One
// vector's exp is a chain of some 60 cycles of dependent steps on Zen 2,
// and the out-of-order window held too few iterations to overlap them:
// exp ran at 18 cycles a vector, SiLU at 22 (EfficientNet spent a sixth
// of its time in SiLU). Two vectors side by side, instruction by
// instruction, give the core two independent chains; AVX2's sixteen
// registers hold both (value registers 0-5 and 6-11, the small-lane masks
// in Y14 and Y15, Y12 and Y13 scratch). The steps and their rounding are
// the one-vector loop's, so are the results, bit for bit; a row's last
// odd vector runs through that loop.

// pairFuncs are the functions with a two-vector AVX2 loop: body computes
// both vectors (x in registers 0 and 6) and returns their results'
// registers.
var pairFuncs = map[string]func(e *emitter) [2]reg{
	"vexp":  func(e *emitter) [2]reg { return expPair(e, [2]reg{0, 6}, [2]reg{1, 7}) },
	"vsilu": siluPair,
}

// siluPair is siluBody for two vectors.
func siluPair(e *emitter) [2]reg {
	neg := [2]reg{1, 7}
	for i := range 2 {
		e.xorc(6*reg(i), "SignMask", neg[i])
	}
	q := expPair(e, neg, [2]reg{2, 8})
	for i := range 2 {
		e.addc(q[i], "One", q[i])
	}
	for i := range 2 {
		e.div(6*reg(i), q[i], q[i])
	}
	return q
}

// expPair is expOf for two vectors: x (kept) in x[i], scratch from
// base[i] on (four registers each); returns the results' registers.
// Where either vector has a lane whose result is subnormal, both take the
// full path with nothing zeroed (the same bits as the shortcut, which
// only spares Intel's cores their microcode assists).
func expPair(e *emitter, x, base [2]reg) [2]reg {
	var a, q, n, r2 [2]reg
	for i := range 2 {
		a[i], q[i], n[i], r2[i] = base[i], base[i]+1, base[i]+2, base[i]+3
	}
	// the small lanes' masks: masks 1 and 2 (Y14, Y15); mask 0 (Y13) and
	// Y12 scratch
	smallM := [2]mask{1, 2}
	small := [2]string{e.m(smallM[0]), e.m(smallM[1])}
	both := func(f func(i int)) { f(0); f(1) }
	both(func(i int) { e.line("VMOVAPS", e.r(x[i]), e.r(a[i])) })
	both(func(i int) { e.cmpc(predLT, x[i], "ExpNorm", smallM[i]) })
	e.line("VORPS", small[1], small[0], "Y13")
	e.line("VMOVMSKPS", "Y13", "R8")
	e.line("TESTL", "R8", "R8")
	e.line("JEQ", "pexpfull")
	e.cmpc(predGE, x[0], "ExpLo", 0)
	e.line("VANDPS", small[0], "Y13", "Y13")
	e.line("VCMPPS", fmt.Sprintf("$%d", predGE), "vmExpLo<>(SB)", e.r(x[1]), "Y12")
	e.line("VANDPS", small[1], "Y12", "Y12")
	e.line("VORPS", "Y12", "Y13", "Y13")
	e.line("VMOVMSKPS", "Y13", "R8")
	e.line("TESTL", "R8", "R8")
	e.line("JEQ", "pexpzero")
	both(func(i int) { e.line("VXORPS", small[i], small[i], small[i]) })
	e.line("JMP", "pexpfull")
	fmt.Fprintln(e.w, "pexpzero:")
	both(func(i int) { e.maxc(a[i], "ExpNorm", a[i]) })
	fmt.Fprintln(e.w, "pexpfull:")
	expCoreN(e, []expRegs{{a[0], q[0], n[0], r2[0]}, {a[1], q[1], n[1], r2[1]}})
	// 2^h in n, 2^l in r2 (pow2Split reads n first)
	both(func(i int) { e.pow2Split(n[i], n[i], r2[i]) })
	both(func(i int) { e.fma(r2[i], r2[i], q[i]) })
	both(func(i int) { e.mul(q[i], n[i], q[i]) })
	both(func(i int) { e.line("VANDNPS", e.r(q[i]), small[i], e.r(q[i])) })
	both(func(i int) { nanBlendOf(e, x[i], q[i]) })
	return q
}

// pairLoop writes the two-vector loop of an AVX2 function: while two
// vectors remain, body; then the one-vector loop (label loop) takes the
// rest.
func (e *emitter) pairLoop(body func(e *emitter) [2]reg) {
	e.line("MOVQ", "CX", "R9")
	e.line("SUBQ", "$16", "R9")
	fmt.Fprintln(e.w, "loop2:")
	e.line("CMPQ", "AX", "R9")
	e.line("JGT", "loop")
	e.line("VMOVUPS", "(SI)(AX*4)", e.r(0))
	e.line("VMOVUPS", "32(SI)(AX*4)", e.r(6))
	out := body(e)
	e.line("VMOVUPS", e.r(out[0]), "(DI)(AX*4)")
	e.line("VMOVUPS", e.r(out[1]), "32(DI)(AX*4)")
	e.line("ADDQ", "$16", "AX")
	e.line("JMP", "loop2")
}
