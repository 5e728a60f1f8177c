package main

import (
	"fmt"
	"io"
	"strings"
)

// emitter writes one loop, 16 lanes (Z registers, K masks, constants by
// embedded broadcast) or 8 lanes (Y registers, masks in Y13-Y15, constants
// as 32-byte operands). Operands follow Go's assembler: sources first,
// destination last. Value registers are 0-12.
type emitter struct {
	w    io.Writer
	wide bool
}

type reg int

type mask int

func newEmitter(w io.Writer, wide bool) *emitter { return &emitter{w: w, wide: wide} }

func (e *emitter) lanes() int {
	if e.wide {
		return 16
	}
	return 8
}

func (e *emitter) r(x reg) string {
	if x < 0 || x > 12 {
		panic(fmt.Sprintf("vmathgen: register %d out of 0-12", x))
	}
	if e.wide {
		return fmt.Sprintf("Z%d", x)
	}
	return fmt.Sprintf("Y%d", x)
}

func (e *emitter) m(m mask) string {
	if e.wide {
		return fmt.Sprintf("K%d", m+1)
	}
	return fmt.Sprintf("Y%d", 13+m)
}

func (e *emitter) line(op string, args ...string) {
	if len(args) == 0 {
		fmt.Fprintf(e.w, "\t%s\n", op)
		return
	}
	fmt.Fprintf(e.w, "\t%s %s\n", op, strings.Join(args, ", "))
}

// cop is an instruction with a constant as its first (memory) operand.
func (e *emitter) cop(op, c string, args ...string) {
	if e.wide {
		op += ".BCST"
	}
	e.line(op, append([]string{"vm" + c + "<>(SB)"}, args...)...)
}

// ops on floats: d = a op b (b a register or, for the *c forms, a constant)
func (e *emitter) mul(a, b, d reg)             { e.line("VMULPS", e.r(b), e.r(a), e.r(d)) }
func (e *emitter) add(a, b, d reg)             { e.line("VADDPS", e.r(b), e.r(a), e.r(d)) }
func (e *emitter) sub(a, b, d reg)             { e.line("VSUBPS", e.r(b), e.r(a), e.r(d)) }
func (e *emitter) div(a, b, d reg)             { e.line("VDIVPS", e.r(b), e.r(a), e.r(d)) }
func (e *emitter) mulc(a reg, c string, d reg) { e.cop("VMULPS", c, e.r(a), e.r(d)) }
func (e *emitter) addc(a reg, c string, d reg) { e.cop("VADDPS", c, e.r(a), e.r(d)) }
func (e *emitter) minc(a reg, c string, d reg) { e.cop("VMINPS", c, e.r(a), e.r(d)) }
func (e *emitter) maxc(a reg, c string, d reg) { e.cop("VMAXPS", c, e.r(a), e.r(d)) }

// fma: d = a*d + c (constant) and d = a*d + b (register)
func (e *emitter) fmac(a reg, c string, d reg) { e.cop("VFMADD213PS", c, e.r(a), e.r(d)) }
func (e *emitter) fma(a, b, d reg)             { e.line("VFMADD213PS", e.r(b), e.r(a), e.r(d)) }

// fnmac: d = d - a*c
func (e *emitter) fnmac(a reg, c string, d reg) { e.cop("VFNMADD231PS", c, e.r(a), e.r(d)) }

// bitwise with a constant mask
func (e *emitter) andc(a reg, c string, d reg) {
	if e.wide {
		e.cop("VPANDD", c, e.r(a), e.r(d))
	} else {
		e.cop("VANDPS", c, e.r(a), e.r(d))
	}
}

func (e *emitter) xorc(a reg, c string, d reg) {
	if e.wide {
		e.cop("VPXORD", c, e.r(a), e.r(d))
	} else {
		e.cop("VXORPS", c, e.r(a), e.r(d))
	}
}

func (e *emitter) orc(a reg, c string, d reg) {
	if e.wide {
		e.cop("VPORD", c, e.r(a), e.r(d))
	} else {
		e.cop("VORPS", c, e.r(a), e.r(d))
	}
}

func (e *emitter) or(a, b, d reg) {
	if e.wide {
		e.line("VPORD", e.r(b), e.r(a), e.r(d))
	} else {
		e.line("VORPS", e.r(b), e.r(a), e.r(d))
	}
}

func (e *emitter) bcast(c string, d reg) { e.line("VBROADCASTSS", "vm"+c+"<>(SB)", e.r(d)) }

// roundEven: d = a rounded to the nearest integer, ties to even
func (e *emitter) roundEven(a, d reg) {
	if e.wide {
		e.line("VRNDSCALEPS", "$0", e.r(a), e.r(d))
	} else {
		e.line("VROUNDPS", "$0", e.r(a), e.r(d))
	}
}

// pow2 sets s = 2^n exactly for integral n in [-150, 128] (0 below 2^-149,
// +Inf at 128) as 2^h * 2^l, h = n>>1, l = n-h, both normal; t is scratch.
func (e *emitter) pow2(n, s, t reg) {
	e.line("VCVTPS2DQ", e.r(n), e.r(t))
	e.line("VPSRAD", "$1", e.r(t), e.r(s))
	e.line("VPSUBD", e.r(s), e.r(t), e.r(t))
	e.cop("VPADDD", "Bias", e.r(s), e.r(s))
	e.cop("VPADDD", "Bias", e.r(t), e.r(t))
	e.line("VPSLLD", "$23", e.r(s), e.r(s))
	e.line("VPSLLD", "$23", e.r(t), e.r(t))
	e.mul(s, t, s)
}

// pow2Split sets s1 = 2^h and s2 = 2^l with h+l = n, as pow2 does, without
// their product.
func (e *emitter) pow2Split(n, s1, s2 reg) {
	e.line("VCVTPS2DQ", e.r(n), e.r(s2))
	e.line("VPSRAD", "$1", e.r(s2), e.r(s1))
	e.line("VPSUBD", e.r(s1), e.r(s2), e.r(s2))
	e.cop("VPADDD", "Bias", e.r(s1), e.r(s1))
	e.cop("VPADDD", "Bias", e.r(s2), e.r(s2))
	e.line("VPSLLD", "$23", e.r(s1), e.r(s1))
	e.line("VPSLLD", "$23", e.r(s2), e.r(s2))
}

// Compare predicates (VCMPPS immediates).
const (
	predLT    = 0x11 // LT_OQ
	predGE    = 0x1d // GE_OQ
	predUnord = 0x03 // UNORD_Q
)

// cmp: m = a pred b; cmpc with a constant b
func (e *emitter) cmp(pred int, a, b reg, m mask) {
	e.line("VCMPPS", fmt.Sprintf("$%d", pred), e.r(b), e.r(a), e.m(m))
}

func (e *emitter) cmpc(pred int, a reg, c string, m mask) {
	op := "VCMPPS"
	if e.wide {
		op += ".BCST"
	}
	e.line(op, fmt.Sprintf("$%d", pred), "vm"+c+"<>(SB)", e.r(a), e.m(m))
}

// blend: d = m ? t : f
func (e *emitter) blend(m mask, t, f, d reg) {
	if e.wide {
		e.line("VBLENDMPS", e.r(t), e.r(f), e.m(m), e.r(d))
	} else {
		e.line("VBLENDVPS", e.m(m), e.r(t), e.r(f), e.r(d))
	}
}

// horner: p = c[0] + x (c[1] + x (...)), the polynomial named c
func (e *emitter) horner(c string, x, p reg) {
	q := polyNamed(c)
	e.bcast(fmt.Sprintf("%s%d", c, len(q)-1), p)
	for i := len(q) - 2; i >= 0; i-- {
		e.fmac(x, fmt.Sprintf("%s%d", c, i), p)
	}
}

// polyNamed returns the coefficients of the polynomial named c.
func polyNamed(c string) []float32 {
	for _, q := range polys {
		if q.name == c {
			return q.c
		}
	}
	panic("vmathgen: no polynomial " + c)
}

// function writes the loop of f: func name(d, x *float32, n int), n a
// multiple of the lane count, the input in register 0; for a function of
// two inputs (binary), func name(d, a, b *float32, n int) with a in
// register 11 and b in register 0.
func (e *emitter) function(f fn, binary bool) {
	name := f.name + "8"
	if e.wide {
		name = f.name + "16"
	}
	if binary {
		fmt.Fprintf(e.w, "// func %s(d, a, b *float32, n int)\n", name)
		fmt.Fprintf(e.w, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
		e.line("MOVQ", "d+0(FP)", "DI")
		e.line("MOVQ", "a+8(FP)", "DX")
		e.line("MOVQ", "b+16(FP)", "SI")
		e.line("MOVQ", "n+24(FP)", "CX")
	} else {
		fmt.Fprintf(e.w, "// func %s(d, x *float32, n int)\n", name)
		fmt.Fprintf(e.w, "TEXT ·%s(SB), NOSPLIT, $0-24\n", name)
		e.line("MOVQ", "d+0(FP)", "DI")
		e.line("MOVQ", "x+8(FP)", "SI")
		e.line("MOVQ", "n+16(FP)", "CX")
	}
	e.line("XORQ", "AX", "AX")
	if pair := pairFuncs[f.name]; pair != nil && !e.wide && !binary {
		e.pairLoop(pair)
	}
	fmt.Fprintln(e.w, "loop:")
	e.line("CMPQ", "AX", "CX")
	e.line("JAE", "done")
	e.line("VMOVUPS", "(SI)(AX*4)", e.r(0))
	if binary {
		e.line("VMOVUPS", "(DX)(AX*4)", e.r(11))
	}
	out := f.body(e)
	e.line("VMOVUPS", e.r(out), "(DI)(AX*4)")
	e.line("ADDQ", fmt.Sprintf("$%d", e.lanes()), "AX")
	e.line("JMP", "loop")
	fmt.Fprintln(e.w, "done:")
	e.line("VZEROUPPER")
	e.line("RET")
	fmt.Fprintln(e.w)
}
